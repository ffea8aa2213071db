"""A verified claim with one thing turned round is no longer verified: a comparison, a bound, a code, or a name
paired with another's value. Each case is a claim the engine verified on a real passage, changed the way the quiz
makes false statements (``rag.quiz.perturbation``) or the way a small model slips, that was still shown as verified."""

from __future__ import annotations

import pytest
from test_claims import chunk_with, needs_realdocs

from rag.answers.citations import Passage
from rag.answers.facts import facts_of
from rag.answers.verification import check_answer

BILL = "en_us_bill_hr815_2024.pdf"


def _verified(claim: str, question: str, name: str, *needles: str) -> bool:
    chunk = chunk_with(name, *needles)
    checked = check_answer(f"{claim} [1]", question, [Passage(1, chunk, chunk.text)])
    return not checked.main_claim_failed and checked.claims[0].status in ("verified", "reattributed")


@needs_realdocs
@pytest.mark.parametrize(
    ("question", "right", "turned", "name", "needle"),
    [
        (
            "When must the President submit the report on sanctions to harmonize with allied sanctions?",
            "The President must submit the report not later than 90 days after the date of the enactment of this "
            "division.",
            "The President must submit the report not earlier than 90 days after the date of the enactment of this "
            "division.",
            BILL,
            "(a) REPORT REQUIRED.—Not later than 90 days",
        ),
        (
            "upTeX では、どの範囲の Unicode 文字が欧文文字として扱われませんか？",
            "upTEXでは、U+2E80以上のUnicode文字は欧文文字として扱われません。",
            "upTEXでは、U+2E80未満のUnicode文字は欧文文字として扱われません。",
            "ja_ptex_manual.pdf",
            "U+2E80 以上",
        ),
        (
            "Does TeX skip spaces before the first argument of a function?",
            "TeX will find the first argument after a function name irrespective of any intervening spaces.",
            "TeX will find the last argument after a function name irrespective of any intervening spaces.",
            "en_latex_usrguide.pdf",
            "will find the first argument",
        ),
        (
            "What is the maximum period for which the President may waive these sanctions?",
            "The maximum period for which the President may waive the sanctions is 180 days each.",
            "The minimum period for which the President may waive the sanctions is 180 days each.",
            BILL,
            "for periods not to exceed 180 days each",
        ),
        (
            "Which company is Hiroshi Nozue from, according to the 2018-06-13 minutes?",
            "Hiroshi Nozue is from Toshiba.",
            "Hiroshi Nozue is from Toyota.",  # the line above his: "Hikoshi Nakamura – Toyota Boshoku"
            "ja_openchain_jwg_minutes_20180613.pdf",
            "Hikoshi Nakamura – Toyota Boshoku\n\nHiroshi Nozue – Toshiba",
        ),
    ],
)
def test_a_claim_turned_round_is_refused_where_the_right_one_holds(
    question: str, right: str, turned: str, name: str, needle: str
) -> None:
    assert _verified(right, question, name, needle)
    assert not _verified(turned, question, name, needle)


def test_a_class_code_is_an_identifier_and_a_comma_for_a_japanese_comma_ends_no_number() -> None:
    """JLReq's classes are cl-1 … cl-30 and the simplified rules' cl-i … cl-xii: codes, not counts. "cl-11" made a
    count of 11 that "11 個" was found by; and "まで,30の文字クラス" (the page writes "," for 、) gave no 30."""
    codes = facts_of("(cl-11) と cl-xii")
    assert [(f.kind, f.value) for f in codes] == [("identifier", "cl-11"), ("identifier", "cl-xii")]
    counted = facts_of("“縦中横中の文字”の cl-30 まで,30の文字クラスに分けている")
    assert [f.value for f in counted if f.kind == "number"] == ["30"]


@needs_realdocs
def test_a_count_is_not_found_in_a_class_code_of_the_same_passage() -> None:
    """The simplified line composition rules reorganize the character classes into 12 (cl-i to cl-xii); the list
    after that sentence names cl-11 … among JLReq's classes, which once held "11 個"."""
    question = "簡便な行組版ルール（案）では、文字クラスを整理し直して新しく何個の文字クラスにしていますか？"
    name, needle = "ja_w3c_jlreq_line_composition.html", "cl-xii までの 12"
    assert _verified("12 個", question, name, needle)
    assert not _verified("11 個", question, name, needle)


