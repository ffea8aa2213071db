"""How a claim is read against its real passage: a word that widens it ("only", 「常に」), an answer that affirms one
part of a two-part question and denies the other, a denial lifted by "unless", a bulleted line, a chat line's
speaker, a name written as code, and a program named with whom it is for. Each case is a wrong answer that was
shown as verified, or a right one that was refused, before its fix."""

from __future__ import annotations

import pytest
from test_claims import checked_on, chunk_with, needs_realdocs

from rag.answers.citations import Passage
from rag.answers.fact_matching import fact_found
from rag.answers.facts import facts_of
from rag.answers.faithfulness import content_tokens
from rag.answers.scope import former_state
from rag.answers.verification import check_answer

_TOOLCHAINS = ("en_mtower_functionality_description.md", "Toolchain Selection")
_WHICH_TOOLCHAINS = "Which toolchains can be selected for building mTower?"
_HIGHER_COURT = ("ja_mhlw_worker_status_caselaw_method.pdf", "上級審の判断がある裁判例については")
_IP_TRAINING = ("ja_oss_training_case_analysis.xlsx", "そもそもソフトウェアとは")
_OPTIMIZATION = ("en_mtower_functionality_description.md", "Default is optimization level 1")


@needs_realdocs
@pytest.mark.parametrize(
    ("passage", "question", "answer", "widened"),
    [
        # "Options are GCC 6.1q1, GCC 6.1q2 and GCC 8q4."
        (_TOOLCHAINS, _WHICH_TOOLCHAINS, "The only toolchain option is GCC 6.1q1 [1].", "only"),
        # 上級審の判断を掲載しており、…引用している場合、下級審の判断を掲載している: a rule and its exception
        (
            _HIGHER_COURT,
            "厚労省の主要な裁判例集では、上級審の判断がある裁判例について、どの審級の判断を掲載していますか？",
            "上級審の判断がある裁判例でも、常に下級審の判断を掲載しています[1]。",
            "常に",
        ),
        # 法務と同じ形式の前に、さらに「そもそもソフトウェアとは」みたいな話を挟んだもの
        (
            _IP_TRAINING,
            "教育プログラム事例分析のExcelで、知財向け教育はどのような形式ですか？",
            "知財向け教育は、法務向けとまったく同じ形式です[1]。",
            "まったく",
        ),
        # "Default is optimization level 1 that is guaranteed to work." (most other levels fail to compile)
        (
            _OPTIMIZATION,
            "Which optimization level does mTower use by default, and why?",
            "The default is optimization level 1, and all the other optimization levels also work in practice [1].",
            "all",
        ),
    ],
)
def test_a_word_that_widens_what_the_passage_says_is_not_verified(
    passage: tuple[str, str], question: str, answer: str, widened: str
) -> None:
    """Each wrong answer keeps every fact and most words of its passage and adds one word that widens it; all four
    were verified."""
    checked = checked_on(passage, question, answer)
    assert checked.main_claim_failed
    assert f"'{widened}'" in checked.claims[0].reason


@needs_realdocs
@pytest.mark.parametrize(
    ("passage", "question", "answer"),
    [
        (_TOOLCHAINS, _WHICH_TOOLCHAINS, "The toolchain options are GCC 6.1q1, GCC 6.1q2 and GCC 8q4 [1]."),
        (
            _IP_TRAINING,
            "教育プログラム事例分析のExcelで、知財向け教育はどのような形式ですか？",
            "知財向け教育は、法務向けと同じ形式の前に、さらに「そもそもソフトウェアとは」といった話を挟んだものです[1]。",
        ),
        # "only" is in the next sentence: "The standard setting is first, and means that only the very first
        # 'letter' is (broadly) uppercased."
        (
            ("en_latex_usrguide.pdf", "words may also be used"),
            "With \\MakeTitlecase, what does the words key do, and what is its default?",
            "The words key takes first or all; the default, first, uppercases only the very first letter, while all "
            "uppercases the first letter of each space-separated word [1].",
        ),
        # "…means that the mandatory argument is now \\long, whereas the optional arguments are not."
        (
            ("en_latex_usrguide.pdf", "this applies on an argument-by-argument basis"),
            "In a LaTeX argument specification, what does the + prefix do, and how does it differ from \\newcommand?",
            "The + makes that argument long so it can take paragraph tokens; unlike \\newcommand, this is decided "
            "argument by argument, so in 's o o +m O{default}' only the mandatory argument is long [1].",
        ),
    ],
)
def test_a_widening_word_the_passage_backs_is_verified(passage: tuple[str, str], question: str, answer: str) -> None:
    """The right answers beside them: no widening word, or one a sentence of the passage backs, in its own word or
    by saying the others are not."""
    checked = checked_on(passage, question, answer)
    assert not checked.main_claim_failed, checked.claims[0].reason


