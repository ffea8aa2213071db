"""Claim checks on real passages: the failure kinds seen on real documents each caught, paraphrases still pass.

The passages are read from ``../shared/realdocs/docs`` with the product's own parser and chunker, so each test
checks a claim against exactly the text the index would hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from rag.answers.citations import Passage
from rag.answers.claims import check_claim
from rag.answers.contrast import claimed_terms, contrasted_terms, other_kind_named
from rag.answers.draft import AnswerDraft
from rag.answers.evidence import SentenceRelevance, answers_nothing
from rag.answers.fact_matching import fact_found
from rag.answers.facts import facts_of
from rag.answers.faithfulness import is_yes_no_question, split_sentences
from rag.answers.polarity import asks_negatively, is_negated
from rag.answers.premises import premises
from rag.answers.replies import Stance, check_reply
from rag.answers.verification import ONLY_ASKS_REASON, CheckedAnswer, check_answer
from rag.ingest.chunking import chunk_document
from rag.ingest.parsing import parse_file
from rag.models.embedding import Embedder
from rag.records import Chunk, Hit
from rag.settings import Settings
from tests.scripted_llm import ScriptedLLM

REALDOCS = Path(__file__).resolve().parents[2].parent / "shared" / "realdocs" / "docs"
needs_realdocs = pytest.mark.skipif(not REALDOCS.is_dir(), reason="../shared/realdocs is not beside the checkout")


@cache
def chunks_of(name: str) -> tuple[Chunk, ...]:
    doc = parse_file(REALDOCS / name, Settings())
    return tuple(chunk_document(doc, source=name, rel_path=name, doc_type="general", settings=Settings()))


def embedding_relevance(embedder: Embedder) -> SentenceRelevance:
    """The cosines the engine lends the answer checks (``RagService.sentence_relevance``), from ``embedder``."""

    def cosines(question: str, sentences: Sequence[str]) -> list[float]:
        return [float(c) for c in embedder.embed_passages(list(sentences)) @ embedder.embed_queries([question])[0]]

    return cosines


def chunk_with(name: str, *needles: str) -> Chunk:
    """The chunk of a real document whose text holds every needle."""
    for chunk in chunks_of(name):
        if all(needle in chunk.text for needle in needles):
            return chunk
    raise AssertionError(f"no chunk of {name} holds {needles}")


def checked_on(passage: tuple[str, str], question: str, answer: str) -> CheckedAnswer:
    """``answer`` to ``question`` checked against one passage: the chunk of ``passage[0]`` holding ``passage[1]``."""
    chunk = chunk_with(*passage)
    return check_answer(answer, question, [Passage(1, chunk, chunk.text)])


@needs_realdocs
def test_a_unit_the_claim_gives_a_bare_number_must_be_named_where_it_is_read() -> None:
    """Asked how many hours Edison's lamp lasts (the patent gives none), "この特許は、1678時間の寿命を示しています" was
    verified on the scan's OCR line "233.096, dated January 27, 1900,ーー Agadiontion Sled がover 1678.": a bare
    number was taken for any measure. A table's header or the sentence must name the unit; a year or an ordinal
    needs no word ("released in 1994" is 1994年)."""
    scan = chunk_with("en_scan_edison_patent_us223898.pdf", "Agadiontion Sled")
    question = "エジソンの電球の特許には、この電球が何時間くらい点灯し続けられる（寿命）と書かれていますか？"
    checked = check_answer("この特許は、1678時間の寿命を示しています[1]。", question, [Passage(1, scan, scan.text)])
    assert checked.main_claim_failed and "1678時間" in checked.claims[0].reason
    assert check_claim("It lasts 1678 hours.", "Lamp life (hours): 1678").supported  # the header names it
    released = "LaTeX2ε was released in 1994."
    (year,) = facts_of("1994年")
    assert fact_found(year, tuple(facts_of(released)), released)


@needs_realdocs
def test_a_month_in_a_date_is_no_count_of_anything() -> None:
    """Asked how many judgement factors the 1985 study group report lists (the MHLW note names the report and counts
    none), "There are 10 judgement factors in total" was verified on the note's "(令和6 年10 月時点・厚生労働省…)":
    the 10 of "10月" (October) was read as a bare ten. A month of a date supports only a month; "10か月" is a length
    of time."""
    note = chunk_with("ja_mhlw_worker_status_caselaw_method.pdf", "令和6 年10 月時点")
    question = (
        "The MHLW note on how its worker-status court-case materials were prepared says the per-case table counts the "
        "judgement factors listed in the 1985 Labour Standards Act study group report. How many judgement factors are "
        "there in total?"
    )
    checked = check_answer("There are 10 judgement factors in total [1].", question, [Passage(1, note, note.text)])
    assert checked.main_claim_failed
    dated = "令和6年10月時点"
    october, ten_months = facts_of("October")[0], facts_of("10 months")[0]
    assert fact_found(october, tuple(facts_of(dated)), dated)
    assert not fact_found(ten_months, tuple(facts_of(dated)), dated)
    assert fact_found(ten_months, tuple(facts_of("10か月")), "10か月")


@needs_realdocs
def test_a_hexadecimal_code_is_one_value_not_its_leading_digits() -> None:
    """The pTeX manual maps both dashes to the JIS code "213D; "内部的にはJISコード"213Cとして扱われ" was verified
    on it, its 213 read as a number the passage holds."""
    passage = ("ja_ptex_manual.pdf", 'JIS コード"213D として扱われ')
    question = "pTeXでは全角ダーシ(U+2015)とEMダーシ(U+2014)はどう扱われ、書き出すときはどちらになりますか？"
    answer = '両者は同一視されて、内部的にはJISコード"{}として扱われ、ファイルに書き出すときはU+2015になります[1]。'
    assert checked_on(passage, question, answer.format("213C")).main_claim_failed
    assert not checked_on(passage, question, answer.format("213D")).main_claim_failed


@needs_realdocs
def test_an_exclamation_mark_in_code_or_a_quotation_ends_no_claim() -> None:
    """ "…would be defined as \\NewDocumentCommand\\\\{!s !o}{ … }" was cut at each "!" into three claims, and the
    usrguide's "prints 'Blanks in or empty argument!' and …" after its quotation's "!": the pieces after the cut were
    left unchecked or checked without the words that say what they are about."""
    guide = ("en_latex_usrguide.pdf", "Spaces are not ignored by TEX here")
    question = "Which argument specification does the usrguide give for \\\\ in amsmath environments?"
    checked = checked_on(guide, question, "It would be defined as \\NewDocumentCommand\\\\{!s !o}{ ... } [1].")
    assert len(checked.claims) == 1 and checked.claims[0].status == "verified"
    assert split_sentences("ですね!すごい聞きたいです!AA: はい") == ["ですね!", "すごい聞きたいです!", "AA: はい"]


@needs_realdocs
def test_each_clause_of_a_japanese_claim_must_be_said_by_its_passage() -> None:
    """The OpenChain commentary's evidence 1.3.1 documents that the Program's people know its aims, their part and
    what failing it means. A claim adding, after its commas, that an outside certification body reviewed this held
    most of its words in that sentence and was verified; the clause of the review holds none of its own."""
    passage = ("ja_openchain_spec_kaisetsu.pdf", "1.3.1 Program 関係者が")
    question = "OpenChain仕様1.3(認識)の証跡となる資料1.3.1は、何を確認したことの文書化されたエビデンスですか？"
    said = "Program関係者が、Programの目的、Program内での貢献、要件に従わないことによる影響を認識していることを{}[1]。"
    documented = checked_on(passage, question, said.format("確認したことの、文書化されたエビデンスです"))
    assert not documented.main_claim_failed
    reviewed = checked_on(passage, question, said.format("、外部の認証機関が審査して確認したエビデンスです"))
    assert reviewed.main_claim_failed and "審査" in reviewed.claims[0].reason


@needs_realdocs
def test_a_compound_naming_another_kind_of_the_same_head_is_no_evidence() -> None:
    """The line composition rules say the rules relied on the compositor's skill (組版担当者); a claim that they relied
    on the proofreader's (校正担当者) held every other word and was verified. The evidence names the head with another
    word before it; a word the evidence writes just before the head ("機械による自動処理") is no other kind."""
    passage = ("ja_w3c_jlreq_line_composition.html", "ルールの適用は組版担当者の能力に頼っていた")
    question = "簡便な行組版ルールでは、活字組版でのルールの適用は何に頼っていたとされていますか？"
    answer = "活字組版では、ルールの適用は{}の能力に頼っていたとされています[1]。"
    swapped = checked_on(passage, question, answer.format("校正担当者"))
    assert swapped.main_claim_failed and "組版担当者, not 校正担当者" in swapped.claims[0].reason
    assert not checked_on(passage, question, answer.format("組版担当者")).main_claim_failed
    assert other_kind_named("手作業でも機械処理でも", "手作業だけでなく、機械による自動処理も") is None


@needs_realdocs
def test_a_flipped_polarity_is_caught_even_when_the_words_match() -> None:
    """The FAQ says placing an OSS device in a rented shop corner is NOT distribution (配布にはなりません)."""
    passage = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "小売店の場所を借りる", "配布にはなりません").text
    wrong = check_claim("小売店の場所を借りて機器を設置して使用するだけでも、OSSの配布したことになります。", passage)
    assert not wrong.supported and wrong.polarity_conflict
    assert "配布にはなりません" in wrong.evidence  # compared with the sentence it restates, not the whole passage
    right = check_claim("小売店の場所を借りて設置し使用するだけなら、OSSの配布にはなりません。", passage)
    assert right.supported, right.reason


@needs_realdocs
def test_a_prohibition_granted_as_a_concession_does_not_deny_the_claim() -> None:
    """Asked whether software whose licence bans commercial use may be used in-house, the model copied the FAQ's
    heading as its answer: "社内であれば、商用利用禁止でも利用できます". Its 禁止 is the concession (でも), and it
    allows; the FAQ answers "…社内で利用することはできません". Both had counted as denials, so it was verified."""
    passage = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "社内で利用することはできません").text
    topic = "入手したOSSのライセンスで商用利用が禁止されていますが、社内で使うだけなら使っても大丈夫ですか？"
    wrong = check_claim("社内であれば、商用利用禁止でも利用できます。", passage, topic=topic)
    assert not wrong.supported and wrong.polarity_conflict and wrong.contradicts
    assert "できません" in wrong.evidence
    right = check_claim("商用利用が禁止されているソフトウェアは、社内でも利用できません。", passage, topic=topic)
    assert right.supported, right.reason


@needs_realdocs
def test_a_faq_question_supports_nothing_only_its_answer_does() -> None:
    """The FAQ asks "…ライセンスが英語の場合、英語で読まなければいけないでしょうか?" and answers that it must be read
    (読まなくてはなりません). The question holds every word of either answer, yes or no, and asserts neither."""
    passage = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "英語で読まなければいけないでしょうか").text
    topic = "OSSのライセンス文が英語の場合でも読まなければいけませんか？"
    right = check_claim("はい、ライセンス文が英語の場合でも、読まなければいけません。", passage, topic=topic)
    assert right.supported, right.reason
    assert "でしょうか" not in right.evidence and "読まなくてはなりません" in right.evidence
    wrong = check_claim("いいえ、ライセンスが英語の場合、英語で読まなくてもよい。", passage, topic=topic)
    assert not wrong.supported and wrong.polarity_conflict
    asked = "英語が苦手なのですが、英語で読まなければいけないでしょうか?"
    only_asked = check_claim("英語が苦手な場合、英語で読まなければいけない。", asked)
    assert not only_asked.supported and "question" in only_asked.reason


@needs_realdocs
def test_a_claim_about_one_side_of_a_pair_is_not_supported_by_the_item_about_the_other() -> None:
    """The pTeX manual lists "• 欧文文字の文字コード0–255 をとる(例:\\catcode)" and, as the next item, "• 和文文字の内部
    コードをとる(例:\\inhibitxspcode)". "\\catcode takes a kanji's internal code" joined \\catcode from the first
    item with the words of the second, and was shown as verified."""
    passage = chunk_with("ja_ptex_manual.pdf", "欧文文字の文字コード0–255 をとる(例:\\catcode)").text
    topic = "pTeXでは、\\catcode の対象として和文文字の内部コードを指定できますか？"
    claim = "はい、pTeXでは、\\catcode の対象として和文文字の内部コードを指定できます。"
    wrong = check_claim(claim, passage, topic=topic)
    assert not wrong.supported and "欧文, not 和文" in wrong.reason
    assert "inhibitxspcode" not in wrong.evidence  # two list items are never one window
    right = check_claim("\\catcode は欧文文字の文字コード0–255 をとります。", passage, topic=topic)
    assert right.supported, right.reason
    other_item = check_claim("\\inhibitxspcode は和文文字の内部コードをとります。", passage)
    assert other_item.supported, other_item.reason


def test_contrasting_terms_are_named_only_when_the_evidence_lacks_the_claimed_side() -> None:
    def contrast(claim: str, evidence: str) -> list[tuple[str, str]]:
        return contrasted_terms(claimed_terms(claim), evidence)

    assert contrast("The maximum length is 64 characters.", "The minimum length is 64 characters.") == [
        ("maximum", "minimum")
    ]
    assert contrast("Encryption keys are rotated.", "Decrypted data is never stored.") == [("encrypt", "decrypt")]
    assert contrast("The maximum is 64.", "The minimum is 8 and the maximum is 64.") == []
    line_start, line_end = "行頭に来た場合は全角アキを確保する。", "行末に配置される場合は全角アキを確保する。"
    assert contrast(line_start, line_end) == [("行頭", "行末")]


@needs_realdocs
def test_words_that_name_the_document_do_not_make_a_claim_on_topic() -> None:
    """No document says which command changes the page margins. The answer "the LaTeX for authors guide recommends
    \\MakeUppercase for changing the page margins" shared "LaTeX", "command" and "change" with the case-changing
    passage and was shown as verified; "LaTeX" only names the guide (``en_latex_usrguide.pdf``)."""
    source = "en_latex_usrguide.pdf"
    passage = chunk_with(source, "To overcome this problem", "\\MakeUppercase").text
    question = "Which command does the LaTeX for authors guide recommend for changing the page margins?"
    claim = "The LaTeX for authors guide recommends using the \\MakeUppercase command for changing the page margins."
    check = check_claim(claim, passage, topic=question, context=question, source=source)
    assert not check.supported, check.reason
    assert check_claim(claim, passage, topic=question, context=question).supported  # what it was without the name


@needs_realdocs
def test_a_question_s_identifier_is_not_vouched_for_by_a_table_row_about_another_one() -> None:
    """mTower's table: TEEC_InitializeContext is implemented ("Yes"), TEEC_RequestCancellation is not ("No")."""
    passage = chunk_with("en_mtower_functionality_description.md", "TEEC_InitializeContext", "TEEC_RequestCancellation")
    question = "Does mTower implement TEEC_RequestCancellation?"
    given = premises(question, [passage.text])
    other_row = "| **GP TEE Client API** |**Implemented**| **Comments** |\n|---|---|---|\n" + next(
        line for line in passage.text.splitlines() if "TEEC_InitializeContext" in line
    )
    wrong = check_claim("Yes, TEEC_RequestCancellation is implemented [1].", other_row, given=given, context=question)
    assert not wrong.supported and [f.text for f in wrong.missing] == ["TEEC_RequestCancellation"]
    # its own row says "No" in the Implemented column: few words in common, but the row holds the claim's identifier
    claim = "TEEC_RequestCancellation is implemented in the GP TEE Client API [1]."  # the model's own wording
    own_row = check_claim(claim, passage.text, given=given, context=question)
    assert not own_row.supported and own_row.polarity_conflict and "TEEC_RequestCancellation" in own_row.evidence
    right = check_claim(
        "No, TEEC_RequestCancellation is not implemented [1].", passage.text, given=given, context=question
    )
    assert right.supported, right.reason
    # the premise still needs no repeating where the evidence names no other function
    first = "OpenChain 仕様の適合認証の有効期間は認証取得時から18 か月であり、その期間を過ぎると認証は失効する。"
    asked = "OpenChain仕様2.0の適合認証は、取得してからどのくらいの期間有効ですか？"
    kept = check_claim(
        "仕様2.0の適合認証は18か月有効です[1]。", first, given=premises(asked, [first, "2.0"]), context=asked
    )
    assert kept.supported, kept.reason