@needs_realdocs
def test_one_code_of_a_sentence_naming_several_does_not_tie_an_english_claim_to_it() -> None:
    """The sentence "JLReq では,“始め括弧類”の cl-1 から“縦中横中の文字”の cl-30 まで,…に分けている" gives cl-30
    as the last class, set horizontally in vertical text. Once class codes are identifiers, "cl-30 is the opening
    brackets" names a code of the sentence and nothing else an English claim can be compared by: the code alone must
    not tie it to a sentence that binds another code to another class."""
    question = "In JLReq, is character class cl-30 the opening brackets?"
    claim = "Yes, in JLReq, character class cl-30 is the opening brackets."
    assert not _verified(claim, question, "ja_w3c_jlreq_line_composition.html", "cl-30 まで")


@needs_realdocs
def test_a_hexadecimal_value_is_a_fact_and_a_row_of_commands_without_its_columns_binds_none() -> None:
    """Two wrong answers of a live probe were shown as verified. "上限は0x10FFFF" read as the number 0, so nothing
    tied it to the sentence it cited; and "縦組を指定する命令は \\dtou" cited table 3 of the pTeX manual, read out of
    the PDF as "横組縦組DtoU 方向…" over "命令\\yoko \\tate \\dtou —", which holds every word and no column."""
    assert [(f.kind, f.value) for f in facts_of("最大値は0x2E7F, U+2E80 以上")] == [
        ("identifier", "0x2E7F"),
        ("identifier", "U+2E80"),
    ]
    question = "upTeXで欧文文字として扱うUnicodeの上限はどこまでですか？"
    ascii_sentence = "0–127 の7 ビットASCII 文字集"
    assert not _verified(
        "upTEXで欧文文字として扱うUnicodeの上限は0x10FFFFです。", question, "ja_ptex_manual.pdf", ascii_sentence
    )
    question = "pTeXで縦組を指定する命令は何ですか？"
    table = "命令\\yoko \\tate \\dtou"
    for command in ("\\dtou", "\\tate"):  # the row says neither: only its lost columns did
        assert not _verified(f"pTeXで縦組を指定する命令は {command} です。", question, "ja_ptex_manual.pdf", table)


@needs_realdocs
def test_a_value_asked_with_ikutsu_is_an_answer_to_it() -> None:
    """ "最大値はいくつですか" asks for a value, not a count: "…最大値は0x2E7Fとします" answers it."""
    question = "upTeXで\\catcodeが扱う欧文文字コードの最大値はいくつですか？"
    claim = "upTEXで\\catcodeが扱う欧文文字コードの最大値は0x2E7Fとします。"
    assert _verified(claim, question, "ja_ptex_manual.pdf", "欧文文字コードの最大値は0x2E7F")


@needs_realdocs
def test_a_row_number_is_not_met_by_a_bare_number_that_counts_something_else() -> None:
    """Asked from which row data starts, the model answered "1行目" (the rules say 2行目), and it was shown as
    verified on rule L1-02, "1シート(CSVは1ファイル)に複数の表が…": 行目 was no unit, so "1" met any bare 1."""
    rules = "ja_digital_agency_machine_readability_rules.csv"
    question = (
        "デジタル庁の機械判読ルールでは、CSVやExcelのファイルで実際のデータは何行目から入れることになっていますか？"
    )
    one_sheet = "1シート(CSVは1ファイル)に複数の表"
    assert not _verified(
        "CSVやExcelのファイルで実際のデータは1行目から入れることになっています。", question, rules, one_sheet
    )
    second_row = "2行目からデータを入力すること"
    assert _verified(
        "CSVやExcelのファイルで実際のデータは2行目から入れることになっています。", question, rules, second_row
    )
    assert not _verified(
        "CSVやExcelのファイルで実際のデータは1行目から入れることになっています。", question, rules, second_row
    )