def test_is_used_to_is_no_former_state() -> None:
    """ "+ is used to make an argument long" is a use, not a habit given up ("used to")."""
    assert former_state("The + makes an argument long", "First, + is used to make an argument long") == ""
    assert former_state("The + makes an argument long", "Formerly, + used to make every argument long") != ""


_MAC_COMPARE = ("en_mtower_functionality_description.md", "TEE_MACCompareFinal")
_IMPLEMENTED_AND_TESTED = "Is TEE_MACCompareFinal implemented in mTower, and is it tested?"
_NOT_TESTED = "Yes, TEE_MACCompareFinal is implemented, but it is marked as not tested [1]."
_PARAM_TYPES = ("en_mtower_functionality_description.md", "| TEEC_PARAM_TYPES |")
_IS_IT_TESTED = "mTowerのTEEC_PARAM_TYPESはテストされていますか？"


@needs_realdocs
@pytest.mark.parametrize(
    ("passage", "question", "answer", "shown"),
    [
        (_MAC_COMPARE, _IMPLEMENTED_AND_TESTED, _NOT_TESTED, True),
        (_MAC_COMPARE, _IMPLEMENTED_AND_TESTED, "Yes, TEE_MACCompareFinal is implemented and tested [1].", False),
        (_MAC_COMPARE, _IMPLEMENTED_AND_TESTED, "No, TEE_MACCompareFinal is not implemented [1].", False),
        # in Japanese, on the English row: its テスト is the "tested" of the comment cell
        (_PARAM_TYPES, _IS_IT_TESTED, "TEEC_PARAM_TYPESは実装されていますが、テストされていません[1]。", True),
        (_PARAM_TYPES, _IS_IT_TESTED, "はい、TEEC_PARAM_TYPESはテストされています[1]。", False),
        (_PARAM_TYPES, _IS_IT_TESTED, "TEEC_PARAM_TYPESは実装されていません[1]。", False),
    ],
)  # fmt: skip
def test_a_two_part_answer_is_read_part_by_part_on_its_row(
    passage: tuple[str, str], question: str, answer: str, shown: bool
) -> None:
    """The rows "| TEE_MACCompareFinal | Yes | Not tested |" and "| TEEC_PARAM_TYPES | Yes | Not tested |" under
    "Implemented | Comments": the right answers were refused as a yes that denies what it is asked, as a claim whose
    denial the yes cell contradicts, and (in Japanese) because an English row cannot write 「テスト」 as the question
    does."""
    checked = checked_on(passage, question, answer)
    assert checked.main_claim_failed is not shown, checked.claims[0].reason


_LIMITATIONS = ("en_us_bill_hr815_2024.pdf", "commenced within 10 years after the latest date of the violation")
_WITHIN_WHAT_PERIOD = (
    "Under the statute of limitations that H.R. 815 adds to the International Emergency Economic Powers Act, "
    "within what period must an action to enforce a civil fine, penalty or forfeiture be brought?"
)


@needs_realdocs
@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        (
            "Such an action must be commenced within 10 years after the latest date of the violation on which the "
            "fine, penalty or forfeiture is based [1].",
            True,
        ),
        ("Such an action need not be commenced within 10 years after the latest date of the violation [1].", False),
    ],
)
def test_a_denial_lifted_by_unless_requires_its_condition(answer: str, shown: bool) -> None:
    """ "…shall not be entertained unless commenced within 10 years after the latest date of the violation…": the
    requirement was refused as a flipped polarity, and its denial verified."""
    checked = checked_on(_LIMITATIONS, _WITHIN_WHAT_PERIOD, answer)
    assert checked.main_claim_failed is not shown, checked.claims[0].reason


_EXPANDABLE = ("en_latex_usrguide.pdf", "Parsing arguments by pure expansion")
_VERBATIM = "Can a command defined with \\NewExpandableDocumentCommand take a verbatim (v-type) argument?"


@needs_realdocs
def test_a_bulleted_line_is_a_sentence_of_its_own() -> None:
    """ "• The 'verbatim' argument type v is not available." followed "…types m, r or R." as part of one sentence,
    and the long opening sentence about expandable commands, sharing as many words, was compared instead: the right
    "No" was refused and the wrong "Yes" verified. The quote is the bullet."""
    right = checked_on(
        _EXPANDABLE,
        _VERBATIM,
        "No, the verbatim argument type v is not available for expandable document commands [1].",
    )
    assert not right.main_claim_failed, right.claims[0].reason
    assert right.citations[0].quote.startswith("• The ‘verbatim’ argument type v is not available")
    wrong = checked_on(
        _EXPANDABLE, _VERBATIM, "Yes, the verbatim argument type v is available for expandable document commands [1]."
    )
    assert wrong.main_claim_failed