@needs_realdocs
def test_what_an_earlier_version_allowed_does_not_verify_a_claim_about_the_present() -> None:
    """The pTeX manual: 以前のpTeX allowed a kanji's internal code in \\catcode; the current one does not."""
    passage = chunk_with("ja_ptex_manual.pdf", "以前のpTEX では", "内部コード").text
    question = "pTeXでは、\\catcode の対象として和文文字の内部コードを指定できますか？"
    given = premises(question, [passage, "\\catcode"])
    now = check_claim("はい、pTeXでは\\catcode の対象として和文文字の内部コードを指定できます[1]。", passage,
                      given=given, context=question)  # fmt: skip
    assert not now.supported and "former state" in now.reason
    then = check_claim("以前のpTeXでは、命令の文字コード部分に和文文字の内部コードを指定できました。", passage)
    assert then.supported, then.reason


CONVENTIONAL_TEX = "従来のTEX では,字送り方向が水平右向き(→)に固定されていた."


@pytest.mark.parametrize(
    ("claim", "evidence", "supported"),
    [
        ("The exporter writes CSV files.", "Previously, the exporter wrote CSV files.", False),
        ("The exporter used to write CSV files.", "Previously, the exporter wrote CSV files.", True),
        ("Reports filed before 2020 are archived.", "Reports filed before 2020 are archived.", True),
        ("2020年以前の報告書は保管されます。", "2020年以前の報告書は保管されます。", True),
        # "従来のTEX では" speaks of the TeX pTeX extends, not of pTeX's own directions
        ("字送り方向は水平右向き(→)です。", CONVENTIONAL_TEX, False),
        ("従来のTeXでは字送り方向は水平右向き(→)でした。", CONVENTIONAL_TEX, True),
    ],
)
def test_a_claim_keeps_the_time_scope_of_its_sentence(claim: str, evidence: str, supported: bool) -> None:
    assert check_claim(claim, evidence).supported == supported


@needs_realdocs
def test_an_invented_amount_is_caught_and_the_real_one_passes_in_other_notations() -> None:
    """The bill gives FEMA Federal Assistance $390,000,000, not $10,000,000."""
    passage = chunk_with("en_us_bill_hr815_2024.pdf", "$390,000,000", "Federal Assistance").text
    invented = check_claim(
        "The bill provides $10,000,000 for Federal Emergency Management Agency Federal Assistance.", passage
    )
    assert not invented.supported
    assert [f.text for f in invented.missing] == ["$10,000,000"]
    for written in (
        "$390,000,000",
        "$390 million",
        "390 million dollars",
        "3億9000万ドル",
        "three hundred ninety million dollars",
    ):
        claim = f"The bill provides {written} for Federal Emergency Management Agency Federal Assistance."
        assert check_claim(claim, passage).supported, written
    # a number in words is read whole: "three hundred" is not 3, "ninety million" is not 90
    for written in ("three hundred million dollars", "ninety million dollars", "thirty-nine million dollars"):
        claim = f"The bill provides {written} for Federal Emergency Management Agency Federal Assistance."
        assert not check_claim(claim, passage).supported, written


@needs_realdocs
def test_a_name_is_found_only_as_the_name_not_as_its_words_apart() -> None:
    """The bill's notice on Russian sovereign assets is the President's ("…the President shall…"); the passage also
    says "Secretary of the Treasury" and "state" apart. Its words found anywhere, "The Secretary of State" passed."""
    chunk = chunk_with("en_us_bill_hr815_2024.pdf", "(1) NOTICE REQUIRED.—Not later than 90 days after the date")
    assert "Secretary of the Treasury" in chunk.text and "Secretary of State" not in chunk.text
    check = check_claim(
        "The Secretary of State asks for notice of Russian sovereign assets within 90 days.", chunk.text
    )
    assert not check.supported and [f.text for f in check.missing] == ["The Secretary of State"]


@needs_realdocs
def test_a_deadline_written_not_later_than_denies_nothing() -> None:
    """ "Not later than 90 days after the date of the enactment of this division, the President shall …" counted as a
    denial, so the right claim about it was shown as the passage's opposite; a claim that denies the duty is."""
    chunk = chunk_with("en_us_bill_hr815_2024.pdf", "(1) NOTICE REQUIRED.—Not later than 90 days after the date")
    assets = "notice of Russian sovereign assets within 90 days after the date of the enactment of this division."
    right = check_claim(f"The President requires {assets}", chunk.text)
    assert right.supported, right.reason
    denied = check_claim(f"The President is not required to ask for {assets}", chunk.text)
    assert not denied.supported and denied.polarity_conflict
    assert not is_negated("for renewable periods not to exceed 180 days") and is_negated("The President shall not act.")


@needs_realdocs
def test_an_entity_the_passage_never_names_is_caught() -> None:
    """ "$38 million for NASA": the bill's FEMA paragraph names no NASA (and no $38 million)."""
    passage = chunk_with("en_us_bill_hr815_2024.pdf", "$390,000,000", "Federal Assistance").text
    claim = check_claim("The bill appropriates $390,000,000 for NASA Federal Assistance.", passage)
    assert not claim.supported and [f.text for f in claim.missing] == ["NASA"]


