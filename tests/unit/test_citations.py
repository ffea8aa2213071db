"""Quotes are verbatim text of the chunk; invalid markers go; support is counted in content words."""

from __future__ import annotations

from rag.answers.citations import best_sentences, drop_invalid_markers, locate_verbatim, verify_quote
from rag.answers.faithfulness import content_tokens, split_sentences, support

JA = (
    "返品は購入後30日以内であれば受け付けます。返品の際はレシートが必要です。"
    "セール品は返品の対象外です。配送料はお客様の負担となります。"
)
EN = (
    "Employees may work remotely up to three days per week. Remote work requires manager approval. "
    "Equipment for home offices is reimbursed up to 500 dollars per year."
)


def test_locate_verbatim_ignores_whitespace_but_returns_the_chunk_text() -> None:
    text = "Remote work requires\n  manager approval."
    found = locate_verbatim("Remote work requires manager approval.", text)
    assert found == "Remote work requires\n  manager approval."
    assert found in text
    assert locate_verbatim("Remote work is forbidden.", text) is None


def test_paraphrased_quote_is_snapped_to_the_chunk_sentence_or_dropped() -> None:
    snapped = verify_quote("返品は30日以内なら受け付ける", JA)
    assert snapped == "返品は購入後30日以内であれば受け付けます。"
    assert verify_quote("Employees can work from home three days a week", EN) == (
        "Employees may work remotely up to three days per week."
    )
    assert verify_quote("The cafeteria serves lunch at noon", EN) is None


def test_invalid_and_odd_markers_are_normalized_or_dropped() -> None:
    text, dropped = drop_invalid_markers("A [1, 2]. B ［3］. C [7]. D [0].", 3)
    assert text == "A [1][2]. B [3]. C. D."
    assert dropped == [7, 0]


def test_long_sentences_are_clipped_to_240_chars_and_stay_verbatim() -> None:
    long_text = "The committee reviewed " + ", ".join(f"item {i}" for i in range(120)) + "."
    quote = best_sentences("committee reviewed items", long_text)
    assert 0 < len(quote) <= 240
    assert quote in long_text


def test_tokens_and_sentences_handle_japanese_and_english() -> None:
    assert "返品" in content_tokens("返品は可能")
    assert "the" not in content_tokens("The policy")
    assert {"bill", "mtower"} <= content_tokens("the bill's enactment, mTower's API")  # not "bill'" nor "mtower'"
    assert support("remote work approval", EN) == 1.0
    assert split_sentences(JA)[:2] == ["返品は購入後30日以内であれば受け付けます。", "返品の際はレシートが必要です。"]


def test_japanese_support_counts_content_words_not_particles_and_endings() -> None:
    passage = "Yahoo!7はオーストラリアのYahoo!で、放送事業者セブン・ネットワークとの合弁により2006年に名称を変更した。"
    assert support("Yahoo!7はオーストラリアのものです。", passage) == 1.0  # の/もの/です are not evidence
    assert support("2006年", passage) == 1.0  # a lone kanji beside a number is found
    assert support("Yahoo!7はカナダのものです。", passage) < 0.6  # the country is what matters
    assert content_tokens("ありがとう") == {"あり", "りが", "がと", "とう"}  # hiragana counts when nothing else does
