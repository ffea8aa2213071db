"""The prompt budget: Japanese counted as the tokens it costs, and long chunks cut to what the question is about."""

from __future__ import annotations

from rag.answers.context_window import ELLIPSIS, estimate_tokens, fits, focus

JAPANESE = (
    "当社の就業規則は全社員に適用されます。"
    "年次有給休暇は入社六か月後に十日付与されます。"
    "在宅勤務を希望する社員は所属長の承認を得なければなりません。"
    "通勤手当は実費を月額五万円まで支給します。"
    "退職する場合は一か月前までに届け出てください。"
)
ENGLISH = (
    "The handbook applies to every employee. "
    "Annual leave is granted after six months of service. "
    "Remote work requires the approval of the line manager. "
    "Commuting costs are refunded up to 50,000 yen a month. "
    "Employees who resign give one month's notice."
)


def test_japanese_costs_about_three_times_the_tokens_of_english_per_character() -> None:
    ja_rate = estimate_tokens(JAPANESE) / len(JAPANESE)
    en_rate = estimate_tokens(ENGLISH) / len(ENGLISH)
    assert 0.7 <= ja_rate <= 0.85
    assert 0.2 <= en_rate <= 0.3
    assert ja_rate > 2.5 * en_rate


def test_text_within_both_limits_is_kept_whole() -> None:
    assert focus("在宅勤務の承認は？", JAPANESE, 1000, 1000) == JAPANESE


def test_long_text_keeps_the_sentences_the_question_is_about() -> None:
    excerpt = focus("在宅勤務には誰の承認が必要ですか？", JAPANESE, 1000, 40)

    assert "在宅勤務を希望する社員は所属長の承認を得なければなりません。" in excerpt
    assert "退職する場合" not in excerpt  # far from the answer, left out
    assert excerpt.startswith(ELLIPSIS) and excerpt.endswith(ELLIPSIS)
    assert fits(excerpt, 1000, 40)
    assert excerpt.strip(ELLIPSIS) in JAPANESE  # contiguous text of the chunk, not a rewrite


def test_english_excerpt_respects_the_character_limit() -> None:
    excerpt = focus("Who approves remote work?", ENGLISH, 120)

    assert "Remote work requires the approval of the line manager." in excerpt
    assert len(excerpt) <= 120


def test_a_single_sentence_too_long_for_the_limit_is_cut_with_an_ellipsis() -> None:
    sentence = "在宅勤務" * 50 + "。"
    excerpt = focus("在宅勤務", sentence, 1000, 30)

    assert excerpt.endswith(ELLIPSIS)
    assert estimate_tokens(excerpt) <= 30
    assert sentence.startswith(excerpt[:-1])