@needs_realdocs
def test_a_count_of_cases_is_not_vouched_for_by_an_ordinal_or_another_counter() -> None:
    """The MHLW material never counts its cases; "第1回研究会" (the first meeting) must not vouch for "1件"."""
    passage = chunk_with("ja_mhlw_worker_status_caselaw_method.pdf", "第1回研究会").text
    assert not check_claim("労働者性が肯定された裁判例は1件です。", passage).supported
    assert not check_claim("研究会は1回開かれました。", passage).supported
    assert check_claim("資料は第1回研究会のものです。", passage).supported
    assert [f.value for f in facts_of("3名")] == [f.value for f in facts_of("3人")] == ["3 person"]
    assert [f.value for f in facts_of("3社")] == ["3 company"]


def test_a_count_a_chart_gives_with_its_share_is_a_count_not_a_list_label() -> None:
    """The 2023 OpenChain survey's chart of listed firms, as OCR reads its page 5, gives "17 (45.9%)" at the start of a
    line: read as the number of a list item ("1 (a) …"), the 17 firms were in no claim's evidence."""
    chart = "あなたの組織(会社) は上場していますか\n\n17 (45.9%)\n\n54.1%\n\nはい\n45.9%"
    assert check_claim("上場している組織は17社(45.9%)です。", chart).supported
    assert not check_claim("上場している組織は18社(45.9%)です。", chart).supported
    assert not check_claim("上場している組織は17日(45.9%)です。", chart).supported  # a count, not a length of time
    assert [f.value for f in facts_of("37 (100.0%)")] == ["37 counted", "100 %"]
    assert not facts_of("1 (a) the first rule")


@needs_realdocs
def test_a_letterhead_address_says_where_the_company_is() -> None:
    """The LinnSequencer brochure's back page reads "Linn Electronics, Inc.\n18720 Oxnard Street, Tarzana, CA 91356".
    Asked where the company is, the right address was refused twice over: a number opening a line was read as a list
    item's ("1 Introduction"), so 18720 was in no evidence, and a line that only names the company was taken to say
    nothing of it, not even where it is."""
    passage = chunk_with("en_scan_linn_sequencer_brochure.pdf", "18720 Oxnard Street").text
    assert check_claim("Linn Electronics is located at 18720 Oxnard Street, Tarzana, CA 91356.", passage).supported
    assert not check_claim("Linn Electronics is located at 18270 Oxnard Street, Tarzana, CA 91356.", passage).supported
    assert not check_claim("Linn Electronics was founded at 18720 Oxnard Street, Tarzana, CA 91356.", passage).supported
    assert [f.kind for f in facts_of("12 Options")] == ["name"]  # a short number opening a line still numbers an item


@needs_realdocs
def test_a_wrong_count_is_caught_in_japanese() -> None:
    """The line-composition rules define twelve character classes (cl-i to cl-xii), not 2."""
    passage = chunk_with("ja_w3c_jlreq_line_composition.html", "12 個とする").text
    assert not check_claim("新しい文字クラスはcl-iからの2つです。", passage).supported
    assert check_claim("新しい文字クラスは12個とする。", passage).supported
    assert check_claim("新しい文字クラスは十二個とする。", passage).supported


@needs_realdocs
def test_a_wrong_version_is_caught() -> None:
    """The spec commentary refers to the official Japanese translation of version 1.2, not 1.3.1."""
    passage = chunk_with("ja_openchain_spec_kaisetsu.pdf", "バージョン1.2").text
    assert not check_claim("日本語訳はバージョン1.3.1の公式日本語訳を参考にしている。", passage).supported
    assert check_claim("日本語訳はバージョン1.2の公式日本語訳を参考にしている。", passage).supported


def test_a_number_must_sit_in_the_row_its_claim_is_about_and_header_rows_are_never_quoted() -> None:
    table = "| item | price_eur | qty |\n| --- | --- | --- |\n| sensor | 120 | 240 |\n| gateway | 900 | 3 |"
    row = check_claim("240 sensors are delivered.", table)
    assert row.supported and row.evidence == "| sensor | 120 | 240 |"
    assert not check_claim("The gateway costs 120 euros.", table).supported  # 120 is the sensor's price


def test_an_invented_duration_is_caught_and_units_must_agree() -> None:
    passage = "The session times out after 30 seconds of inactivity."
    assert not check_claim("The session times out after 10 seconds of inactivity.", passage).supported
    assert not check_claim("The session times out after 30 minutes of inactivity.", passage).supported
    assert check_claim("After 30 seconds without activity the session times out.", passage).supported


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("１２０万円", "number", "1200000 jpy"),
        ("1.2 billion", "number", "1200000000"),
        ("令和6年", "date", "2024 year"),
        ("午前3時", "time", "3:00"),
        ("午後5時", "time", "17:00"),
        ("5:00 PM", "time", "17:00"),  # the minutes say 17:00, the model "5:00 PM": one time
        ("5 p.m.", "time", "17:00"),
        ("12:30 a.m.", "time", "0:30"),
        ("3.0 Open Source Content Review", "name", "Open Source Content Review"),  # a section number counts nothing
        ("03:00", "time", "3:00"),
        ("v2.4.1", "version", "2.4.1"),
        ("TEEC_OpenSession", "identifier", "TEEC_OpenSession"),
        ("\\kanjiskip", "identifier", "\\kanjiskip"),
        ("45 %", "number", "45 %"),
        ("L3-01", "identifier", "L3-01"),  # a rule code, not a count of 1
        ("H.R. 815", "identifier", "H.R. 815"),
        ("H.R. 815は", "identifier", "H.R. 815"),  # a designation before Japanese text is still one
        ("Precision Machinery Company's", "name", "Precision Machinery Company"),
    ],
)
def test_facts_are_read_in_every_notation(text: str, kind: str, value: str) -> None:
    assert [(f.kind, f.value) for f in facts_of(text)] == [(kind, value)]


@pytest.mark.parametrize(
    ("sentence", "negated"),
    [
        ("配布にはなりません。", True),
        ("ソースコードを開示しなければなりません。", False),  # an obligation, not a denial
        ("いいえ、配布にはなりません。", True),  # the answer particle is not a second negation
        ("セール品は返品の対象外です。", True),
        ("You cannot redistribute it.", True),
        ("No, it is not required.", True),
        ("It is not only fast but small.", False),
        # a denial before the topic は describes the topic; what is said of it comes after
        ("(参考)商用利用を禁止しているソフトウェアはOSIのOSSの定義に合致していません。", True),
        ("ソースコードを開示しないことはライセンス違反になります。", False),
        ("ソースコードを開示しなくてはなりません。", False),  # the は of an obligation is no topic
        ("仕様どおり動作するはずです。", False),  # はず expects; its ず denies nothing
        ("仕様どおり動作するはずがない。", True),
        # a concession grants its condition; the predicate after it is what the sentence says
        ("社内であれば、商用利用禁止でも利用できます。", False),
        ("商用利用が禁止されていても、社内では利用できません。", True),
        ("英語で読まなくてもよい。", True),  # not needed: なくても stays with what follows
        # a FAQ's answer line under its question
        ("いいえ", True),
        ("はい", False),
        ("No.", True),
    ],
)
def test_polarity(sentence: str, negated: bool) -> None:
    assert is_negated(sentence) is negated


def passage(n: int, text: str, source: str) -> Passage:
    return Passage(n, Chunk(chunk_id=f"c{n}", text=text, source=source, page=1), text)


def test_a_sentence_citing_the_wrong_passage_moves_to_the_one_that_supports_it() -> None:
    """ "How many sensors will Kestrel Systems deliver?" cited a CSV header instead of the note that says 240."""
    csv = passage(1, "| item | price_eur |\n| --- | --- |\n| sensor | 120 |", "prices.csv")
    note = passage(
        2, "Kestrel Systems will deliver 240 sensors by the end of June. Installation follows in July.", "note.md"
    )
    checked = check_answer("Kestrel Systems will deliver 240 sensors [1].", "How many sensors?", [csv, note])
    assert checked.text == "Kestrel Systems will deliver 240 sensors [2]."
    assert [c.status for c in checked.claims] == ["reattributed"]
    assert [(c.n, c.quote) for c in checked.citations] == [
        (2, "Kestrel Systems will deliver 240 sensors by the end of June.")
    ]


@needs_realdocs
def test_an_answer_whose_main_claim_flips_the_documents_polarity_is_replaced_by_the_evidence() -> None:
    from rag.answers.draft import answer_question
    from rag.records import Hit
    from tests.scripted_llm import ScriptedLLM

    chunk = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "小売店の場所を借りる", "配布にはなりません")
    reply = "小売店の場所を借りて機器を設置し使用する場合、OSSの配布したことになります[1]。"
    question = "店舗の一角を借りてOSS入りの機器を置くと配布になりますか？"
    answer = answer_question(ScriptedLLM([reply]), question, [Hit(chunk, 1.0)], Settings())
    assert answer.model_answer == reply
    assert "配布したことになります" not in answer.answer
    assert "配布にはなりません" in answer.answer and answer.citations[0].quote in chunk.text
    assert "the opposite" in answer.claims[0].reason
    assert answer.answer.startswith("いいえ。")  # the passage answers the yes/no question the model got wrong


@needs_realdocs
@pytest.mark.parametrize(
    ("reply", "verified"),
    [
        ("はい[1]。", False),
        ("いいえ[1]。", True),
        ("はい、提供しなければなりません[1]。", False),
        ("いいえ、必要ありません[1]。", True),
    ],
)
def test_a_bare_yes_or_no_is_checked_as_the_question_it_answers(reply: str, verified: bool) -> None:
    """The FAQ says giving modified source back to the community is optional, not a duty (任意であり、義務とはされて
    いません). A bare "はい" shares no word with any passage; read with the question it shared them all, and both
    "はい" and "いいえ" were shown as verified. Now a reply stands for the question's proposition, with its stance."""
    from rag.answers.draft import answer_question
    from rag.records import Hit
    from tests.scripted_llm import ScriptedLLM

    chunk = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "コミュニティへの提供は任意であり")
    question = "OSSを改変したら、改変したソースコードを開発コミュニティに提供しなければなりませんか？"
    answer = answer_question(ScriptedLLM([reply]), question, [Hit(chunk, 1.0)], Settings())
    assert [c.status for c in answer.claims] == (["verified"] if verified else ["unsupported"])
    if not verified:  # replaced by the passage that says the opposite, with the right reply first
        assert answer.answer.startswith("いいえ。") and "義務とはされていません" in answer.answer
        assert answer.citations[0].quote in chunk.text


