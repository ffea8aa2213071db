"""A word written in katakana in the claim and in Latin letters in its evidence (or the reverse) is the same word,
within one language; across languages a loanword carries no check."""

from __future__ import annotations

from test_claims import chunk_with, needs_realdocs

from rag.answers.citations import Passage
from rag.answers.loanwords import heard_in, romanize, sounds_alike
from rag.answers.verification import check_answer

PERSONAS = "ja_realpersonachat_interlocutors_sample.jsonl"


def test_katakana_loanwords_are_heard_as_the_english_words_they_render() -> None:
    assert romanize("ニュートン") == "nyuton" and romanize("ウィンドウズ") == "windouzu"
    assert romanize("テンポ") == "tempo" and romanize("チャット") == "chatto"
    rendered = [("persona", "ペルソナ"), ("chat", "チャット"), ("Italy", "イタリア"), ("license", "ライセンス"),
                ("server", "サーバー"), ("software", "ソフトウェア"), ("combination", "コンビネーション")]  # fmt: skip
    assert all(sounds_alike(latin, katakana) for latin, katakana in rendered)
    # other words, and words too short to tell apart, are not heard
    others = [("Britain", "イギリス"), ("France", "フランク"), ("mode", "コード"), ("cell", "セル"), ("AA", "エーエー")]
    assert not any(sounds_alike(latin, katakana) for latin, katakana in others)
    assert heard_in("ペルソナALが好きな雑誌は？", "persona: 好きな雑誌はNewton") == ["ペルソナ"]
    assert heard_in("The persona likes Newton", "ペルソナ: ニュートンが好き") == ["persona", "Newton"]


@needs_realdocs
def test_a_record_field_named_in_latin_letters_supports_a_claim_naming_it_in_katakana() -> None:
    """Asked where persona AQ comes from (ペルソナAQ), the model answered right from AQ's record, whose lines are
    "persona: 愛媛県松山市出身です。": no passage held the katakana ペルソナ, so the answer was replaced by the
    record's lines. A wrong place is still refused."""
    record = chunk_with(PERSONAS, "interlocutor_id: AQ", "愛媛県松山市出身")
    question = "ペルソナAQの人はどこの出身ですか？"
    right = check_answer("ペルソナAQの人は愛媛県松山市出身です[1]。", question, [Passage(1, record, record.text)])
    assert not right.main_claim_failed and right.claims[0].status == "verified"
    assert right.citations[0].quote == "persona: 愛媛県松山市出身です。"
    wrong = check_answer("ペルソナAQの人は東京都出身です[1]。", question, [Passage(1, record, record.text)])
    assert wrong.main_claim_failed


@needs_realdocs
def test_a_katakana_word_in_japanese_evidence_does_not_support_an_english_claim() -> None:
    """JLReq numbers its 30 character classes from the opening brackets (cl-1) to characters set horizontally in
    vertical text (cl-30). "cl-30 is the opening brackets" holds the identifier, and the page's クラス (class) sounds
    like the claim's "class": across languages that is no evidence, and the claim stays unsupported."""
    classes = chunk_with("ja_w3c_jlreq_line_composition.html", "cl-30 まで")
    question = "In JLReq, is character class cl-30 the opening brackets?"
    claim = "Yes, in JLReq, character class cl-30 is the opening brackets [1]."
    checked = check_answer(claim, question, [Passage(1, classes, classes.text)])
    assert checked.main_claim_failed and checked.claims[0].status == "unsupported"