@needs_realdocs
def test_a_chat_line_goes_to_another_speaker_only_when_it_holds_clearly_more_of_the_claim() -> None:
    """ "AA: 遠距離恋愛ですね!…" holds the question's 遠距離 and AB's next line "だいぶ小まめに連絡取ってました" the
    answer: the right answer was refused as said by AA. A claim giving AA's line to AB is still refused."""
    question = (
        "チャット00004で、ABさんは夫がイギリスに駐在していた遠距離恋愛の間、連絡をどのくらい取っていたと"
        "言っていますか？"
    )
    right = checked_on(
        ("ja_chat_realpersonachat_00004.json", "だいぶ小まめに連絡取ってました"),
        question,
        "ABさんは、遠距離の間もかなりこまめに連絡を取り合っていたと話しています[1]。",
    )
    assert not right.main_claim_failed, right.claims[0].reason
    swapped = checked_on(
        ("ja_chat_realpersonachat_00004.json", "趣味は旅行です"),
        "チャット00004で、AAさんは自分の趣味を何だと言っていますか？",
        "ABさんは、趣味は旅行だと言っています[1]。",
    )
    assert "AA" in swapped.claims[0].reason


_LISTFILES = ("en_latex_usrguide.pdf", "\\listfiles [")
_CHECKSUM = "Which option do I give \\listfiles so that it also prints an MD5 checksum for every file it read?"


@needs_realdocs
def test_a_name_written_as_code_must_be_in_the_quote() -> None:
    """The model's "use the `hashes` option" was shown with "\\listfiles [⟨options⟩] If this command is placed in
    the preamble…", which names no option: the quote now holds "hashes Adds the MD5 hash for each file", and an
    option the text does not give is refused."""
    right = checked_on(
        _LISTFILES,
        _CHECKSUM,
        "To print an MD5 checksum for every file read by \\listfiles, use the `hashes` option [1].",
    )
    assert not right.main_claim_failed, right.claims[0].reason
    assert "hashes Adds the MD5 hash" in right.citations[0].quote
    wrong = checked_on(
        _LISTFILES,
        _CHECKSUM,
        "To print an MD5 checksum for every file read by \\listfiles, use the `checksums` option [1].",
    )
    assert wrong.main_claim_failed


def test_a_program_and_whom_it_is_for_may_be_written_apart() -> None:
    """The bill funds "'Foreign Military Financing Program', $3,500,000,000, … for assistance for Israel": the name
    "Foreign Military Financing for Israel" is found there, "… for Ukraine" is not."""
    text = "For an additional amount for ‘‘Foreign Military Financing Program’’, $3,500,000,000, … for Israel"
    (israel,) = [f for f in facts_of("Of the Foreign Military Financing for Israel") if f.kind == "name"]
    (ukraine,) = [f for f in facts_of("Of the Foreign Military Financing for Ukraine") if f.kind == "name"]
    assert fact_found(israel, facts_of(text), text)
    assert not fact_found(ukraine, facts_of(text), text)


@needs_realdocs
def test_a_list_item_s_name_is_not_bound_to_another_item_s_words() -> None:
    """The line composition rules list their new character classes one per ``<li>``, none ending in a full stop:
    read as one sentence, "行頭禁則約物類(cl-iii)は…「ルビ付き」文字クラスをまとめたもの" was verified on the ninth
    item's "(ルビ付き)". Each item is now a sentence of its own."""
    question = (
        "簡便な行組版ルール（案）で新しく設けた文字クラス「行頭禁則約物類（cl-iii）」は、JLReqのどの文字クラスを"
        "まとめたものですか？"
    )
    classes = ("ja_w3c_jlreq_line_composition.html", "行頭禁則約物類")
    wrong = checked_on(
        classes, question, "行頭禁則約物類（cl-iii）は、JLReqの「ルビ付き」文字クラスをまとめたものです[1]。"
    )
    assert wrong.main_claim_failed
    right = checked_on(
        classes,
        question,
        "行頭禁則約物類（cl-iii）は、ハイフン類（cl-03）、区切り約物（cl-04）、後置省略記号（cl-13）をまとめたものです[1]。",
    )
    assert not right.main_claim_failed, right.claims[0].reason
    assert "ルビ" not in right.citations[0].quote