@needs_realdocs
def test_a_bare_yes_no_passage_decides_is_not_the_point_of_the_answer_after_it() -> None:
    """A "No." that no passage confirms or denies (the question's words are not in the cited row) is marked
    unsupported ("Internal Core" is in no row); the sentence after it, which the row supports, is the answer's
    point. A "Yes." the row denies is the point, and replaces the answer with that row."""
    row = "| TEE_GenerateRandom | No |"
    chunk = chunk_with("en_mtower_functionality_description.md", row)
    passages = [Passage(1, chunk, chunk.text)]
    question = "Is random number generation available in mTower through the Internal Core API?"
    checked = check_answer("No. The mTower does not implement TEE_GenerateRandom [1].", question, passages)
    assert [c.status for c in checked.claims] == ["unsupported", "verified"] and not checked.main_claim_failed
    asked = "Does mTower implement TEE_GenerateRandom?"
    denied = check_answer("Yes [1]. The mTower does not implement TEE_GenerateRandom [1].", asked, passages)
    assert denied.main_claim_failed and denied.contradiction is not None and denied.contradiction.quote.startswith(row)
    assert [c.status for c in check_answer("No [1].", asked, passages).claims] == ["verified"]


@needs_realdocs
def test_an_answer_replaced_by_evidence_shows_the_answering_sentence_even_when_not_its_passages_best() -> None:
    """The FAQ's answer ("…社内で利用することはできません") follows the asker's situation in the same passage. The
    evidence showed each of the first three passages' single best sentence: the situation, not the answer."""
    from rag.answers.draft import answer_question
    from rag.records import Hit
    from tests.scripted_llm import ScriptedLLM

    faq = "ja_oss_license_misunderstandings_faq.pdf"
    answering = chunk_with(faq, "したがって、商用利用が禁止されているソフトウェアを社内で利用することはできません")
    others = [c for c in chunks_of(faq) if "商用" in c.text and c.chunk_id != answering.chunk_id][:2]
    hits = [Hit(chunk, 1.0 - n / 10) for n, chunk in enumerate([answering, *others])]
    question = "ライセンスで商用利用が禁止されているソフトでも、会社の中だけで使うなら問題ありませんか？"
    answer = answer_question(ScriptedLLM(["会社の中だけで使うなら問題ありません[1]。"]), question, hits, Settings())
    assert answer.model_answer and answer.message.startswith("LLM の回答は資料で裏付けられなかった")
    assert "したがって、商用利用が禁止されているソフトウェアを社内で利用することはできません。 [1]" in answer.answer
    assert all(c.quote in answer.answer and c.quote in (answering.text + others[0].text + others[1].text)
               for c in answer.citations)  # fmt: skip


@needs_realdocs
@pytest.mark.parametrize(
    ("question", "reply", "row", "verdict"),
    [
        (
            "mTowerは乱数を生成するTEE_GenerateRandomを実装していますか？",
            "はい、mTowerはTEE_GenerateRandomを実装しています[1]。",
            "| TEE_GenerateRandom | No |",
            "いいえ。",
        ),
        (
            "Does mTower implement TEE_GetObjectBufferAttribute?",
            "No, mTower does not implement TEE_GetObjectBufferAttribute [1].",
            "| TEE_GetObjectBufferAttribute | Yes |",
            "Yes. ",
        ),
        (  # asked in the negative, a bare yes or no would be ambiguous: the line says only that the passage disagrees
            "mTowerはTEE_GenerateRandomを実装していないのですか？",
            "はい、mTowerはTEE_GenerateRandomを実装しています[1]。",
            "| TEE_GenerateRandom | No |",
            "下の資料は",
        ),
    ],
)
def test_a_yes_no_answer_its_passage_contradicts_is_answered_the_other_way_with_that_passage(
    question: str, reply: str, row: str, verdict: str
) -> None:
    """The model said mTower implements TEE_GenerateRandom; its table says "No". The evidence replaced the answer
    but never said "no": the reader had to find the row. Now the contradicting row leads, after the verdict."""
    from rag.answers.draft import answer_question
    from rag.records import Hit
    from tests.scripted_llm import ScriptedLLM

    chunk = chunk_with("en_mtower_functionality_description.md", row)
    answer = answer_question(ScriptedLLM([reply]), question, [Hit(chunk, 1.0)], Settings())
    assert answer.model_answer == reply
    first_line, quoted = answer.answer.splitlines()[:2]
    assert first_line.startswith(verdict)
    assert quoted.startswith(row) and answer.citations[0].quote.startswith(row)
    assert answer.citations[0].quote in chunk.text


@needs_realdocs
def test_a_denial_of_another_verb_is_no_answer_to_the_claim() -> None:
    """Asked whether H.R. 815 requires divestiture of apps controlled by a foreign adversary, the model said "Yes"
    citing the bill's exemptions: "(A) does not apply to a foreign adversary controlled application with respect to
    which a qualified divestiture is executed before …". The answer was replaced by that sentence led by "No. The
    passage below says the opposite": its "not" denies that the prohibition applies, not that divestiture is required.
    The sentence does not verify the "Yes" either; it is shown without a verdict. Its denial still answers a claim
    about what it denies."""
    from rag.answers.draft import answer_question

    exemption = "(A) does not apply to a foreign adversary controlled application with respect to which a qualified"
    chunk = chunk_with("en_us_bill_hr815_2024.pdf", exemption)
    question = "Does H.R. 815 require divestiture of applications controlled by a foreign adversary?"
    reply = "Yes, H.R. 815 requires divestiture of applications controlled by a foreign adversary. [1]"
    answer = answer_question(ScriptedLLM([reply]), question, [Hit(chunk, 1.0)], Settings())
    assert list(answer.unsupported_sentences) == [reply.removesuffix(" [1]")]
    assert not answer.answer.startswith(("No", "Yes")), answer.answer.splitlines()[0]
    assert exemption in answer.answer
    applies = check_claim(
        "Subsection (a) applies to a foreign adversary controlled application with respect to which a qualified "
        "divestiture is executed before the date on which a prohibition would begin to apply to such application.",
        chunk.text,
    )
    assert not applies.supported and applies.contradicts, applies.reason


@needs_realdocs
def test_a_number_the_sentence_gives_for_another_clause_does_not_verify_the_claim() -> None:
    """The bill's sanctions waiver runs "for renewable periods not to exceed 180 days only if, not later than 15 days
    after the date on which the waiver is to take effect, …". Asked by how long the President can push back the date
    the app ban takes effect, the model answered 180 days citing it, and was shown as verified: 180 days is in the
    sentence, but the words about a date taking effect are in the clause of 15 days."""
    chunk = chunk_with(
        "en_us_bill_hr815_2024.pdf", "renewable periods not to exceed 180 days only if, not later than 15"
    )
    question = "Can the President push back the date the app ban takes effect, and if so by how long at most?"
    pushed = check_claim(
        "The President can push back the date the app ban takes effect by up to 180 days.", chunk.text, topic=question
    )
    assert not pushed.supported and "180 days for something else" in pushed.reason and "15 days" in pushed.reason
    waived = check_claim("The President may waive the sanctions for renewable periods of up to 180 days.", chunk.text)
    assert waived.supported, waived.reason


@needs_realdocs
def test_an_amount_given_for_another_purpose_does_not_answer_what_the_question_asks_it_for() -> None:
    """Asked how much H.R. 815 appropriates for wildfire recovery (nothing: the bill does not speak of wildfires),
    the model answered "$10,000,000 for the Federal Emergency Management Agency—Operations and Support" citing the
    line that says so, and every sentence was shown as verified."""
    chunk = chunk_with("en_us_bill_hr815_2024.pdf", "Federal Emergency Management Agency—Operations and Support’’, $10")
    claim = "The bill appropriates $10,000,000 for the Federal Emergency Management Agency—Operations and Support."
    wildfire = check_claim(claim, chunk.text, topic="How much does H.R. 815 appropriate for wildfire recovery?")
    assert not wildfire.supported and wildfire.reason == "the cited text does not give it for wildfire recovery"
    asked = "How much does H.R. 815 appropriate for the administration of nonprofit security grants?"
    assert check_claim(claim, chunk.text, topic=asked).supported


@needs_realdocs
def test_an_identifier_the_passage_names_beside_the_one_it_describes_does_not_verify_the_claim() -> None:
    """The pTeX manual says "和文文字と欧文文字の間に,標準で\\xkanjiskip で指定されただけのグルーを挿入する … すでに
    述べたように,\\kanjiskip の一部と\\xkanjiskip はノードの形で挿入される." Asked which parameter sets the glue between
    Japanese and Latin letters, the model answered \\kanjiskip citing it and was shown as verified: the name is in the
    passage, but only beside \\xkanjiskip, and the sentence about that glue names \\xkanjiskip."""
    chunk = chunk_with("ja_ptex_manual.pdf", "和文文字と欧文文字の間に,標準で\\xkanjiskip", "\\kanjiskip の一部と")
    question = "pTeXで、和文文字と欧文文字の間に自動で入るグルーの量を指定するパラメータは何ですか？"
    asked = "和文文字と欧文文字の間に自動で入るグルーの量を指定するパラメータは"
    wrong = check_claim(f"{asked} \\kanjiskip です。", chunk.text, topic=question)
    assert not wrong.supported, wrong.reason
    # the two sentences side by side (in the chunk, two sentences stand between them since "…を設定する.段落途中で…"
    # ends a sentence at its period): the claimed name is only beside the one the sentence about that glue gives
    glue, nodes = (s for s in split_sentences(chunk.text) if s.startswith(("和文文字と欧文文字の間に", "すでに述べた")))
    side_by_side = check_claim(f"{asked} \\kanjiskip です。", f"{glue}{nodes}", topic=question)
    assert not side_by_side.supported and "\\kanjiskip for something else" in side_by_side.reason, side_by_side.reason
    right = check_claim(f"{asked} \\xkanjiskip です。", chunk.text, topic=question)
    assert right.supported, right.reason


@needs_realdocs
def test_a_denial_joined_to_the_next_clause_is_what_the_row_asserts() -> None:
    """The Digital Agency rule L1-12 reads "【Excel】セルの結合をしていないか | … セルの結合を行わず、同一内容を各セル
    に入力すること。". Asked whether cells may be merged, "はい" was shown as verified: its polarity was read from the
    checklist's question cell and the sentence's last clause, both without the denial the claim restates."""
    row = chunk_with("ja_digital_agency_machine_readability_rules.csv", "セルの結合を行わず").text
    question = "デジタル庁の機械判読ルールでは、Excelでセルの結合はしてもよいですか？"
    for wrong in (check_reply(Stance.AFFIRMS, question, row), check_claim("セルの結合をしてもよいです。", row)):
        assert not wrong.supported and wrong.contradicts, wrong.reason
    for right in (check_reply(Stance.DENIES, question, row), check_claim("セルの結合はしてはいけません。", row)):
        assert right.supported, right.reason


@needs_realdocs
def test_a_sentence_joining_facts_from_two_passages_cites_each_part_s_passage() -> None:
    """Two deadlines of the bill's app division stand in two sections: the prohibition applies 270 days after
    enactment (subsection (a)(2)) and a challenge to the division must be filed within 165 days (section 3).
    A sentence stating both was checked against each passage whole, found one number missing from each, and was
    shown as unsupported."""
    applies = chunk_with("en_us_bill_hr815_2024.pdf", "beginning on the date that is 270 days after the date of")
    challenge = chunk_with("en_us_bill_hr815_2024.pdf", "challenge to this division, not later than 165 days")
    passages = [Passage(1, applies, applies.text), Passage(2, challenge, challenge.text)]
    question = (
        "How long after enactment does this subsection apply, and by when must a challenge to the division be filed?"
    )
    answer = (
        "This subsection applies beginning on the date that is 270 days after the date of the enactment of this "
        "division [1], while a challenge to this division must be filed not later than 165 days after the date of "
        "the enactment of this division [2]."
    )
    checked = check_answer(answer, question, passages)
    assert [c.status for c in checked.claims] == ["verified"] and not checked.main_claim_failed
    assert checked.text.count("[1]") == 1 and checked.text.count("[2]") == 1
    assert "270 days" in checked.text.split("[1]")[0] and "165 days" in checked.text.split("[1]")[1]
    assert {c.n for c in checked.citations} == {1, 2}
    one_passage = check_answer(answer.replace("[2]", "[1]"), question, passages[:1])
    assert one_passage.main_claim_failed  # the 165 days stand nowhere in it


@needs_realdocs
def test_a_premise_naming_one_office_is_not_proved_by_a_passage_about_another() -> None:
    """Asked when the Secretary of State must first report on transferred Russian assets, the model answered 90 days
    and cited the section where, within 90 days, the President must have financial institutions notify the
    Secretary of the Treasury. "Secretary of State" is the asker's premise, so the claim did not need it in the
    passage, and it was shown as verified there; section 106, where the Secretary of State reports, went uncited."""
    president = chunk_with("en_us_bill_hr815_2024.pdf", "the President shall, by means of such instructions")
    report = chunk_with("en_us_bill_hr815_2024.pdf", "SEC. 106. REPORT ON USE OF TRANSFERRED RUSSIAN")
    passages = [Passage(1, president, president.text), Passage(2, report, report.text)]
    question = "How many days after enactment must the Secretary of State first report on transferred Russian assets?"
    checked = check_answer(
        "The Secretary of State must first report 90 days after the enactment [1].", question, passages
    )
    assert [(c.status, c.cited) for c in checked.claims] == [("reattributed", (2,))]
    assert [c.n for c in checked.citations] == [2] and "Secretary of State" in checked.citations[0].quote


@needs_realdocs
def test_a_claim_about_a_term_no_passage_mentions_is_not_verified() -> None:
    """The pTeX manual has no ruby primitive. Asked for one, the model answered \\accent and cited "\\accent
    プリミティブにおいても,アクセントの部分に和文文字の内部コードを指定できる…": 文字 and プリミティブ were there,
    ルビ (ruby) nowhere, and the answer was shown as verified."""
    accent = chunk_with("ja_ptex_manual.pdf", "\\accent プリミティブにおいても")
    passages = [Passage(1, accent, accent.text)]
    question = "pTeXで文字にルビ（振り仮名）を付けるためのプリミティブは何ですか？"
    wrong = check_answer(
        "pTeXで文字にルビ（振り仮名）を付けるためのプリミティブは「\\accent」です[1]。", question, passages
    )
    assert [c.status for c in wrong.claims] == ["unsupported"] and "ルビ" in wrong.claims[0].reason
    asked = "pTeXの\\accentプリミティブでは、アクセントの部分に和文文字を指定できますか？"
    right = check_answer(
        "\\accent プリミティブでは、アクセントの部分に和文文字の内部コードを指定できます[1]。", asked, passages
    )
    assert [c.status for c in right.claims] == ["verified"]


@needs_realdocs
def test_a_reply_that_copies_a_checklist_question_is_contradicted_by_nothing() -> None:
    """Asked whether one cell may hold several values, the model replied with rule L1-03's name, "データが分断されて
    いないか" (a checklist's question). Read as a denial, it was "contradicted" by the rule's body, and the answer led
    with "はい。下の資料は LLM の回答と逆のことを述べています。": a yes that nothing in the rules says."""
    rules = chunk_with("ja_digital_agency_machine_readability_rules.csv", "データが分断されていないか")
    passages = [Passage(1, rules, rules.text)]
    question = "デジタル庁の機械判読ルールでは、1つのセルに複数のデータを入れてもよいですか？"
    checked = check_answer("データが分断されていないか [1]", question, passages)
    assert checked.main_claim_failed and checked.contradiction is None


@needs_realdocs
def test_a_list_item_is_read_with_the_sentence_that_introduces_its_list() -> None:
    """The bill's rule of construction reads "Nothing in this division may be construed— (1) to authorize the Attorney
    General to pursue enforcement, under this section, other than enforcement of subsection (a) or (b);". The item
    alone, quoted verbatim, verified the claim that the division authorizes exactly that."""
    chunk = chunk_with("en_us_bill_hr815_2024.pdf", "Nothing in this division may be construed—")
    enforcement = "to pursue enforcement under this section other than enforcement of subsection (a) or (b)."
    wrong = check_claim(f"The division authorizes the Attorney General {enforcement}", chunk.text)
    assert not wrong.supported and wrong.polarity_conflict
    right = check_claim(
        f"The division may not be construed to authorize the Attorney General {enforcement}", chunk.text
    )
    assert right.supported, right.reason


@needs_realdocs
def test_a_list_item_whose_list_began_in_the_chunk_before_is_read_with_its_lead_in() -> None:
    """The chunk of the bill that says "(2) to authorize the Attorney General to pursue enforcement … against an
    individual user …" starts at that item; "Nothing in this division may be construed—" ended the chunk before. The
    model's "yes, the Attorney General can" was replaced by that item alone, which seemed to agree with it."""
    from rag.answers.draft import answer_question
    from rag.records import Hit
    from tests.scripted_llm import ScriptedLLM

    chunk = chunk_with("en_us_bill_hr815_2024.pdf", "(2) to authorize the Attorney General to pursue enforcement")
    assert chunk.text.startswith("(2)") and chunk.extra["list_lead_in"].endswith("in this division may be construed—")
    user = "an individual user of a foreign adversary controlled application"
    question = f"Can the Attorney General pursue enforcement against {user}?"
    reply = f"Yes, the Attorney General may pursue enforcement against {user} [1]."
    answer = answer_question(ScriptedLLM([reply]), question, [Hit(chunk, 1.0)], Settings())
    verdict, shown = answer.answer.splitlines()[:2]
    assert verdict.startswith("No.") and "the opposite" in answer.claims[0].reason
    assert shown.startswith("(f) RULE OF CONSTRUCTION.—Nothing in this division may be construed— (2) to authorize")
    assert answer.citations[0].quote.startswith("(2) to authorize") and answer.citations[0].quote in chunk.text


@needs_realdocs
def test_a_fact_the_question_states_and_the_passages_hold_is_a_premise_not_an_invention() -> None:
    """Asked about "仕様2.0", the model restates 2.0; the duration passage never repeats it, another passage does."""
    duration = chunk_with("ja_openchain_spec_kaisetsu.pdf", "有効期間は認証取得時から18 か月").text
    version = chunk_with("ja_openchain_spec_kaisetsu.pdf", "バージョン2.0").text
    question = "OpenChain仕様2.0の適合認証は、取得してからどのくらいの期間有効ですか？"
    claim = "OpenChain仕様2.0の適合認証は、取得してから18か月間有効です。"
    assert not check_claim(claim, duration).supported  # on its own, "2.0" is not in the cited sentence
    given = premises(question, [duration, version])
    assert check_claim(claim, duration, given=given).supported
    # a number the question states but no passage holds stays the answer's claim: confirming it is caught
    wrong = premises("OpenChain仕様の適合認証は24か月有効ですか？", [duration, version])
    assert not check_claim("はい、適合認証は24か月有効です。", duration, given=wrong).supported


@needs_realdocs
def test_an_answer_in_japanese_about_an_english_page_is_checked_by_its_facts_and_polarity() -> None:
    """A Japanese answer shares no words with the English bill: its amount and its polarity decide."""
    passage = chunk_with("en_us_bill_hr815_2024.pdf", "$390,000,000").text
    assert check_claim("非営利団体のセキュリティ助成には3億9000万ドルが充てられています。", passage).supported
    assert not check_claim("非営利団体のセキュリティ助成には1000万ドルが充てられています。", passage).supported
    denied = check_claim("非営利団体のセキュリティ助成には3億9000万ドルは充てられていません。", passage)
    assert "opposite" in denied.reason
    # without a quantity nothing can be checked across languages: not verified
    assert not check_claim("非営利団体も助成を受けられます。", passage).supported


@needs_realdocs
def test_a_claim_is_not_verified_by_a_sentence_about_something_other_than_what_was_asked() -> None:
    """Asked which command changes the page margins (the guide names none), the model tied \\MakeUppercase to the
    margins and cited the case-changing section: enough shared words, but nothing there is about margins."""
    section = chunk_with("en_latex_usrguide.pdf", "Case changing", "\\MakeUppercase").text
    question = "Which command does the LaTeX for authors guide recommend for changing the page margins?"
    claim = "The LaTeX for authors guide recommends using the \\MakeUppercase command to change the page margins."
    assert check_claim(claim, section).supported  # words and identifier alone let it through
    off_topic = check_claim(claim, section, topic=question)
    assert not off_topic.supported and "not about" in off_topic.reason and "margin" in off_topic.reason
    asked = "Which command does the guide provide for changing text to upper case?"
    right = check_claim("The guide provides \\MakeUppercase for changing text to upper case.", section, topic=asked)
    assert right.supported, right.reason


@needs_realdocs
def test_a_bill_named_by_its_number_in_the_question_is_a_premise_of_the_answer() -> None:
    """ "H.R. 815 sets aside $1,200,000,000 …" was cut after "H.R." into a claim of its own, and "815" (named only
    by the bill's title page and its file name) counted as an invented number: a correct answer was replaced."""
    name = "en_us_bill_hr815_2024.pdf"
    section = chunk_with(name, "$1,200,000,000", "Iron Beam")
    question = "How much money does H.R. 815 set aside for Israel to buy the Iron Beam defense system?"
    answer = "H.R. 815 sets aside $1,200,000,000 for Israel to buy the Iron Beam defense system [1]."
    checked = check_answer(answer, question, [Passage(1, section, section.text)])
    assert [c.status for c in checked.claims] == ["verified"]
    wrong = check_answer(answer.replace("1,200,000,000", "10,000,000"), question, [Passage(1, section, section.text)])
    assert wrong.main_claim_failed