def test_a_japanese_label_s_letter_tells_its_siblings_apart() -> None:
    """pTeX's input processor adds 状態K and 状態T: a claim about 状態K does not rest on a line about 状態T."""
    (state_k,) = facts_of("状態Kは、和文文字の直後の状態です")
    assert state_k.kind == "identifier"
    assert not fact_found(state_k, (), "状態T 和文文字で終わるコントロールワードの直後.")
    assert fact_found(state_k, (), "状態K 和文文字の直後.")


@needs_realdocs
def test_a_reversed_order_is_not_verified() -> None:
    """ "Processors are applied from right to left": "They run from left to right" holds every word of it."""
    processors = ("en_latex_usrguide.pdf", "Processors are applied from right to left")
    question = "If several argument processors are given for one argument, in what order are they applied?"
    wrong = checked_on(processors, question, "They are applied from left to right [1].")
    assert wrong.main_claim_failed and "right to left" in wrong.claims[0].reason
    right = checked_on(processors, question, "They are applied from right to left [1].")
    assert not right.main_claim_failed, right.claims[0].reason


@needs_realdocs
def test_a_bare_date_holds_on_the_line_that_dates_the_conversation() -> None:
    """Chat 00004 is dated only by its turns' timestamps; its details now end with "会話の日時: 2022-08-06 15:17 –
    15:25". The bare answer "2022年8月6日" was refused there: the question's 何年何月何日 counted as five words no
    evidence writes, and the answer's 年, 8, 月 as words "2022-08-06" does not. A wrong day is still refused."""
    question = "チャット00004の会話は、何年何月何日に行われたものですか？"
    dated = ("ja_chat_realpersonachat_00004.json", "会話の日時")
    right = checked_on(dated, question, "2022年8月6日[1]。")
    assert not right.main_claim_failed, right.claims[0].reason
    assert "2022-08-06" in right.citations[0].quote
    assert checked_on(dated, question, "2022年8月7日[1]。").main_claim_failed


def test_an_interrogative_is_no_word_to_find_in_evidence() -> None:
    assert not any("何" in token for token in content_tokens("何年何月何日に行われ、何件ありましたか？"))
    assert content_tokens("何年") == set()


def test_a_department_is_found_where_the_text_names_it_the_other_way_round() -> None:
    """The bill writes "DEPARTMENT OF STATE"; a claim says "the State Department"."""
    (state,) = facts_of("The State Department's account")
    assert fact_found(state, (), "department of state and related agency")
    assert not fact_found(state, (), "department of defense")


@needs_realdocs
@pytest.mark.parametrize(
    ("passage", "question", "answer"),
    [
        # "(but is not limited to)" and 「(ただしこれに限らない)」 say the list is open, not that one item is alone
        (
            ("ja_openchain_spec_kaisetsu.pdf", "any organization employee or contractor that defines"),
            "How does the OpenChain specification define 'Software Staff'?",
            "Software Staff means only the software developers who write the Supplied Software [1].",
        ),
        # 「字幅が全角でない…」: the 全 of 全角 says nothing of all
        (
            ("ja_w3c_jlreq_line_composition.html", "この文選作業では"),
            "日本語の活字組版の文選作業では、どの文字を拾い集め、どの文字は拾わなかったのですか？",
            "文選では、句読点や括弧類も含めて原稿のすべての文字を拾い集めていました[1]。",
        ),
    ],
)
def test_a_word_that_only_looks_like_a_backing_backs_no_widening(
    passage: tuple[str, str], question: str, answer: str
) -> None:
    checked = checked_on(passage, question, answer)
    assert checked.main_claim_failed


def test_a_date_that_ends_a_sentence_is_one_date() -> None:
    """ "…was added on 2022/06/01." read as the month 2022/06 and a number 01, which no evidence holds."""
    assert {f.value for f in facts_of("It was added as a new feature on 2022/06/01.")} == {
        "2022 year",
        "6 month-of-year",
        "1 day",
    }
    assert [f.kind for f in facts_of("version 2023.1.2.3")] == ["version"]


_FOREIGN_STAKE = ("en_us_bill_hr815_2024.pdf", "(2) CONTROLLED BY A FOREIGN ADVERSARY")
_OWNED_WHEN = (
    "Under H.R. 815's provision on data brokers, when is an entity 'controlled by a foreign adversary' because of who "
    "owns it?"
)
_WIRES = ("en_scan_edison_patent_us223898.pdf", "rolled ont into wirea")
_WIRES_VARY = (
    "In Edison's electric lamp patent, the kneaded carbon material is rolled out into wires. May the size of the "
    "wires vary?"
)