@needs_realdocs
def test_a_japanese_answer_naming_a_command_of_an_english_manual_is_checked_by_that_command() -> None:
    section = chunk_with("en_latex_usrguide.pdf", "\\NewExpandableDocumentCommand", "\\multicolumn").text
    assert check_claim("ラッパーコマンドの定義には \\NewExpandableDocumentCommand を使います。", section).supported
    assert not check_claim("ラッパーコマンドの定義には \\NewDocumentCommandX を使います。", section).supported


@needs_realdocs
def test_a_sentence_that_affirms_one_case_and_denies_the_other_is_read_case_by_case() -> None:
    """JLReq: a word-separating space at a line end keeps a full-width space, at a line start it does not. The
    model said it does at a line start too, and the sentence's last clause (affirmative) let it pass."""
    passage = chunk_with("ja_w3c_jlreq_line_composition.html", "行頭に配置される場合は", "全角アキを確保しないで").text
    wrong = check_claim("分かち書きで、区切りに使う和字間隔が行頭に来た場合も、全角分のアキを確保します。", passage)
    assert not wrong.supported and wrong.polarity_conflict
    right = check_claim("分かち書きで、区切りの和字間隔が行頭に来た場合は、全角アキを確保しない。", passage)
    assert right.supported, right.reason
    line_end = check_claim("分かち書きで、区切りの和字間隔が行末に配置される場合は、全角アキを確保します。", passage)
    assert line_end.supported, line_end.reason


@needs_realdocs
@pytest.mark.parametrize(
    ("name", "needles", "question", "answer", "shown"),
    [
        # two sentences the claim joins run past the quote's length: it used to end at "LATEX provides the"
        (
            "en_latex_usrguide.pdf",
            ("Case changing", "To overcome this problem"),
            "What does LaTeX offer instead of the TeX primitives for changing case?",
            "The primitives have a range of limitations with the case of explicit characters and UTF-8 input, so "
            "LaTeX provides \\MakeUppercase [1].",
            ("\\MakeUppercase",),
        ),
        # the bill's appropriation is one sentence of about 800 characters: a quote cut at 240 from its start showed
        # the amounts but not the program's section the claim names
        (
            "en_us_bill_hr815_2024.pdf",
            ("$390,000,000, of which $160,000,000", "section 2009"),
            "How many nonprofit security grant dollars does H.R. 815 provide?",
            "H.R. 815 provides $160,000,000 for Nonprofit Security Grant Program under section 2009 of the Homeland "
            "Security Act of 2002 (6 U.S.C. 609a) [1].",
            ("$160,000,000", "section 2009", "2002", "609a"),
        ),
    ],
)
def test_a_long_evidence_is_quoted_where_it_holds_the_claim_s_facts(
    name: str, needles: tuple[str, ...], question: str, answer: str, shown: tuple[str, ...]
) -> None:
    section = chunk_with(name, *needles)
    checked = check_answer(answer, question, [Passage(1, section, section.text)])
    assert [c.status for c in checked.claims] == ["verified"]
    [citation] = checked.citations
    assert citation.quote in section.text
    assert all(fact in citation.quote for fact in shown)


@needs_realdocs
def test_a_yes_to_a_yes_no_question_needs_evidence_that_names_what_was_asked_about() -> None:
    """ "Yes, a command defined with \\NewExpandableDocumentCommand can take a verbatim (v-type) argument" was shown as
    verified, citing the general description of v-type arguments; the command is named only by another passage, so it
    counted as the asker's premise. The guide says the opposite where it does name it ("The 'verbatim' argument type
    v is not available")."""
    document = "en_latex_usrguide.pdf"
    on_topic = chunk_with(document, "v Reads an argument ‘verbatim’", "Thus a v-type argument is read between")
    naming = chunk_with(document, "\\DeclareExpandableDocumentCommand")
    question = "Can a command defined with \\NewExpandableDocumentCommand take a verbatim (v-type) argument?"
    claim = "Yes, a command defined with \\NewExpandableDocumentCommand can take a verbatim (v-type) argument [1]."
    checked = check_answer(claim, question, [Passage(1, on_topic, on_topic.text), Passage(2, naming, naming.text)])
    assert checked.main_claim_failed
    assert [c.status for c in checked.claims] == ["unsupported"]
    assert "\\NewExpandableDocumentCommand" in checked.claims[0].reason
    # asked what such a command does, the same command named by a passage stays the asker's premise
    asked_what = "What does a command defined with \\NewExpandableDocumentCommand do with its arguments?"
    assert [f.value for f in premises(asked_what, [naming.text])] == ["\\NewExpandableDocumentCommand"]


@pytest.mark.parametrize(
    ("question", "yes_no"),
    [
        ("mTowerは乱数を生成するTEE_GenerateRandomを実装していますか？", True),
        ("When I ship it as a binary, is it enough to include only the license I chose?", True),
        ("Can the President push back the date, and if so by how long at most?", True),
        ("According to the rules, who first used the term bunsetsu (文節)?", False),
        ("pTeXで和文文字と欧文文字の間のグルーを指定するパラメータは何ですか？", False),
        ("When did the meeting finish?", False),
        ("List the functions.", False),
        ("pTeXで\\kansujicharに指定できる値の範囲は？", False),  # ends on its topic: it asks what the range is
    ],
)
def test_a_question_asking_for_a_yes_or_a_no_is_told_from_one_asking_what(question: str, yes_no: bool) -> None:
    assert is_yes_no_question(question) is yes_no


@needs_realdocs
def test_a_bare_single_digit_does_not_tie_a_japanese_claim_to_an_english_heading() -> None:
    """Asked how many items the pamphlet's checklist has, the model said 3; "3.0 Open Source Content Review and
    Approval" (a section of another document) verified it, across languages, on the section number alone."""
    section = next(
        c
        for c in chunks_of("ja_openchain_spec_kaisetsu.pdf")
        if "3.0 Open Source Content Review and Approval" in c.text
    )
    claim = "OSSコンプライアンスのパンフレットにある、OSS管理体制のチェック項目は3つあります。"
    assert not check_claim(claim, "3.0 Open Source Content Review and Approval").supported
    assert not check_claim(claim, section.text).supported
    # a number of two digits or more still carries a claim across languages
    tracks = "Each of the 100 sequences contains 32 simultaneous, polyphonic tracks."
    assert check_claim("各シーケンスには、同時に32トラックがあります。", tracks).supported


RULES_CSV = "ja_digital_agency_machine_readability_rules.csv"


@needs_realdocs
def test_a_table_row_whose_cell_holds_several_sentences_is_read_as_one_row() -> None:
    """Cut at each 。 of its cells, the L3-01 row lost its ID to the first piece and was taken for a header: the
    right answer "L3-01" was replaced by the evidence, and the row was never quoted."""
    row = chunk_with(RULES_CSV, "| L3-01 |")
    question = "Which rule ID says the header row should be the very first line, with the data on the next line?"
    checked = check_answer("L3-01 [1]", question, [Passage(1, row, row.text)])
    assert [c.status for c in checked.claims] == ["verified"]
    assert checked.citations[0].quote.startswith("| L3-01 |") and checked.citations[0].quote in row.text


@needs_realdocs
def test_a_condition_inside_a_sentence_is_not_what_the_sentence_asserts() -> None:
    """ "改行が含まれていると、…読み取れなくなる" denies; its conditional clause does not make "改行を含めても大丈夫"
    agree with it (clauses are compared only for a sentence that states two cases)."""
    row = chunk_with(RULES_CSV, "| L1-14 |").text
    wrong = check_claim("CSVで、一つのレコードの値の中に改行を含めても大丈夫です。", row)
    assert not wrong.supported and wrong.polarity_conflict and wrong.contradicts


@needs_realdocs
def test_a_single_digit_with_a_unit_is_not_found_in_any_bare_one() -> None:
    """The rules set no size limit for CSV files; "1MB" was verified by "1シート(CSVは1ファイル)" in another rule."""
    row = chunk_with(RULES_CSV, "| L1-02 |").text
    assert not check_claim("CSVファイルのサイズの上限は、1MBです。", row).supported


def test_a_number_that_names_the_cited_file_is_a_premise() -> None:
    """ "dialogue 00004" is the file ``…_00004.json``; no line of the dialogue repeats its number."""
    question = "What satisfaction score did the two speakers give in the evaluations of dialogue 00004?"
    given = premises(question, ["AA: ですね!"], ["docs/ja_chat_realpersonachat_00004.json"])
    assert [f.text for f in given] == ["00004"]
    assert not premises(
        question.replace("00004", "00005"), ["AA: ですね!"], ["docs/ja_chat_realpersonachat_00004.json"]
    )


@needs_realdocs
def test_a_question_in_the_passage_never_contradicts_a_claim() -> None:
    """The FAQ quotes the asker's misconception as a question ("…当社はOSSを配布していないという事になりますか?") before
    answering that lending a device is distribution. The correct claim was "contradicted" by that question, and the
    answer led with a wrong "いいえ"."""
    passage = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "OSSを配布していないという事になりますか").text
    check = check_claim("OSSが入った機器を貸し出すだけの場合でも、OSSを配布したことになります。", passage)
    assert not check.contradicts


@needs_realdocs
def test_a_denial_after_a_line_that_ends_in_a_particle_is_part_of_the_sentence() -> None:
    """The pTeX manual wraps "…その代わりに\\kanjiskip や⏎\\xkanjiskip が挿入されることは禁止していない." after the
    particle や. Cut there, "\\kanjiskip や" read as a sentence of its own without its denial, and
    "\\inhibitglue を使うと、\\kanjiskip の挿入も禁止されます" was shown as verified."""
    chunk = chunk_with("ja_ptex_manual.pdf", "▶\\inhibitglue", "禁止していない")
    wrapped = "その代わりに\\kanjiskip や\n\n\\xkanjiskip が挿入されることは禁止していない."
    assert len(split_sentences(wrapped)) == 1  # as a block cut after や reads (the reading now joins this one)
    assert "その代わりに\\kanjiskip や\\xkanjiskip が挿入されることは禁止していない." in chunk.text
    wrong = check_claim("この命令は、\\kanjiskipの挿入も禁止する。", chunk.text)
    assert not wrong.supported and wrong.contradicts, wrong.reason
    right = check_claim("この命令は、\\kanjiskipが挿入されることは禁止していない。", chunk.text)
    assert right.supported, right.reason