@needs_realdocs
def test_a_quotation_must_be_the_passage_s_own_words() -> None:
    # "AB: いいですね!今まで我慢した分、発散しましょう!": the misquotation held most of its words and was verified
    passage = ("ja_chat_realpersonachat_00004.json", "ヨーロッパは観光地が魅力的です")
    question = (
        "チャット00004で、AAさんがコロナが落ち着くのを待って今バイトなどをしていると言ったとき、"
        "ABさんはどう返しましたか？"
    )

    misquoted = checked_on(
        passage, question, "ABさんは「いいですね!今まで我慢した分、貯金しましょう!」と返しました[1]。"
    )
    quoted = checked_on(
        passage, question, "ABさんは「いいですね！今まで我慢した分、発散しましょう！」と返しました[1]。"
    )

    assert misquoted.main_claim_failed and "word for word" in misquoted.claims[0].reason
    assert not quoted.main_claim_failed, quoted.claims[0].reason  # full-width marks are the same words


_COMPLETION_TARGET = (
    "各社の教育体系を整理したExcelには、OpenChain仕様1.2の教育要件として教育完了率の目標が書かれています。"
    "その目標は何％以上で、仕様2.0ではこの種の修了条件はどう扱われていますか？"
)


@needs_realdocs
@pytest.mark.parametrize(
    ("answer", "verified"),
    [
        ("その目標は85%以上で、仕様2.0ではこの種の修了条件は削除されています。", True),
        ("その目標は85%以上で、仕様2.0ではこの種の修了条件が規定されています。", False),
    ],
)
def test_a_sentence_that_goes_on_to_the_present_state_vouches_for_what_it_says_of_it(
    answer: str, verified: bool
) -> None:
    # "以前のバージョン(Version 1.2)では、…修了条件…が存在していましたが、…本バージョン(Version 2.0)では削除されて
    # います": the right answer was refused as stating a former state as current, and, joined by "85%以上で、", was
    # never read part by part (the 85% is the workbook's, the deletion the commentary's)
    record = chunk_with("ja_oss_training_case_analysis.xlsx", "教育対象者への教育完了85%以上")
    commentary = chunk_with("ja_openchain_spec_kaisetsu.pdf", "Version 2.0)では削除")
    passages = [Passage(1, record, record.text), Passage(2, commentary, commentary.text)]

    checked = check_answer(answer, _COMPLETION_TARGET, passages)

    assert checked.main_claim_failed is not verified
    if verified:
        assert set(checked.claims[0].cited) == {1, 2}
    else:  # 規定 is said of the former state
        alone = check_answer(answer.split("、", 1)[1].replace("。", "[2]。"), _COMPLETION_TARGET, passages)
        assert "former state" in alone.claims[0].reason


@needs_realdocs
@pytest.mark.parametrize(
    ("passage", "question", "answer", "unsaid"),
    [
        (_FOREIGN_STAKE, _OWNED_WHEN,
         "When such foreign persons directly or indirectly own at least a 20 percent stake and have held it for at "
         "least one year [1].", "held"),
        (_WIRES, _WIRES_VARY,
         "The wires may have various lengths, but each must be uniform with a diameter of exactly one-thousandth of "
         "an inch [1].", "inch"),
    ],
)  # fmt: skip
def test_a_clause_the_passage_never_says_does_not_ride_on_the_clause_it_does(
    passage: tuple[str, str], question: str, answer: str, unsaid: str
) -> None:
    # the claim's words were counted over the whole claim: its first clause, the passage's own words, lent the
    # invented second one ("have held it for at least one year") the share it needed
    checked = checked_on(passage, question, answer)

    assert checked.main_claim_failed
    assert "does not say" in checked.claims[0].reason and unsaid in checked.claims[0].reason


@needs_realdocs
@pytest.mark.parametrize(
    ("passage", "question", "answer"),
    [
        (_FOREIGN_STAKE, _OWNED_WHEN,
         "When a foreign person or a combination of foreign persons from a foreign adversary country directly or "
         "indirectly owns at least a 20 percent stake in it [1]."),
        (_WIRES, _WIRES_VARY,
         "The wires may be rolled out in various lengths and diameters, but each wire is to be uniform in size "
         "throughout [1]."),
    ],
)  # fmt: skip
def test_each_clause_the_passage_says_is_verified(passage: tuple[str, str], question: str, answer: str) -> None:
    checked = checked_on(passage, question, answer)

    assert not checked.main_claim_failed, checked.claims[0].reason