@needs_realdocs
def test_a_period_typeset_for_a_japanese_full_stop_ends_the_sentence() -> None:
    """W3C's jlreq writes "." for 。: "…分割される(行末のワードスペースはアキを確保しない).“行頭行末そろえ
    (justification)”が採用され,…調整する." read as one sentence whose last clause affirms, so "はい、…行末のワード
    スペースはアキを確保します" was shown as verified. Asked "…確保しますか？", the answer is now "いいえ"."""
    chunk = chunk_with("ja_w3c_jlreq_line_composition.html", "行末のワードスペースはアキを確保しない")
    question = "ラテン文字を主にした組版では、行末のワードスペースはアキを確保しますか？"
    wrong = check_claim("はい、ラテン文字を主にした組版では、行末のワードスペースはアキを確保します。", chunk.text)
    assert not wrong.supported and wrong.contradicts
    draft = AnswerDraft(
        ScriptedLLM(["はい、ラテン文字を主にした組版では、行末のワードスペースはアキを確保します[1]。"]),
        question,
        [Hit(chunk, 1.0)],
        Settings(),
    )
    answer = draft.finish()
    assert answer.answer.startswith("いいえ。") and "行末のワードスペースはアキを確保しない" in answer.answer


@needs_realdocs
def test_a_right_no_is_not_turned_into_a_yes_by_another_sentence_naming_the_subject() -> None:
    """The LaTeX guide: "…in case of \\Declare... it is copied regardless. Note that there is no \\Provide...
    declaration, because that would be of limited value." The model's right "No, LaTeX does not provide a \\Provide...
    variant" was compared with "all LATEX logos generated with \\LaTeX will come out in blue" (it names LaTeX as the
    claim does), read as contradicted, and the answer led with "Yes.": a yes the guide denies."""
    chunk = chunk_with("en_latex_usrguide.pdf", "Note that there is no \\Provide... declaration")
    claim = "No, LaTeX does not provide a \\Provide... variant of the command-copying declaration."
    check = check_claim(claim, chunk.text)
    assert not check.polarity_conflict and check.supported, check.reason
    question = "Does LaTeX provide a \\Provide... variant of the command-copying declaration?"
    answer = AnswerDraft(ScriptedLLM([claim]), question, [Hit(chunk, 1.0)], Settings()).finish()
    assert answer.answer.startswith("No, LaTeX does not provide") and not answer.model_answer


def test_a_question_asked_with_a_word_that_means_no_is_asked_plainly() -> None:
    """A question asked with "禁止" ("…禁止されますか？") gets a plain いいえ; "Isn't it…?" and
    "…てはいけないのですか？" are put in the negative."""
    assert not asks_negatively("\\inhibitglueを使うと、\\kanjiskipの挿入も禁止されますか？")
    assert not asks_negatively("Is redistribution prohibited?")
    assert asks_negatively("社内だけで使うなら問題ありませんか？") is False  # 問題ない is no denial
    assert asks_negatively("Isn't the license text required?")
    assert asks_negatively("改行を含めてはいけないのですか？")


@needs_realdocs
def test_identifiers_written_against_japanese_text_are_checked() -> None:
    """ "ルールのL3-09では" and "TEE_BigIntSquareModとTEE_Panicを" hold no word boundary to Unicode (の, と, を are
    letters), so the codes went unseen: "L3-09" was read as the number 09 (and the right claim failed), and a Japanese
    claim naming TEE_Panic, which the cited table does not list, was verified."""
    rules = chunk_with("ja_digital_agency_machine_readability_rules.csv", "| L3-09 |").text
    right = check_claim("機械判読ルールのL3-09では、データを縦持ち形式にすることを求めています。", rules)
    assert right.supported, right.reason
    wrong = check_claim("機械判読ルールのL3-08では、データを縦持ち形式にすることを求めています。", rules)
    assert not wrong.supported and "L3-08" in wrong.reason
    table = chunk_with("en_mtower_functionality_description.md", "| TEE_BigIntMulMod |")
    given = premises("mTowerが実装していない関数は？", [table.text], [table.source])
    assert check_claim("mTowerはTEE_BigIntMulModを実装していません。", table.text, given=given).supported
    named = check_claim("mTowerはTEE_BigIntSquareModとTEE_Panicを実装していません。", table.text, given=given)
    assert not named.supported and named.reason == "not in the cited text: TEE_Panic"


@needs_realdocs
def test_a_name_the_evidence_pairs_with_its_sibling_respectively_does_not_verify_the_claim() -> None:
    """The pTeX manual lists the kinds of glue, then says "上記のうち,1 と2 についてはそれぞれ\\kanjiskip,
    \\xkanjiskip というパラメータを設けている." Asked which parameter sets the glue between Japanese and Latin letters
    (item 2), "…パラメータは \\kanjiskip です" holds every word the list's item has and was shown as verified."""
    chunk = chunk_with("ja_ptex_manual.pdf", "それぞれ\\kanjiskip, \\xkanjiskip というパラメータ")
    question = "pTeXで、和文文字と欧文文字の間に自動で入るグルーの量を指定するパラメータは何ですか？"
    given = premises(question, [chunk.text], [chunk.source])
    claim = "pTeXで、和文文字と欧文文字の間に自動で入るグルーの量を指定するパラメータは `\\kanjiskip` です。"
    assert not check_claim(claim, chunk.text, given=given, topic=question, source=chunk.source).supported
    sentence = next(s for s in split_sentences(chunk.text) if "それぞれ" in s).split("\n\n")[-1]
    paired = check_claim("2については\\kanjiskipを設けている。", sentence)  # every word in, the pairing not
    assert not paired.supported and "respectively" in paired.reason, paired.reason


def test_a_file_format_the_question_names_the_document_by_is_a_premise() -> None:
    """ "各社の教育体系を整理したExcelには…" asks about ``case_analysis.xlsx``: no sheet says "Excel"."""
    question = "各社の教育体系を整理したExcelには、教育完了率の目標が書かれていますか？"
    sheet = "| 教育要件 | 教育対象者への教育完了85%以上 |"
    given = premises(question, [sheet], ["docs/case_analysis.xlsx"])
    assert [f.value for f in given] == ["Excel"]
    assert not premises(question, [sheet], ["docs/case_analysis.pdf"])


@needs_realdocs
def test_a_reference_list_and_a_line_of_code_verify_no_claim(e5_embedder: Embedder) -> None:
    """Asked whether \\inhibitglue works in math mode, "はい" was checked against the pTeX manual's references ("[7]
    h-kitagawa, 「[ptex] \\inhibitglue の効力」": "ptex" names the manual, and モード matched コード by its bigram ード)
    and against a code line ")\\inhibitglue\\relax(", taken for an English page a Japanese claim may cite by its
    identifier alone. The manual says it does not: "…水平モードのときしか効力を発揮しない(数式モードでも効かない)"."""
    question = "pTeXの\\inhibitglueは数式モードでも効きますか？"
    claim = "はい、pTeXの\\inhibitglueは数式モードでも効きます。"
    source = "ja_ptex_manual.pdf"
    references = chunk_with(source, "[7] h-kitagawa")
    examples = chunk_with(source, ")\\inhibitglue\\relax(")  # the chunk of examples, as a passage of its code lines
    code = replace(examples, text=examples.text[examples.text.index(")\\vrule(") : examples.text.index("あ\\setbox0")])
    rule = chunk_with(source, "数式モードでも効かない")
    passages = [Passage(n, c, c.text) for n, c in enumerate((references, code, rule), start=1)]
    # the reference entry is English by its letters: only its meaning tells it from the rule that answers
    checked = check_answer(claim, question, passages, embedding_relevance(e5_embedder))
    assert checked.claims[0].status == "unsupported" and checked.contradiction is not None
    assert checked.contradiction.n == 3 and "数式モードでも効かない" in checked.contradiction.quote


@needs_realdocs
def test_what_a_rule_says_follows_from_a_condition_is_what_it_says_of_the_condition() -> None:
    """Rule L1-04: "表のデータ範囲の外側にメモ等の無関係な情報が残されていると、並べ替えといった手作業だけでなく、
    機械がデータ範囲を誤認識して自動処理も正しく実行できない場合があるため、データ本体と無関係な情報は完全に削除する
    こと。" Asked whether memos may be left outside the table, "データ範囲の外側にメモを残してもよいです" was shown as
    verified (the sentence ends by saying to delete, which affirms), and the right "いいえ、…残してはいけません" was
    read as contradicted, so the answer would have led with "はい". Leaving memos is the rule's condition, and what
    follows from it is that processing fails."""
    rule = chunk_with("ja_digital_agency_machine_readability_rules.csv", "| L1-04 |")
    passages = [Passage(1, rule, rule.text)]
    question = "機械判読ルールでは、データ範囲の外側にメモを残してもよいですか？"
    for wrong in ("データ範囲の外側にメモを残してもよいです[1]。", "はい[1]。"):
        checked = check_answer(wrong, question, passages)
        assert checked.main_claim_failed and checked.contradiction is not None, wrong
    for right in ("いいえ、データ範囲の外側にメモを残してはいけません[1]。", "いいえ[1]。"):
        assert check_answer(right, question, passages).claims[0].status == "verified", right
    said = check_answer("データ範囲の外側のメモ等の無関係な情報は完全に削除する必要があります[1]。", question, passages)
    assert said.claims[0].status == "verified", said.claims[0].reason


@needs_realdocs
def test_a_yes_needs_a_passage_that_says_what_the_question_asks_not_only_what_it_is_about() -> None:
    """Asked "OSSのライセンス違反状態にあるOSSを製品に使ってもよいですか？", a bare "はい" was verified by the FAQ's
    "この場合、もともとのOSSがライセンス違反状態です。": every word of the question but 使 is there, and the sentence
    after it says the product may not use it (…利用できません)."""
    answer = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "もともとのOSSがライセンス違反状態です")
    question = "OSSのライセンス違反状態にあるOSSを製品に使ってもよいですか？"
    wrong = check_reply(Stance.AFFIRMS, question, answer.text)
    assert not wrong.supported and "使" in wrong.reason, wrong.reason
    checked = check_answer("はい[1]", question, [Passage(1, answer, answer.text)])
    assert checked.main_claim_failed and checked.claims[0].status == "unsupported"
    # a fragment after the yes that says nothing of 使 does not stand in for it ("はい\n\n#ライセンス違反…")
    tagged = check_answer("はい\n\n#ライセンス違反状態[1]", question, [Passage(1, answer, answer.text)])
    assert tagged.main_claim_failed, tagged.claims


@needs_realdocs
def test_an_answer_stands_or_falls_with_its_point_not_with_a_restated_question() -> None:
    """Asked which Client API functions mTower lacks, the model wrote "The GP TEE Client API functions listed in the
    table are implemented in mTower's Normal World implementation [1]." (verified: the table lists them) and then
    named six functions the table marks "Yes" as missing. One of two sentences failed, so the wrong list was shown
    as the answer with a note; the restatement is no answer, and the list is."""
    table = chunk_with("en_mtower_functionality_description.md", "| TEEC_RegisterSharedMemory | No |")
    question = "Which GP TEE Client API functions are missing from mTower's Normal World implementation?"
    reply = (
        "The GP TEE Client API functions listed in the table are implemented in mTower's Normal World implementation "
        "[1]. The functions that are missing are TEEC_AllocateSharedMemory, TEEC_OpenSession and TEEC_CloseSession."
    )
    checked = check_answer(reply, question, [Passage(1, table, table.text)])
    assert checked.main_claim_failed
    right = reply.split("[1]. ")[0] + "[1]. TEEC_RegisterSharedMemory is not implemented [1]."
    assert not check_answer(right, question, [Passage(1, table, table.text)]).main_claim_failed
    missing = check_claim("TEEC_RegisterSharedMemory is missing.", table.text)  # agrees with its "No" row
    assert missing.supported and not missing.contradicts, missing.reason


def test_a_copied_link_path_is_no_fact_on_either_side() -> None:
    """A Markdown link's target is not read as text (``windows.without_link_targets``): a claim that copies the link
    must not then need the "3" of "(javascript:alert(3))" in it (the hostile-text quiz lost every FALSE item so)."""
    evidence = "The cooling valve opens at 41 kPa. [the manual](javascript:alert(3))"
    assert check_claim("The cooling valve opens at 41 kPa. [the manual](javascript:alert(3))", evidence).supported
    wrong = check_claim("The cooling valve opens at 20 kPa. [the manual](javascript:alert(3))", evidence)
    assert [f.text for f in wrong.missing] == ["20"]


@needs_realdocs
def test_a_line_of_hashtags_states_nothing_and_cannot_carry_a_bare_no() -> None:
    """Asked whether lending a device with OSS counts as distribution, the model answered "いいえ" and copied the
    FAQ's tags "#組込機器#配布". The tags say the asked verb (配布) and their words are in the FAQ, so they stood as
    the answer's verified point under the wrong "no"; the FAQ says lending is distribution too."""
    faq = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "貸与する場合もOSSを配布していることになります")
    question = "OSSが入った機器を売るのではなく貸し出すだけの場合でも、OSSを配布したことになりますか？"
    checked = check_answer("いいえ\n\n#組込機器#配布", question, [Passage(1, faq, faq.text)])
    assert checked.main_claim_failed
    assert [c.status for c in checked.claims] == ["unsupported", "not_checked"]


@needs_realdocs
def test_a_question_copied_into_an_answer_asserts_nothing_to_verify() -> None:
    """Asked whether GPLv3 and Apache License 2.0 are compatible (no document says), the model copied a FAQ heading,
    "両立しないライセンスのOSSを含むOSSを利用できる?", and the FAQ's "いいえ". The heading shares the FAQ's words and
    was shown as a verified point; it asks, and says nothing either way."""
    faq = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "両立しないライセンスのOSSを含むOSSを利用できる?")
    question = "GPLv3のOSSとApache License 2.0のOSSは両立しますか？"
    checked = check_answer(
        "両立しないライセンスのOSSを含むOSSを利用できる?  いいえ", question, [Passage(1, faq, faq.text)]
    )
    assert checked.main_claim_failed
    assert [c.status for c in checked.claims] == ["not_checked", "unsupported"]


@needs_realdocs
def test_an_answer_that_only_asks_is_replaced_by_the_evidence() -> None:
    """Asked whether one sheet may hold several tables, the model answered with a checklist item of the rules as it
    stands, "データが分断されていないか": a question, so no claim to check, and nothing answered. It was shown as the
    answer; now the answer fails and the rules' own sentences are shown."""
    rules = chunk_with("ja_digital_agency_machine_readability_rules.csv", "データが分断されていないか")
    question = "機械判読ルールでは、1つのシートに複数の表を載せてもよいですか？"
    checked = check_answer("データが分断されていないか [1]", question, [Passage(1, rules, rules.text)])
    assert checked.main_claim_failed
    assert [(c.status, c.reason) for c in checked.claims] == [("unsupported", ONLY_ASKS_REASON)]


@needs_realdocs
def test_a_page_number_after_japanese_text_stays_in_its_sentence() -> None:
    """Asked when the FAQ was updated, the model replied that its update history "is on p. 70". The sentence was cut
    after "p." (no word start between の and p for an abbreviation to be seen), and its first half, holding no
    fact, was shown as verified on the table of contents; the page number the contents does not give went unseen."""
    contents = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "69.◆更新履歴")
    checked = check_answer(
        "本FAQの更新履歴は、データのp. 70に記載されています[1]。",
        "「OSSライセンス関連でよくある誤解」のFAQ資料は、いつ更新された版ですか？",
        [Passage(1, contents, contents.text)],
    )
    assert [claim.sentence for claim in checked.claims] == ["本FAQの更新履歴は、データのp. 70に記載されています。"]
    assert checked.main_claim_failed and "70" in checked.claims[0].reason


@needs_realdocs
def test_the_names_an_english_claim_shares_with_a_japanese_row_lend_it_no_words() -> None:
    """Asked which company's course teaches staff to answer questions about OSS from outside the company, the model
    named IT Company's row of the training workbook ("IT Company / OSSコンプライアンス教育: OSSのコンプライアンス
    (ライセンス、知財、他)、ガイドラインに関連する管理者、担当者向け") and said the course teaches that: verified,
    the bigrams of the course's copied name making up most of the share of words the claim "held". Across languages
    what a claim says of a name it copies is in its own language, and the passage shares none of it."""
    row = chunk_with("ja_oss_training_case_analysis.xlsx", "IT Company / OSSコンプライアンス教育").text
    question = (
        "In the spreadsheet comparing companies' OSS training programmes, which company's course teaches staff how to "
        "respond to questions about OSS that come from outside the company?"
    )
    invented = "IT Company / OSSコンプライアンス教育 teaches staff how to respond to questions about OSS from outside."
    assert not check_claim(invented, row, topic=question).supported
    # nor do the Latin names of a Japanese row: "A Consumer Electronics Company" held half of this claim's words
    seminar = "A Consumer Electronics Company's OSSコンプライアンスセミナー teaches how to draw manga."
    assert not check_claim(seminar, row, topic=question).supported


@needs_realdocs
def test_a_command_picked_across_languages_is_tied_by_what_its_signature_is_followed_by(e5_embedder: Embedder) -> None:
    """Asked in Japanese which command shows a \\NewDocumentCommand command's definition on the terminal, the model
    picked \\ShowCommand, and the LaTeX guide's "\\ShowCommand {⟨cmd⟩}" is followed by "This displays the meaning of
    the ⟨cmd⟩ on the terminal…". A bare signature says nothing the question could be close to in meaning, so the
    right pick was refused and the wrong one, \\NewCommandCopy, whose signature line names more commands, verified.
    A signature is read with the sentence after it when a pick is tied to it by meaning."""
    question = (
        "LaTeXで\\NewDocumentCommandを使って定義したコマンドの中身を、引数の指定も含めて端末に表示して確かめたいの"
        "ですが、どの命令を使えばいいですか？"
    )
    show = chunk_with("en_latex_usrguide.pdf", "\\ShowCommand {")
    copy = chunk_with("en_latex_usrguide.pdf", "\\NewCommandCopy {")
    passages = [Passage(n, c, c.text) for n, c in enumerate((show, copy), start=1)]
    relevance = embedding_relevance(e5_embedder)
    (right,) = check_answer("\\ShowCommandを使います[1]。", question, passages, relevance).claims
    assert right.status == "verified", right.reason
    (wrong,) = check_answer("\\NewCommandCopyを使います[2]。", question, passages, relevance).claims
    assert wrong.status == "unsupported"
    # a claim saying more than the pick is no closer to a signature for what follows it
    split = chunk_with("en_latex_usrguide.pdf", "This processor splits the argument")
    more = "\\SplitArgumentは、トークンが足りない場合は空の引数を末尾に追加します[1]。"
    (added,) = check_answer(
        more, "\\SplitArgument は引数をいくつに分割しますか？", [Passage(1, split, split.text)], relevance
    ).claims
    assert added.status == "unsupported"


@needs_realdocs
def test_recognition_noise_a_claim_copies_is_no_evidence() -> None:
    """Asked which problem the 2023 survey's respondents chose most, the model quoted the OCR of the chart's photo,
    「ライセンスに関する昧念ニニ有uうuts?&2 キラシラ…」, and the claim was verified on that line: it holds the quote.
    Recognition noise states nothing, so it supports no claim and is shown as no evidence; the chart's readable
    lines still are."""
    survey = "ja_openchain_industry_survey_2023_imagetext.pdf"
    chunk = chunk_with(survey, "キラシラ")
    noise = next(line for line in chunk.text.splitlines() if "キラシラ" in line)
    question = "2023年のOpenChain業界調査で、オープンソースの問題点として最も多く選ばれた項目は何でしたか？"
    quoted = noise.replace("8トーl]", "")  # the model's copy dropped a few characters, as it did
    checked = check_answer(f"最も多く選ばれた項目は「{quoted}」です[1]。", question, [Passage(1, chunk, chunk.text)])
    assert checked.main_claim_failed and checked.claims[0].status == "unsupported"
    assert answers_nothing(noise)
    readable = "実際のコストは自社開発より高い"
    assert readable in chunk.text
    assert check_claim("実際のコストは自社開発より高い、という回答がありました。", chunk.text).supported


@needs_realdocs
def test_fully_covered_is_not_what_a_row_saying_partially_covered_supports() -> None:
    """mTower's table gives "| TEE_GetObjectInfo | Yes | Partially covered in test suite |". "Yes, it is implemented
    and fully covered in the test suite" shared every word but one with the row and was verified; "fully" and
    "partially" say how much, and the row says the other."""
    chunk = chunk_with("en_mtower_functionality_description.md", "| TEE_GetObjectInfo | Yes |")
    header, separator, *rows = chunk.text.splitlines()
    row = next(line for line in rows if line.startswith("| TEE_GetObjectInfo |"))
    evidence = "\n".join([header, separator, row])
    question = "Is TEE_GetObjectInfo implemented in mTower, and how well is it tested?"
    fully = check_claim("Yes, it is implemented and fully covered in the test suite.", evidence, topic=question)
    assert not fully.supported and fully.contrasted == (("fully", "partially"),)
    partially = check_claim("Yes, it is implemented and partially covered in the test suite.", evidence, topic=question)
    assert partially.supported
