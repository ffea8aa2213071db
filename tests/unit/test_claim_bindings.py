"""What a claim says must be said of the same thing in its evidence: a copied clause, an alternative the question
offers, and a denial each checked on the real passage where a wrong answer was shown as verified or turned into the
wrong yes or no."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from test_claims import chunk_with, embedding_relevance, needs_realdocs

from rag.answers.asked_figures import NO_COUNT_REASON, amount_unsaid, count_unsaid, unit_unsaid
from rag.answers.bounds import bound_reversed
from rag.answers.citations import Passage
from rag.answers.claims import check_claim
from rag.answers.contrast import alone_among_others, any_against_exclusive
from rag.answers.fact_matching import fact_found
from rag.answers.facts import facts_of
from rag.answers.framing import without_framing
from rag.answers.question_fit import RESTATES_ONLY_REASON
from rag.answers.verification import check_answer
from rag.models.embedding import Embedder
from rag.records import Chunk


def test_an_identifier_is_not_found_inside_a_longer_one() -> None:
    """A name is found as a whole word: the shorter command is not named by the longer one that starts with it."""
    (short,) = facts_of("\\kansuji")
    assert not fact_found(short, (), "\\kansujichar は整数値パラメータ")
    assert fact_found(short, (), "\\count255=\\expandafter`\\kansuji1")  # a TeX command ends at its last letter
    (function,) = facts_of("TEEC_OpenSession")
    assert not fact_found(function, (), "| TEEC_OpenSessionEx | Yes |".casefold())
    (code,) = [f for f in facts_of("(6 U.S.C. 609a)") if f.kind == "identifier"]
    assert fact_found(code, (), "section 2009 of the homeland security act of 2002 (6 u.s.c. 609a)")


@needs_realdocs
def test_a_copied_sentence_with_the_command_name_cut_short_is_not_verified() -> None:
    """The pTeX manual says "\\kansujichar は整数値パラメータであるが…". Asked what \\kansuji does, the model copied
    that sentence with \\kansuji in its place; the window names \\kansuji two sentences on, in the example that reads
    the parameter, so finding the name was enough to show the copy as verified."""
    chunk = chunk_with("ja_ptex_manual.pdf", "\\kansujichar は整数値パラメータであるが", "\\expandafter`\\kansuji1")
    question = "pTeXで\\kansujiは何をするプリミティブですか？"
    swapped = check_answer(
        "pTeXで\\kansujiは整数値パラメータであるが,p3.8.2 までは「代入できるが取得はできない」という挙動であった"
        "(例えば\\count255=\\kansujichar1 はエラー)[1].",
        question,
        [Passage(1, chunk, chunk.text)],
    )
    assert [c.status for c in swapped.claims] == ["unsupported"]
    assert "\\kansujichar" in swapped.claims[0].reason
    copied = check_answer(
        "\\kansujichar は整数値パラメータであるが,p3.8.2 までは「代入できるが取得はできない」という挙動であった [1].",
        "pTeXの\\kansujicharはどんなパラメータですか？",
        [Passage(1, chunk, chunk.text)],
    )
    assert [c.status for c in copied.claims] == ["verified"]


@needs_realdocs
def test_the_alternative_a_claim_picks_must_be_the_one_its_evidence_gives_for_the_subject() -> None:
    """mTower's description: "…with Normal World acting as a client and Secure World as a server". Asked whether
    Secure World is the client or the server, "Secure World is the client" holds every word of that sentence."""
    chunk = chunk_with("en_mtower_functionality_description.md", "Secure World as a server")
    question = "Is Secure World in mTower the client or the server?"
    wrong = check_claim("Secure World is the client in mTower.", chunk.text, topic=question, source=chunk.source)
    assert not wrong.supported and "server" in wrong.reason
    right = check_claim("Secure World is the server in mTower.", chunk.text, topic=question, source=chunk.source)
    assert right.supported, right.reason
    other = check_claim(
        "Normal World is the client.",
        chunk.text,
        topic="Is Normal World the client or the server?",
        source=chunk.source,
    )
    assert other.supported, other.reason
    # a passage that names neither alternative is no evidence of the pick, however many of the question's words it has
    menu = chunk_with("en_mtower_functionality_description.md", "*Secure debug UART configuration*")
    unnamed = check_answer("Secure World is the client in mTower [1].", question, [Passage(1, menu, menu.text)])
    assert [c.status for c in unnamed.claims] == ["unsupported"]
    assert "client" in unnamed.claims[0].reason


@needs_realdocs
def test_a_sentence_that_does_not_hold_what_a_denial_denies_does_not_say_the_opposite() -> None:
    """The LaTeX guide: "\\DeclareDocumentCommand will always create the new definition … This should be used
    sparingly." The model's right "No, the guide does not say it should be used often" was read as contradicted,
    and the answer led with the engine's "Yes." ("sparingly" is not "often")."""
    chunk = chunk_with("en_latex_usrguide.pdf", "This should be used sparingly")
    passages = [Passage(1, chunk, chunk.text)]
    denied = check_answer(
        "No, the LaTeX guide does not say \\DeclareDocumentCommand should be used often [1].",
        "Does the LaTeX guide say \\DeclareDocumentCommand should be used often?",
        passages,
    )
    assert denied.contradiction is None
    # a denial of what the sentence does say is still its opposite
    wrong = check_answer(
        "No, \\DeclareDocumentCommand does not always create the new definition [1].",
        "Does \\DeclareDocumentCommand always create a new definition?",
        passages,
    )
    assert wrong.contradiction is not None and "will always create" in wrong.contradiction.quote


@needs_realdocs
def test_a_rule_stated_for_a_class_denies_a_yes_about_a_member_the_passages_name() -> None:
    """The bill's rule of construction: "Nothing in this division may be construed— … (2) to authorize the Attorney
    General to pursue enforcement … against an individual user of a foreign adversary controlled application". Asked
    whether the Attorney General can go after individual TikTok users, the model said yes; the rule never names
    TikTok (the definition of such applications does), so the answer showed the rule without the "No." it gives."""
    rule = chunk_with("en_us_bill_hr815_2024.pdf", "against an individual user of a foreign adversary controlled")
    definition = chunk_with("en_us_bill_hr815_2024.pdf", "(ii) TikTok;")
    passages = [Passage(1, definition, definition.text), Passage(2, rule, rule.text)]
    question = "Can the Attorney General use the app-divestiture division to go after individual TikTok users?"
    checked = check_answer(
        "Yes, the Attorney General can use the division to go after individual TikTok users [2].", question, passages
    )
    assert checked.claims[0].status == "unsupported"
    assert checked.contradiction is not None and checked.contradiction.n == 2
    assert "individual user" in checked.contradiction.quote
    # a sentence that names another identifier where the question's is left implicit says nothing against it
    menu = chunk_with("en_mtower_functionality_description.md", "| TEEC_RequestCancellation |")
    other = check_answer(
        "Yes, mTower implements TEEC_OpenSessionEx [1].",
        "Does mTower implement TEEC_OpenSessionEx?",
        [Passage(1, menu, menu.text)],
    )
    assert other.contradiction is None


@needs_realdocs
def test_rows_copied_under_a_restated_question_are_not_the_answer_s_point() -> None:
    """Asked which Client API functions mTower lacks, the model wrote "The GP TEE Client API functions that are
    missing … are listed in the table below:" and copied the table's rows, nearly all marked "Yes". The lead-in,
    which restates the question, was passed over as no answer, and the first copied row (true of the table) became
    the answer's point, so the answer was shown; a copied row is evidence of a point, not the point."""
    table = chunk_with("en_mtower_functionality_description.md", "| TEEC_RegisterSharedMemory | No |")
    question = "Which GP TEE Client API functions are missing from mTower's Normal World implementation?"
    reply = (
        "The GP TEE Client API functions that are missing from mTower's Normal World implementation are listed in the "
        "table below:\n| TEEC_InitializeContext | Yes | Covered in test suite |\n"
        "| TEEC_OpenSession | Yes | Covered in test suite |"
    )
    checked = check_answer(reply, question, [Passage(1, table, table.text)])
    assert checked.claims[0].status == "unsupported"
    assert checked.main_claim_failed


@needs_realdocs
def test_a_claim_in_another_language_must_be_closest_in_meaning_to_the_row_it_is_checked_against(
    e5_embedder: Embedder,
) -> None:
    """Asked in English which of the Digital Agency's rules says the header row comes first, the model answered a
    bare "L1-02": the row of rule L1-02 (several tables in one sheet) names it, and across languages a claim's
    facts were all that was compared, so the wrong rule was shown as verified. The row of L3-01 answers."""
    name = "ja_digital_agency_machine_readability_rules.csv"
    first, other = chunk_with(name, "| L3-01 |"), chunk_with(name, "| L1-02 |")
    passages = [Passage(1, first, first.text), Passage(2, other, other.text)]
    question = "Which rule in the Digital Agency rules wants the header row on the first line, the data from the next?"
    relevance = embedding_relevance(e5_embedder)

    wrong = check_answer("L1-02 [2]", question, passages, relevance)
    right = check_answer("L3-01 [1]", question, passages, relevance)

    assert [c.status for c in wrong.claims] == ["unsupported"]
    assert "another language" in wrong.claims[0].reason
    assert [c.status for c in right.claims] == ["verified"]
    # a claim with words of its own is carried by its facts and polarity, as before
    brochure = chunk_with("en_scan_linn_sequencer_brochure.pdf", "32 simultaneous")
    tracks = check_answer(
        "各シーケンスは同時に32トラックを持ちます [1]。",
        "LinnSequencerのシーケンスには、同時に何トラックありますか？",
        [Passage(1, brochure, brochure.text)],
        relevance,
    )
    assert [c.status for c in tracks.claims] == ["verified"]


@needs_realdocs
def test_a_part_designated_by_a_letter_is_told_from_its_siblings() -> None:
    """The bill's table of divisions: "(18) DIVISION R.—Holding Iranian Leaders Accountable Act. (19) DIVISION
    S.—Iran-China Energy Sanctions Act of 2023." A letter was no fact, so "Division R … is the Iran-China Energy
    Sanctions Act" held every fact of the next item and was shown as verified."""
    divisions = chunk_with("en_us_bill_hr815_2024.pdf", "(19) DIVISION S.—Iran-China Energy Sanctions Act")
    passages = [Passage(1, divisions, divisions.text)]
    assert [f.value for f in facts_of("DIVISION S.—Iran-China") if f.kind == "identifier"] == ["Division S"]

    wrong = check_answer(
        "Yes, Division R of H.R. 815 is the Iran-China Energy Sanctions Act [1].",
        "Is Division R of H.R. 815 the Iran-China Energy Sanctions Act?",
        passages,
    )
    right = check_answer(
        "Division S of H.R. 815 is the Iran-China Energy Sanctions Act of 2023 [1].",
        "Which division of H.R. 815 is the Iran-China Energy Sanctions Act?",
        passages,
    )

    assert [c.status for c in wrong.claims] == ["unsupported"] and "Division R" in wrong.claims[0].reason
    assert [c.status for c in right.claims] == ["verified"]


@needs_realdocs
def test_a_japanese_answer_naming_a_command_is_read_as_japanese(e5_embedder: Embedder) -> None:
    """ "pTeXで\\kansujicharに指定できる値の範囲は？" holds about as many Latin letters as Japanese ones; counted by
    majority, the question and its answer "…範囲は0–9です" were English, the manual's sentence another language,
    and the right answer was held to the rule for bare picks across languages."""
    chunk = chunk_with("ja_ptex_manual.pdf", "\\kansujichar の引数に許される値は0–9 に限られ")
    checked = check_answer(
        "pTEXで\\kansujicharに指定できる値の範囲は0–9です[1]。",
        "pTeXで\\kansujicharに指定できる値の範囲は？",
        [Passage(1, chunk, chunk.text)],
        embedding_relevance(e5_embedder),
    )
    assert [c.status for c in checked.claims] == ["verified"]


@needs_realdocs
def test_an_entry_of_a_reference_list_verifies_no_claim_in_another_language(e5_embedder: Embedder) -> None:
    """Asked whether pTeX 3.8.3 can read back \\kansujichar, "Yes, pTeX 3.8.3 can read back the value of
    \\kansujichar" was verified by the manual's reference entry "[8] aminophen, 「欧文文字の\\kansujichar,
    \\inhibitxspcode」": by its kana the entry was Japanese, so only the command's name had to be found there. By its
    letters it is English, and it holds none of the claim's words."""
    references = chunk_with("ja_ptex_manual.pdf", "[8] aminophen")
    fixed = chunk_with("ja_ptex_manual.pdf", "3.8.3 で取得もできるように修正された")
    passages = [Passage(1, references, references.text), Passage(2, fixed, fixed.text)]
    checked = check_answer(
        "Yes, pTeX 3.8.3 can read back the value of \\kansujichar [1].",
        "Can pTeX 3.8.3 read back the value of \\kansujichar?",
        passages,
        embedding_relevance(e5_embedder),
    )
    assert not any(c.cited == (1,) for c in checked.claims)


@needs_realdocs
def test_a_yes_that_holds_stands_however_many_details_after_it_fail() -> None:
    """An answer most of whose sentences fail is replaced by the evidence; a yes or no that holds is the answer's
    point, and its wrong details are shown as unsupported beside it instead of taking it away."""
    table = chunk_with("en_mtower_functionality_description.md", "| TEE_Panic |")
    reply = "Yes, mTower implements TEE_Panic [1]. It was added in mTower 9.9. It takes 10 seconds to return."
    checked = check_answer(reply, "Does mTower implement TEE_Panic?", [Passage(1, table, table.text)])
    assert [c.status for c in checked.claims] == ["verified", "unsupported", "unsupported"]
    assert not checked.main_claim_failed
    what = check_answer(
        "TEE_Panic is implemented [1]. It was added in mTower 9.9. It takes 10 seconds to return.",
        "Which panic function does mTower implement?",
        [Passage(1, table, table.text)],
    )
    assert what.main_claim_failed  # not a yes or no: most of it fails, so the evidence is shown


@needs_realdocs
def test_what_comes_standard_is_not_what_the_evidence_calls_optional() -> None:
    """The LinnSequencer brochure lists "Optional SMPTE time code synchronization." Asked whether it is standard,
    "Yes, SMPTE time code synchronization is standard on the LinnSequencer" shared every other word and was shown
    as verified."""
    brochure = chunk_with("en_scan_linn_sequencer_brochure.pdf", "Optional SMPTE time code synchronization")
    question = "Is SMPTE time code synchronization standard on the LinnSequencer?"
    wrong = check_claim("Yes, SMPTE time code synchronization is standard.", brochure.text, topic=question)
    right = check_claim("SMPTE time code synchronization is optional.", brochure.text)
    assert not wrong.supported and "optional" in wrong.reason
    assert right.supported, right.reason


@needs_realdocs
def test_a_yes_whose_own_sentence_denies_what_was_asked_is_answered_no() -> None:
    """The LinnSequencer brochure says "TIMING CORRECTION works during playback and operates without 'chopping'
    notes." Asked whether timing correction chops notes, the model answered "Yes, …" and copied that sentence, so
    every word held and the yes was shown as verified."""
    chunk = chunk_with("en_scan_linn_sequencer_brochure.pdf", "without ‘chopping’ notes")
    question = "Does the LinnSequencer's timing correction chop notes?"
    passages = [Passage(1, chunk, chunk.text)]
    yes = check_answer(
        "Yes, timing correction works during playback and operates without 'chopping' notes [1].", question, passages
    )
    assert [c.status for c in yes.claims] == ["unsupported"]
    assert yes.contradiction is not None and "without ‘chopping’ notes" in yes.contradiction.quote
    no = check_answer("No, timing correction operates without 'chopping' notes [1].", question, passages)
    assert [c.status for c in no.claims] == ["verified"]
    # a denial the question itself makes is no contradiction
    asked_without = "Does the LinnSequencer's timing correction work without chopping notes?"
    agreed = check_answer("Yes, timing correction operates without 'chopping' notes [1].", asked_without, passages)
    assert [c.status for c in agreed.claims] == ["verified"]


@needs_realdocs
def test_a_japanese_yes_whose_last_clause_denies_the_asked_verb_is_not_verified() -> None:
    """The FAQ: renting a shop corner to place a device "…であれば、…OSSの配布にはなりません".
    "はい、…配布にはなりません" answers the question with a yes and the document's no."""
    chunk = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "小売店の場所を借りる", "配布にはなりません")
    question = "小売店の一角を借りてOSS入りの機器を置くだけでも、OSSを配布したことになりますか？"
    passages = [Passage(1, chunk, chunk.text)]
    body = "小売店の場所を借りて機器を設置するだけでは配布にはなりません[1]。"
    yes = check_answer("はい、" + body, question, passages)
    assert [c.status for c in yes.claims] == ["unsupported"] and yes.contradiction is not None
    assert [c.status for c in check_answer("いいえ、" + body, question, passages).claims] == ["verified"]


@needs_realdocs
def test_two_claims_resting_on_two_sentences_of_one_passage_each_have_their_sentence_quoted() -> None:
    """A citation quotes the sentence that supports the claim: the second claim citing a passage used to show the
    first claim's sentence as its quote, so a reader (and the evaluation) saw a verified claim beside a quote that
    does not hold it."""
    chunk = chunk_with("en_scan_linn_sequencer_brochure.pdf", "without ‘chopping’ notes")
    checked = check_answer(
        "One or all tracks may be transposed at the touch of a key [1]. "
        "Existing notes are not erased while recording [1].",
        "What does the LinnSequencer do to tracks and notes while editing and recording?",
        [Passage(1, chunk, chunk.text)],
    )
    assert [c.status for c in checked.claims] == ["verified", "verified"]
    quotes = [c.quote for c in checked.citations if c.n == 1]
    assert any("TRANSPOSED" in q for q in quotes) and any("not erased while recording" in q for q in quotes)


@needs_realdocs
def test_a_comment_cell_that_denies_answers_for_what_it_speaks_of() -> None:
    """mTower's table: "| TEE_GetObjectBufferAttribute | Yes | Not tested |". Its Yes answers whether the function is
    implemented; asked whether the test suite covers it, "Yes, … is covered by mTower's test suite" was verified."""
    chunk = chunk_with("en_mtower_functionality_description.md", "| TEE_GetObjectBufferAttribute | Yes | Not tested |")
    passages = [Passage(1, chunk, chunk.text)]
    covered = check_answer(
        "Yes, TEE_GetObjectBufferAttribute is covered by mTower's test suite [1].",
        "Is TEE_GetObjectBufferAttribute covered by mTower's test suite?",
        passages,
    )
    assert [c.status for c in covered.claims] == ["unsupported"] and covered.contradiction is not None
    implemented = check_answer(
        "Yes, mTower implements TEE_GetObjectBufferAttribute [1].",
        "Does mTower implement TEE_GetObjectBufferAttribute?",
        passages,
    )
    assert [c.status for c in implemented.claims] == ["verified"]


@needs_realdocs
def test_a_passage_saying_the_opposite_term_outweighs_one_that_only_shares_words() -> None:
    """The LaTeX guide: "optional arguments created using \\NewDocumentCommand may safely be nested". "Yes, it is
    unsafe to nest optional arguments made with \\NewDocumentCommand" failed there and was moved to an example that
    shares "optional argument" and the command's name."""
    safe = chunk_with("en_latex_usrguide.pdf", "may safely be nested")
    example = chunk_with("en_latex_usrguide.pdf", "would use the mandatory argument as the default")
    checked = check_answer(
        "Yes, it is unsafe to nest optional arguments made with \\NewDocumentCommand [1].",
        "Is it unsafe to nest optional arguments made with \\NewDocumentCommand?",
        [Passage(1, safe, safe.text), Passage(2, example, example.text)],
    )
    assert [c.status for c in checked.claims] == ["unsupported"]
    assert "safe, not unsafe" in checked.claims[0].reason


@needs_realdocs
def test_a_restated_japanese_question_needs_its_verb_in_the_evidence() -> None:
    """The FAQ on dual licences: "OSSの中には、デュアルライセンスと記載しながら、両方のライセンス条件が適用される旨を
    記載していることもあります". It speaks of both licences, not of having to keep (守) both."""
    chunk = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "両方のライセンス条件が適用される旨")
    checked = check_answer(
        "デュアルライセンスのOSSは、常に両方のライセンスを守らなければなりません[1]。",
        "デュアルライセンスのOSSは、常に両方のライセンスを守らなければなりませんか？",
        [Passage(1, chunk, chunk.text)],
    )
    assert [c.status for c in checked.claims] == ["unsupported"] and "守" in checked.claims[0].reason


@needs_realdocs
def test_a_sentence_copied_from_a_sibling_command_one_word_apart_is_not_verified() -> None:
    """The LaTeX guide lists "• \\DeclareDocumentCommand will always create the new definition, irrespective of any
    existing ⟨cmd⟩ with the same name." beside "• \\ProvideDocumentCommand creates a new definition for ⟨cmd⟩ only if
    one has not already been given." Asked what \\ProvideDocumentCommand does, the model copied the first with the
    second's name, and it was verified: the commands share no prefix, only all words but one."""
    chunk = chunk_with("en_latex_usrguide.pdf", "\\DeclareDocumentCommand will always create the new definition")
    copied = check_claim(
        "\\ProvideDocumentCommand will always create the new definition, irrespective of any existing ⟨cmd⟩with the "
        "same name.",
        chunk.text,
        topic="What does \\ProvideDocumentCommand do if the command already exists?",
        source=chunk.source,
    )
    assert not copied.supported, copied.evidence


@needs_realdocs
def test_a_link_target_is_not_text_a_claim_can_rest_on() -> None:
    """mTower's description: "For a detailed description of each function, please see [TEE Internal API](specs/gp/
    GPD_TEE_Internal_API_Specification_v1.0.pdf)." Its path gave "GP" and "specification" to "Yes, the GP
    specification defines the Secure World API for mTower"; the guide says developers define that API themselves."""
    chunk = chunk_with("en_mtower_functionality_description.md", "A list of Secure World API functions is given")
    checked = check_answer(
        "Yes, the GP specification defines the Secure World API for mTower [1].",
        "Is mTower's Secure World API fixed by the GP specification?",
        [Passage(1, chunk, chunk.text)],
    )
    assert [c.status for c in checked.claims] == ["unsupported"]


@needs_realdocs
def test_an_answer_that_hands_the_question_back_is_not_verified() -> None:
    """Asked for the MHLW case collection's material number, the model wrote "厚労省の資料で、裁判例集の資料番号は
    です" with the number left out. Every word is the question's and the passage holds them, so it was shown as a
    verified answer that answers nothing."""
    chunk = chunk_with("ja_mhlw_worker_status_caselaw_method.pdf", "第1回研究会資料3-3")
    question = "厚労省の資料で、裁判例集の資料番号は何ですか？"
    passages = [Passage(1, chunk, chunk.text)]
    empty = check_answer("厚労省の資料で、裁判例集の資料番号はです[1]。", question, passages)
    assert empty.main_claim_failed and [c.status for c in empty.claims] == ["unsupported"]
    answered = check_answer("厚労省の資料で、裁判例集の資料番号は3-3です[1]。", question, passages)
    assert not answered.main_claim_failed


def refusal_reason(claim: str, question: str, chunk: Chunk) -> str:
    """Why ``claim``, citing ``chunk`` alone, is refused: the answer's one claim is unsupported, the answer replaced."""
    return refusal_reason_among(claim, question, [Passage(1, chunk, chunk.text)])


def refusal_reason_among(claim: str, question: str, passages: Sequence[Passage]) -> str:
    """Why ``claim``, written from ``passages``, is refused: its one claim is unsupported, the answer replaced."""
    checked = check_answer(claim, question, passages)
    assert checked.main_claim_failed and [c.status for c in checked.claims] == ["unsupported"], checked.claims
    return checked.claims[0].reason


@needs_realdocs
def test_a_who_answer_that_names_only_the_question_s_person_is_not_verified() -> None:
    """Asked who signed as witnesses under Edison's signature, the model answered "Thomas A. Edison witnessed…" and
    the patent's heading "THOMAS A. EDIEON, OF MENTO PARK…" (as read from the scan) held every word of it but the
    witnessing: shown as a verified answer naming the inventor, not the witnesses."""
    from rag.answers.question_fit import ECHOED_NAME_REASON, names_only_asked

    heading = chunk_with("en_scan_edison_patent_us223898.pdf", "SPECIFICATION forming part")
    question = (
        "Who signed as witnesses under Edison's signature at the end of the written specification of the lamp patent?"
    )
    echoed = (
        "Thomas A. Edison witnessed under Edison's signature at the end of the written specification of the lamp "
        "patent [1]."
    )
    # the scan reads the heading "THOMAS A. EDIEON": the name the claim gives is not found there before its echo is
    assert refusal_reason(echoed, question, heading) == "not in the cited text: Thomas A. Edison"
    assert names_only_asked(echoed, question) == "Thomas A. Edison"
    # the same claim against the heading as it stands in the document: only the echo of the question's name is left
    spelled = replace(heading, text=heading.text.replace("EDIEON", "EDISON"))
    assert refusal_reason(echoed, question, spelled) == ECHOED_NAME_REASON.format("Thomas A. Edison")
    assert names_only_asked("Edison himself signed as witness.", question) == "Edison"
    # naming others, or nobody, is left to the other checks
    assert names_only_asked("S. L. Griffin and John F. Randolph signed as witnesses.", question) == ""
    assert names_only_asked("Edison's assistants signed as witnesses.", question) == ""


@needs_realdocs
def test_a_name_written_with_a_middle_initial_is_a_fact_the_passage_must_hold() -> None:
    """Asked who was granted U.S. patent 223,898, the model answered "Thomas A. Edison was granted U.S. patent
    223,898 for an electric lamp." Its name was no fact ("Edison" after "A. " read as a sentence's first word), so
    the sentence read as restating the question, the next one became the answer's point, and a right answer was
    replaced. Any other name with an initial ("Thomas A. Lincoln") was verified on the same words. The patent's
    "Patented Jan. 27, 1880." gives the date an answer writes "January 27, 1880"."""
    grant = chunk_with("en_scan_edison_patent_us223898.pdf", "to Thomas A. Edison, of Menlo Park")
    question = "Who was granted U.S. patent 223,898 for an electric lamp?"
    right = check_answer(
        "Thomas A. Edison was granted U.S. patent 223,898 for an electric lamp [1]. It lights by incandescence.",
        question,
        [Passage(1, grant, grant.text)],
    )
    assert not right.main_claim_failed and right.claims[0].status == "verified", right.claims
    invented = "Thomas A. Lincoln was granted U.S. patent 223,898 for an electric lamp [1]."
    assert refusal_reason(invented, question, grant) == "not in the cited text: Thomas A. Lincoln"
    first_page = chunk_with("en_scan_edison_patent_us223898.pdf", "Patented Jan. 27, 1880.")
    assert check_claim("The lamp was patented on January 27, 1880.", first_page.text).supported
    assert not check_claim("The lamp was patented on February 27, 1880.", first_page.text).supported


@needs_realdocs
def test_a_claim_about_a_named_part_of_a_document_rests_on_text_of_that_part() -> None:
    """Asked the maximum civil penalty for a data broker under H.R. 815's "Protecting Americans' Data from Foreign
    Adversaries Act" (Division I, which sets no penalty in dollars), the model gave "$500 multiplied by the number of
    users…" from the penalties of Division H, restating the act's name, which only the passage opening Division I
    holds: verified, and wrong. Asked without the act's name, it gave the same, verified on one word of the party."""
    penalties = chunk_with("en_us_bill_hr815_2024.pdf", "DATA AND INFORMATION VIOLATIONS")
    division = chunk_with("en_us_bill_hr815_2024.pdf", "may be cited as the ‘‘Protecting Americans’ Data")
    passages = [Passage(1, division, division.text), Passage(2, penalties, penalties.text)]
    question = (
        "Under H.R. 815's Protecting Americans' Data from Foreign Adversaries Act, what is the maximum civil penalty "
        "in dollars per violation for a data broker that sells Americans' sensitive data to a foreign adversary?"
    )
    borrowed = refusal_reason_among(
        "Under H.R. 815's Protecting Americans' Data from Foreign Adversaries Act, the maximum civil penalty for a "
        "data broker is $500 multiplied by the number of users affected by such violation [2].",
        question,
        passages,
    )
    assert "Protecting Americans' Data" in borrowed
    # without the act's name the question still names the party the amount is for: "DATA AND INFORMATION
    # VIOLATIONS" holds one word of "a data broker", and "An entity that violates subsection (b)" is not one
    unnamed_act = (
        "What dollar amount of civil penalty per violation does H.R. 815 set for a data broker that sells Americans' "
        "sensitive data to a foreign adversary?"
    )
    borrowed = refusal_reason_among(
        "The civil penalty per violation for a data broker that sells Americans' sensitive data to a foreign "
        "adversary is $500 multiplied by the number of users affected by such violation [2].",
        unnamed_act,
        passages,
    )
    assert "data broker" in borrowed
    asked_of_entity = check_answer(
        "An entity that violates subsection (b) pays up to $500 multiplied by the number of affected users [2].",
        "What dollar amount of civil penalty does H.R. 815 set for an entity that violates subsection (b)?",
        passages,
    )
    assert not asked_of_entity.main_claim_failed, asked_of_entity.claims[0].reason
    # the act's own text stands for it
    prohibited = check_answer(
        "Under the Protecting Americans' Data from Foreign Adversaries Act, it is unlawful for a data broker to sell "
        "personally identifiable sensitive data of a United States individual to an entity controlled by a foreign "
        "adversary [1].",
        "What does H.R. 815's Protecting Americans' Data from Foreign Adversaries Act forbid data brokers to do?",
        passages,
    )
    assert not prohibited.main_claim_failed, prohibited.claims[0].reason


@needs_realdocs
def test_a_copied_list_line_does_not_answer_what_the_question_asks_of_the_people_in_it() -> None:
    """Asked who chaired the 2018-06-13 meeting (the minutes name no chair), the model replied with the attendee line
    "Shane Coughlan – LF" alone: every word of it is in the line, so read by itself it was verified, though what it
    tells the reader is the question's "he chaired it". A claim of names and codes alone is read with the question."""
    from rag.answers.question_fit import reading_context

    minutes = chunk_with("ja_openchain_jwg_minutes_20180613.pdf", "Shane Coughlan")
    question = "Who chaired the OpenChain Japan Working Group meeting held on 13 June 2018 at Toyota's Nagoya office?"
    assert "of its words are in the cited text" in refusal_reason("Shane Coughlan – LF [1].", question, minutes)
    assert reading_context("Shane Coughlan – LF", question) == question
    assert reading_context("Shane Coughlan of the Linux Foundation opened the meeting", question) == ""
    assert reading_context("Hiroshi Nozue is from Toshiba", "Which company is Hiroshi Nozue from?") == ""


@needs_realdocs
def test_a_claim_about_the_command_asked_rests_on_text_that_names_it() -> None:
    """Asked in which release \\expandableinput was added to the kernel (the guide gives no date for it), the model
    answered "…added to the kernel in 1994" and cited "LaTeX2ε was released in 1994…": the command counted as the
    asker's premise because the guide names it elsewhere, so a page that never names it verified the claim."""
    own = chunk_with("en_latex_usrguide.pdf", "\\expandableinput")
    history = chunk_with("en_latex_usrguide.pdf", "was released in 1994")
    assert "expandableinput" not in history.text
    passages = [Passage(1, own, own.text), Passage(2, history, history.text)]
    question = "According to the LaTeX for authors guide, in which LaTeX release (date) was \\expandableinput added?"
    dated = refusal_reason_among(
        "According to the LaTeX for authors guide, \\expandableinput was added to the kernel in 1994 [2].",
        question,
        passages,
    )
    assert "expandableinput" in dated
    # the command's own passage stands for what it says of it
    checked = check_answer(
        "\\expandableinput skips recording the file name and does not apply any file hooks [1].",
        "What does \\expandableinput skip that \\input does?",
        passages,
    )
    assert [c.status for c in checked.claims] == ["verified"], checked.claims[0].reason


@needs_realdocs
def test_a_line_that_only_names_someone_does_not_say_what_they_did() -> None:
    """Asked who chaired the OpenChain Japan WG meeting of 2018-06-13 (the minutes name no chair), the model
    answered "Shane Coughlan chaired the meeting" and the attendee list's line "Shane Coughlan – LF" held its name
    and half its words: shown as a verified answer to a question no document answers."""
    minutes = chunk_with("ja_openchain_jwg_minutes_20180613.pdf", "Shane Coughlan")
    question = "Who chaired the OpenChain Japan Working Group meeting held on 13 June 2018 at Toyota's Nagoya office?"
    reason = refusal_reason("Shane Coughlan chaired the meeting [1].", question, minutes)
    assert "only names them" in reason and "chaired" in reason


@needs_realdocs
def test_who_a_japanese_claim_says_does_something_is_the_subject_the_evidence_gives_that_verb() -> None:
    """Asked who decides whether outside experts are consulted, the model answered "…決めるのは社内の法務部門や社外の
    法律事務所の役割の人だ": the commentary's sentence holds the departments as examples of the experts and makes
    the Open Source Compliance Officer the one who decides. It was shown as verified."""
    from rag.answers.choices import done_by_another

    chunk = chunk_with("ja_openchain_spec_kaisetsu.pdf", "Open Source Compliance Officer が外部有識者")
    question = (
        "OpenChain仕様書詳細解説では、法律的な専門知識を得る仕組み（2.2.3項）の例として、外部の有識者や専門家の"
        "アドバイスを受けるかどうかを決めるのはどの役割の人だと説明していますか？"
    )
    wrong = (
        "外部の有識者や専門家のアドバイスを受けるかどうかを決めるのは社内の法務部門や社外の法律事務所の役割の人だと"
        "説明されています[1]。"
    )
    assert "Open Source Compliance Officer" in refusal_reason(wrong, question, chunk)
    right = "外部有識者のアドバイスを受けるかどうかを決めるのはOpen Source Compliance Officerです。"
    assert done_by_another(right, chunk.text) is None


@needs_realdocs
def test_a_yes_to_more_than_a_number_that_says_up_to_it_is_answered_no() -> None:
    """The brochure: "Each track may be assigned to one of 16 MIDI channels." Asked whether a track can take more
    than 16 channels, "Yes, each LinnSequencer track can be assigned to up to 16 MIDI channels" held every word and
    number of its passage and was shown as verified."""
    chunk = chunk_with("en_scan_linn_sequencer_brochure.pdf", "one of 16 MIDI channels")
    question = "Can each LinnSequencer track be assigned to more than 16 MIDI channels?"
    passages = [Passage(1, chunk, chunk.text)]
    yes = check_answer(
        "Yes, each LinnSequencer track can be assigned to up to 16 MIDI channels [1].", question, passages
    )
    assert [c.status for c in yes.claims] == ["unsupported"] and yes.contradiction is not None
    no = check_answer("No, each track may be assigned to one of 16 MIDI channels [1].", question, passages)
    assert [c.status for c in no.claims] == ["verified"]


@needs_realdocs
def test_a_claim_bounding_a_number_the_other_way_than_its_evidence_is_not_verified() -> None:
    """H.R. 815: "The President may waive, on a case-by-case basis and for a period of not more than 180 days, …".
    "for more than 180 days" holds its words and its number, and "not more than" is a bound, not a denial, so the
    polarity agreed and the claim was verified."""
    chunk = chunk_with("en_us_bill_hr815_2024.pdf", "for a period of not more than 180 days")
    question = "Can the President waive sanctions under H.R. 815 for more than 180 days at a time?"
    passages = [Passage(1, chunk, chunk.text)]
    more = check_answer("The President can waive sanctions for more than 180 days at a time [1].", question, passages)
    assert [c.status for c in more.claims] == ["unsupported"] and "at most 180" in more.claims[0].reason
    at_most = check_answer("The President can waive sanctions for up to 180 days at a time [1].", question, passages)
    assert [c.status for c in at_most.claims] == ["verified"]


@needs_realdocs
def test_a_claim_moved_to_another_passage_must_say_the_verb_the_question_asks() -> None:
    """Asked how many more days the President can extend the date the app ban applies, the model wrote "…can extend
    the date … by 180 days from the date of the enactment" and cited the regulations clause. The claim was moved to a
    section of another division that lets the President impose sanctions 180 days after enactment: it shares the
    president, the date and the days, and extends nothing. The extension clause (90 days) was among the passages."""
    extension = chunk_with("en_us_bill_hr815_2024.pdf", "may grant a 1-time extension of not more than 90 days")
    sanctions = chunk_with("en_us_bill_hr815_2024.pdf", "TIES. (a) IN GENERAL.—On and after the date that is 180 days")
    regulations = chunk_with("en_us_bill_hr815_2024.pdf", "promulgate regulations as necessary for the implementation")
    tiktok = chunk_with("en_us_bill_hr815_2024.pdf", "(ii) TikTok;")  # the passages name it: a premise
    passages = [Passage(n, c, c.text) for n, c in enumerate((extension, sanctions, regulations, tiktok), 1)]
    question = "How many more days can the President extend the date the TikTok app ban applies?"
    wrong = "The President can extend the date the TikTok app ban applies by 180 days from the date of enactment [3]."
    checked = check_answer(wrong, question, passages)
    assert checked.main_claim_failed and "extend" in checked.claims[0].reason
    right = "The President may grant a 1-time extension of not more than 90 days [3]."
    checked = check_answer(right, question, passages)
    assert [c.status for c in checked.claims] == ["reattributed"] and checked.claims[0].cited == (1,)


@needs_realdocs
def test_a_claim_that_one_thing_alone_is_so_fails_where_the_evidence_gives_it_with_others() -> None:
    """Asked whether the LinnSequencer's tempo is limited to whole beats per minute, the model answered "Yes, … is
    limited to BEATS-PER-MINUTE", verified by "TEMPO may be specified in BEATS-PER-MINUTE or FRAMES-PER-BEAT": every
    word held, and the "or" that denies "limited to" was not read. A claim that a thing is the only one now fails on
    a sentence giving it beside others, and holds where the evidence says it alone too (mTower's "AES only")."""
    brochure = chunk_with("en_scan_linn_sequencer_brochure.pdf", "BEATS-PER-MINUTE or FRAMES-PER-BEAT")
    wrong = check_claim("Yes, the tempo is limited to BEATS-PER-MINUTE.", brochure.text)
    assert not wrong.supported and "BEATS-PER-MINUTE" in wrong.reason
    right = check_claim("The tempo may be specified in BEATS-PER-MINUTE.", brochure.text)
    assert right.supported, right.reason
    table = chunk_with("en_mtower_functionality_description.md", "| TEE_CipherInit ")
    only = check_claim("TEE_CipherInitはAESのみ対応しています。", table.text)
    assert only.supported, only.reason
    assert alone_among_others("横組のみで使えます。", "縦組および横組で使えます。") == "横組"
    assert alone_among_others("It runs only if enabled.", "It runs if A or B is set.") is None  # "only if" names none


@needs_realdocs
def test_a_claim_that_any_one_of_a_kind_will_do_fails_where_the_evidence_gives_one_alone() -> None:
    """Asked whether a challenge to the bill's app division can be filed in any federal district court, the model
    answered yes, verified by "The United States Court of Appeals for the District of Columbia Circuit shall have
    exclusive jurisdiction over any challenge to this division": it holds "any", "challenge", "district" and "court".
    A claim that any of a kind will do now fails on a sentence that gives one alone."""
    chunk = chunk_with("en_us_bill_hr815_2024.pdf", "shall have exclusive jurisdiction over any challenge")
    wrong = check_claim("Yes, a challenge to this division may be filed in any federal district court.", chunk.text)
    assert not wrong.supported and "any federal district court" in wrong.reason
    right = check_claim(
        "The Court of Appeals for the District of Columbia Circuit has exclusive jurisdiction over any challenge to "
        "this division.",
        chunk.text,
    )
    assert right.supported, right.reason
    assert any_against_exclusive("It accepts any integer value.", "It accepts only integer values.") is None
    # a kind named in capitals is a kind all the same
    anywhere = check_claim("A petition may be filed in any United States district court.", chunk.text)
    assert not anywhere.supported and "any United States district court" in anywhere.reason


@needs_realdocs
def test_a_claim_that_a_thing_makes_a_difference_fails_where_the_evidence_says_irrespective_of_it() -> None:
    """The LaTeX guide: "TEX will find the first argument after a function name irrespective of any intervening
    spaces." Asked whether such spaces change how TeX reads the argument, the model said "Yes, … do change how TeX
    reads the argument", and the sentence held every word of it."""
    chunk = chunk_with("en_latex_usrguide.pdf", "irrespective of any intervening spaces")
    wrong = check_claim(
        "Yes, spaces between a command name and its first argument do change how TeX reads the argument.", chunk.text
    )
    assert not wrong.supported and "irrespective" in wrong.reason
    right = check_claim("TeX finds the first argument after a function name irrespective of any spaces.", chunk.text)
    assert right.supported, right.reason


@needs_realdocs
def test_a_bare_pick_answers_for_the_part_the_question_names_not_for_its_sibling() -> None:
    """Asked for the short title of Division L, the model answered with a bare title, "Hamas and Other Palestinian
    Terrorist Groups International Financing Prevention Act", verified by the bill's list of divisions, where it is
    "(13) DIVISION M.—…". A pick that adds nothing to the question but its facts answers for the part the question
    names, and the evidence must not give it for a sibling part."""
    chunk = chunk_with("en_us_bill_hr815_2024.pdf", "DIVISION M.—Hamas and Other Palestinian Terrorist Groups")
    question = "H.R. 815のDivision Lの短い名称は何ですか？"
    title = "Hamas and Other Palestinian Terrorist Groups International Financing Prevention Act"
    wrong = check_claim(title, chunk.text, topic=question)
    assert not wrong.supported and "Division L" in wrong.reason
    assert "(12) DIVISION L.—MAHSA Act." in chunk.text  # the line before it in the same list
    right = check_claim("MAHSA Act", chunk.text, topic=question)
    assert right.supported, right.reason


@needs_realdocs
def test_a_kanji_place_the_record_does_not_give_is_not_verified() -> None:
    """Persona AQ's record says "愛媛県松山市出身です". "AQは東京都出身です" held two of its words there (AQ, 出身),
    enough to be shown as verified: a place in kanji is no fact the checks compared. What a Japanese answer adds to
    the question is its answer, and the evidence must hold it."""
    record = chunk_with("ja_realpersonachat_interlocutors_sample.jsonl", "interlocutor_id: AQ", "愛媛県松山市出身")
    question, passages = "AQの人はどこの出身ですか？", [Passage(1, record, record.text)]
    for wrong in ("AQは東京都出身です[1]。", "東京都です[1]。"):
        checked = check_answer(wrong, question, passages)
        assert checked.main_claim_failed and "東京" in checked.claims[0].reason
    right = check_answer("AQは愛媛県松山市出身です[1]。", question, passages)
    assert not right.main_claim_failed and right.citations[0].quote == "persona: 愛媛県松山市出身です。"


@needs_realdocs
def test_a_single_word_the_rule_does_not_state_is_not_verified() -> None:
    """Rule L1-03 of the Digital Agency's rules asks that data not be split across tables. "L1-03は、データを縦持ち形式
    にすることを求めています" added one word to the question (縦持ち, the long format of rule L3-09) and held the
    rest there: it was verified. A pair of kanji across two known words is no added word: "18 か月有効" (か月, 有効)
    stays verified on "有効期間は認証取得時から18 か月"."""
    rules = chunk_with("ja_digital_agency_machine_readability_rules.csv", "| L1-03 |")
    question = "デジタル庁の機械判読ルールで、データの形式について求めているルールは？"
    claim = "L1-03は、データを縦持ち形式にすることを求めています[1]。"
    checked = check_answer(claim, question, [Passage(1, rules, rules.text)])
    assert checked.main_claim_failed and "縦持" in checked.claims[0].reason
    spec = chunk_with("ja_openchain_spec_kaisetsu.pdf", "有効期間は認証取得時から18 か月")
    question = "OpenChain仕様の適合認証は、取得してからどのくらいの期間有効ですか？"
    claim = "OpenChain仕様の適合認証は、取得してから18 か月有効です[1]。"
    kept = check_answer(claim, question, [Passage(1, spec, spec.text)])
    assert not kept.main_claim_failed


@needs_realdocs
def test_one_long_katakana_word_does_not_outweigh_the_other_words_a_claim_adds() -> None:
    """Asked which problem of open source the 2023 survey's respondents chose most, the model named a survey question,
    「オープンソースライセンスの使用を許可する主な基準は何で選択すか?」, and it was shown as verified on the page asking
    whether ISO/IEC 5230 is applied for license compliance. Counted by character pairs, ライセンス alone (five pairs,
    all on that page) outweighed 使用, 許可, 基準 and 選択 (none there); counted as words it is one of five."""
    survey = "ja_openchain_industry_survey_2023_imagetext.pdf"
    page = chunk_with(survey, "オープンソースライセンスコンブライアンスのために")
    question = "2023年のOpenChain業界調査で、オープンソースの問題点として最も多く選ばれた項目は何でしたか？"
    claim = (
        "2023年のOpenChain業界調査で、最も多く選ばれた項目は"
        "「オープンソースライセンスの使用を許可する主な基準は何で選択すか?」です[1]。"
    )
    checked = check_answer(claim, question, [Passage(1, page, page.text)])
    assert checked.main_claim_failed
    assert "使用" in checked.claims[0].reason and "基準" in checked.claims[0].reason


@needs_realdocs
def test_a_true_sentence_that_gives_no_count_does_not_answer_how_many() -> None:
    """Asked how many Toshiba employees attended the 2018-06-13 meeting, the model answered "Shane Coughlan attended
    the meeting": the attendee list supports it, and it answers nothing. It was shown as the verified answer."""
    minutes = chunk_with("ja_openchain_jwg_minutes_20180613.pdf", "Shane Coughlan – LF", "Hiroshi Nozue – Toshiba")
    question = "How many Toshiba employees attended the 2018-06-13 OpenChain Japan WG meeting?"
    passages = [Passage(1, minutes, minutes.text)]
    uncounted = check_answer("Shane Coughlan attended the meeting [1].", question, passages)
    assert uncounted.main_claim_failed  # the list's line names him; nothing in the answer counts anyone
    assert count_unsaid("Shane Coughlan attended the meeting.", question)
    assert not count_unsaid("Only 1 Toshiba employee attended: Hiroshi Nozue.", question)
    assert not count_unsaid("Only one Toshiba employee attended: Hiroshi Nozue.", question)  # a count in words
    assert count_unsaid("One of the attendees was Hiroshi Nozue.", question)  # picks one, counts nothing
    counted = check_answer("Only 1 Toshiba employee attended: Hiroshi Nozue [1].", question, passages)
    assert counted.claims[0].reason != NO_COUNT_REASON


@needs_realdocs
def test_a_japanese_question_asking_how_many_items_wants_a_count() -> None:
    """The same in Japanese: "何件" (and 何人, 何社, 何回…) asks how many as "いくつ" and "何項目" do. Asked how many
    agenda items the 2018-06-13 meeting discussed, a sentence naming one of them was verified as the answer."""
    minutes = chunk_with("ja_openchain_jwg_minutes_20180613.pdf", "場所: トヨタ自動車")
    question = "2018年6月13日のOpenChain Japan WG会合では、何件の議題が話し合われましたか？"
    claim = "サプライチェーンにおける問題提起について出席者で議論しました[1]。"
    checked = check_answer(claim, question, [Passage(1, minutes, minutes.text)])
    assert checked.main_claim_failed and checked.claims[0].reason == NO_COUNT_REASON
    assert not count_unsaid("議題は6件でした。", question)


@needs_realdocs
def test_one_or_all_says_how_not_how_many() -> None:
    """Asked how many notes a LinnSequencer disk holds, "One or all tracks may be TRANSPOSED" copied from the brochure
    was shown as the answer: its "One" was read as a count."""
    brochure = chunk_with("en_scan_linn_sequencer_brochure.pdf", "110,000 notes per disk", "TRANSPOSED")
    question = "How many notes can one of the LinnSequencer's floppy disks hold?"
    passages = [Passage(1, brochure, brochure.text)]
    checked = check_answer("One or all tracks may be TRANSPOSED at the touch of a key [1].", question, passages)
    assert checked.main_claim_failed and checked.claims[0].reason == NO_COUNT_REASON
    counted = check_answer("A disk holds over 110,000 notes [1].", question, passages)
    assert not counted.main_claim_failed


@needs_realdocs
def test_a_question_asking_for_a_rate_or_an_amount_wants_a_figure() -> None:
    """Asked what baud rate mTower's non-secure debug UART uses (the description gives none), the model answered that
    a submenu selects the UART, "UART0 to UART5 are available choices": the menu's line holds every word of it, so it
    was shown as the verified answer, and it gives no rate."""
    menu = chunk_with("en_mtower_functionality_description.md", "*Non-secure debug UART configuration*")
    passages = [Passage(1, menu, menu.text)]
    question = "What baud rate does mTower use for its non-secure debug UART?"
    around = (
        "The non-secure debug UART configuration submenu lets you select which UART is to be used for debug output "
        "from non-secure world (UART0 to UART5 are available choices) [1]."
    )
    checked = check_answer(around, question, passages)
    assert checked.main_claim_failed and "baud rate" in checked.claims[0].reason
    assert amount_unsaid("UART0 to UART5 are available choices.", question) == "What baud rate"
    assert not amount_unsaid("It runs at 115200 bps.", question)
    assert not amount_unsaid("The tools are free of charge.", "How much does the tool cost?")
    assert amount_unsaid("ルビ文字を空白に掛けてよい。", "ルビの文字サイズを親文字の何分の1にしますか？") == "何分の"
    assert not amount_unsaid("The rate limiter drops requests.", "What does the rate limiter do?")  # asks no figure
    assert not amount_unsaid("Git.", "Which version control system does the project use?")  # names a thing


@needs_realdocs
def test_a_question_asking_for_a_rate_wants_a_figure_in_that_rate() -> None:
    """Asked the LinnSequencer's fastest tempo in beats per minute (the brochure gives none), the model copied "The
    LinnSequencer can be set to TEMPO in BEATS-PER-MINUTE or FRAMES-PER-BEAT at 24, 25, or 30 frames per second":
    every word of it is the brochure's, so it was shown as the verified answer, and it gives a frame rate."""
    brochure = chunk_with("en_scan_linn_sequencer_brochure.pdf", "FRAMES-PER-BEAT")
    passages = [Passage(1, brochure, brochure.text)]
    question = "What is the fastest tempo, in beats per minute, that the LinnSequencer can be set to?"
    copied = (
        "The LinnSequencer can be set to TEMPO in BEATS-PER-MINUTE or FRAMES-PER-BEAT at 24, 25, or 30 frames per "
        "second [1]."
    )
    checked = check_answer(copied, question, passages)
    assert checked.main_claim_failed
    assert "in beats per minute, and the answer gives one in frames per second" in checked.claims[0].reason
    assert unit_unsaid("The fastest tempo is 250 beats per minute.", question) is None
    assert unit_unsaid("It takes 2 minutes.", "How long does it take, in seconds?") is None  # a unit, not a rate


@needs_realdocs
def test_a_claim_moved_to_another_passage_need_not_repeat_a_light_verb_of_the_question() -> None:
    """Asked what processor the LinnSequencer uses inside, the model answered "…uses an ultra high-speed, 8 MHz 80186
    16 bit computer internally" without a citation: the brochure says "Utilizes …". "use" says nothing beyond its
    object, so the claim's evidence need not repeat it; the right answer was replaced by unrelated sentences."""
    brochure = chunk_with("en_scan_linn_sequencer_brochure.pdf", "80186 16 bit computer")
    intro = chunk_with("en_scan_linn_sequencer_brochure.pdf", "state-of-the-art composition and performance tool")
    passages = [Passage(1, intro, intro.text), Passage(2, brochure, brochure.text)]
    question = "What processor does the LinnSequencer use inside?"
    right = "The LinnSequencer uses an ultra high-speed, 8 MHz 80186 16 bit computer internally for FAST operation."
    checked = check_answer(right, question, passages)
    assert not checked.main_claim_failed and checked.claims[0].cited == (2,)
    wrong = "The LinnSequencer uses an ultra high-speed, 8 MHz 80286 16 bit computer internally."
    assert check_answer(wrong, question, passages).main_claim_failed


@needs_realdocs
def test_a_claim_moved_to_the_passage_holding_the_name_it_answers_need_not_repeat_the_verb() -> None:
    """Asked which processor architecture mTower targets, the model answered "The mTower targets Cortex-M23." without
    a citation; the description says "As of now, Cortex-M23 is the only supported type." The name it answers with
    ties the claim to that passage, as a figure that recurs across passages (the 180 days of the TikTok extension)
    does not; the right answer was replaced by unrelated sentences."""
    menu = chunk_with("en_mtower_functionality_description.md", "Cortex-M23 is the only supported type")
    build = chunk_with("en_mtower_functionality_description.md", "Kconfig-based build configuration system")
    passages = [Passage(1, build, build.text), Passage(2, menu, menu.text)]
    question = "Which processor architecture does mTower target?"
    checked = check_answer("The mTower targets Cortex-M23.", question, passages)
    assert not checked.main_claim_failed and checked.claims[0].cited == (2,)
    assert check_answer("The mTower targets Cortex-M33.", question, passages).main_claim_failed


@needs_realdocs
def test_a_number_given_in_the_questions_setting_but_not_for_what_it_asks_is_not_verified() -> None:
    """Asked how long one has to file a constitutional challenge to a seizure of Russian sovereign assets, the model
    said 30 days (the bill says 60). The notice section shares the question's setting (action, Russian sovereign
    asset) and says "Not later than 30 days before the release…", and nothing of filing a challenge."""
    question = (
        "Under H.R. 815, if the government takes an action to seize Russian sovereign assets, how long does someone "
        "have to file a constitutional challenge to it?"
    )
    claim = (
        "Under H.R. 815, if the government takes an action to seize Russian sovereign assets, someone has {} to "
        "file a constitutional challenge to it."
    )
    notice = chunk_with("en_us_bill_hr815_2024.pdf", "(b) NOTIFICATION.—Not later than 30 days before the release")
    wrong = check_answer(claim.format("30 days") + " [1]", question, [Passage(1, notice, notice.text)])
    assert wrong.main_claim_failed and wrong.claims[0].status == "unsupported"
    assert "file" in wrong.claims[0].reason and "challenge" in wrong.claims[0].reason
    review = chunk_with("en_us_bill_hr815_2024.pdf", "LIMITATIONS FOR FILING CLAIMS", "not later than 60 days")
    right = check_answer(
        "A claim must be brought not later than 60 days after the action [1].",
        question,
        [Passage(1, review, review.text)],
    )
    assert right.claims[0].status == "verified", right.claims[0].reason


@needs_realdocs
def test_a_japanese_claim_sharing_only_its_questions_condition_with_the_evidence_is_not_verified() -> None:
    """The FAQ's answer on a device placed in a rented shop corner repeats the question's condition (小売店の場所を
    借りる, 設置) and speaks of distribution; it says nothing of having to disclose source code, the thing asked."""
    faq = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "小売店の場所を借りる", "配布にはなりません")
    question = "小売店の場所を借りて機器を設置する場合、ソースコードの開示を求められますか？"
    wrong = check_claim(
        "小売店の場所を借りて機器を設置する場合、ソースコードの開示を求められます。", faq.text, topic=question
    )
    assert not wrong.supported and "ソースコードの開示" in wrong.reason
    asked = "小売店の場所を借りて機器を設置する場合、OSSを配布したことになりますか？"
    right = check_claim("小売店の場所を借りて機器を設置する場合、配布にはなりません。", faq.text, topic=asked)
    assert right.supported, right.reason


@needs_realdocs
def test_a_claim_whose_number_is_in_its_lists_lead_in_quotes_the_lead_in_too() -> None:
    """A list item is read with the sentence that opens its list; when the claim's number is only there, the quote
    must show it: "(1) a notification of the decision…" alone does not say 30 days."""
    notice = chunk_with("en_us_bill_hr815_2024.pdf", "(b) NOTIFICATION.—Not later than 30 days before the release")
    checked = check_claim(
        "The President must submit a notification of the decision 30 days before the release.",
        notice.text,
        topic="How many days before releasing a blocked Russian sovereign asset must the President notify Congress?",
    )
    assert checked.supported, checked.reason
    assert checked.evidence.startswith("(b) NOTIFICATION.—Not later than 30 days")
    assert checked.evidence.endswith(
        "(1) a notification of the decision to take the action that releases or mobilizes the asset; and"
    )
    assert checked.evidence in notice.text


@needs_realdocs
def test_an_answer_naming_others_than_the_step_the_evidence_marks_first_is_not_verified() -> None:
    """The commentary names the in-house legal department and outside law firms as experts a company can consult,
    then says each person in charge first (まず) consults the Open Source Compliance Officer."""
    commentary = chunk_with("ja_openchain_spec_kaisetsu.pdf", "各担当者はまずOpen Source Compliance Officer")
    question = "コンプライアンス上の懸案があったとき、担当者が最初に相談する相手として誰が想定されている？"
    wrong = check_claim(
        "担当者が最初に相談する相手として社内の法務部門や社外の法律事務所が想定されています。",
        commentary.text,
        topic=question,
    )
    assert not wrong.supported
    assert "first" in wrong.reason and "Open Source Compliance Officer" in wrong.reason
    right = check_claim(
        "担当者が最初に相談する相手はOpen Source Compliance Officerです。", commentary.text, topic=question
    )
    assert right.supported, right.reason


@needs_realdocs
def test_a_bare_answer_is_checked_in_a_sentence_about_its_question() -> None:
    """Asked where AB's husband was posted before they married, the model answered the bare "アメリカ", without a
    citation. AB's profile says "3年前までアメリカに住んでいました": the word is there, and nothing of a husband,
    a posting or a marriage. The chat says "夫がイギリス駐在してたので、会いに行きました。結婚前です。"."""
    chat = chunk_with("ja_chat_realpersonachat_00004.json", "夫がイギリス駐在してたので")
    profile = chunk_with("ja_realpersonachat_interlocutors_sample.jsonl", "3年前までアメリカに住んでいました")
    passages = [Passage(1, chat, chat.text), Passage(2, profile, profile.text)]
    question = "チャットの中でABさんが話していた、結婚前に夫が駐在していた国はどこですか？"
    wrong = check_answer("アメリカ", question, passages)
    assert wrong.main_claim_failed and wrong.claims[0].status == "unsupported"
    assert "結婚" in wrong.claims[0].reason  # one word each: not チャット#0, チャット#1…
    right = check_answer("イギリス", question, passages)
    assert right.claims[0].status == "reattributed" and right.citations[0].n == 1
    assert "駐在" in right.citations[0].quote


@needs_realdocs
def test_a_claim_naming_no_identifier_speaks_of_the_one_its_question_names() -> None:
    """Asked whether TEE_GenerateRandom can be called from mTower's Secure World (the table marks it "No"), the model
    said yes, then "This function is implemented in the GP TEE Internal API table and is covered in the test suite."
    That sentence was verified on TEE_Malloc's row, "| TEE_Malloc | Yes | Covered in test suite |", and as the
    answer's only verified sentence it kept the wrong yes on screen. Then on "| **Asymmetric Functions** | No |", a
    row whose "No" under "Implemented" was not read as a denial: its words were all in the header above it."""
    table = chunk_with("en_mtower_functionality_description.md", "| TEE_GenerateRandom ")
    malloc = chunk_with("en_mtower_functionality_description.md", "| TEE_Malloc ")
    passages = [Passage(1, table, table.text), Passage(2, malloc, malloc.text)]
    question = "Our trusted application needs random bytes. Can I call TEE_GenerateRandom from mTower's Secure World?"
    reply = (
        "Yes, you can call TEE_GenerateRandom from the Secure World. This function is implemented in the GP TEE "
        "Internal API table and is covered in the test suite."
    )

    checked = check_answer(reply, question, passages)

    assert [claim.status for claim in checked.claims] == ["unsupported", "unsupported"]
    assert checked.main_claim_failed  # the wrong yes is replaced by the evidence
    malloc_said = check_claim("This function is covered in the test suite.", malloc.text, topic=question)
    assert not malloc_said.supported and "TEE_GenerateRandom" in malloc_said.reason
    right = check_claim("No, TEE_GenerateRandom is not implemented.", table.text, topic=question)
    assert right.supported, right.reason


@needs_realdocs
def test_a_claim_about_a_quoted_name_rests_on_a_sentence_that_names_it_whole() -> None:
    """Asked when the first meeting of 「労働基準法における『労働者』に関する研究会」 was held (the MHLW note does
    not say), the model answered with the period the court cases it collects were decided in, "…研究会は、昭和60年1月
    1日から令和6年12月31日までの期間に開催されました", and it was verified: the sentence holds the dates and the
    name's words 労働基準法 and 労働者, and names no study group."""
    from rag.answers.premises import premises

    note = chunk_with("ja_mhlw_worker_status_caselaw_method.pdf", "昭和60 年1 月1 日から令和6 年12 月31 日")
    question = "第1回「労働基準法における『労働者』に関する研究会」は何年何月何日に開催されましたか？"
    given = premises(question, [note.text], [note.source])  # 第1回: the note names 第１回研究会資料

    wrong = check_claim(
        "第1回「労働基準法における『労働者』に関する研究会」は、昭和60年1月1日から令和6年12月31日までの期間に"
        "開催されました。",
        note.text,
        given=given,
        topic=question,
    )

    assert not wrong.supported
    assert "「労働基準法における『労働者』に関する研究会」" in wrong.reason
    cases = "裁判例は昭和60年1月1日から令和6年12月31日までの期間に判決が下された、労働者性が争点とされたものです。"
    assert check_claim(
        cases, note.text, topic="研究会の資料の裁判例は、いつからいつまでに判決が下されたものですか？"
    ).supported


@needs_realdocs
def test_a_year_in_the_documents_file_name_is_the_askers_premise() -> None:
    """ "2024年の米国法案H.R. 815では…" answered in Japanese with the bill's own figure, $1,200,000,000, was refused
    as "not in the cited text: 2024年": the year is in the file's name (``bill_hr815_2024.pdf``), not on its pages."""
    from rag.answers.premises import premises

    section = chunk_with("en_us_bill_hr815_2024.pdf", "$1,200,000,000")
    question = (
        "2024年の米国法案H.R. 815では、イスラエルがアイアンビーム防衛システムを調達するための資金としていくら"
        "計上されていますか？"
    )
    given = premises(question, [section.text], [section.source])

    assert "2024年" in [fact.text for fact in given]


@needs_realdocs
def test_a_name_written_in_katakana_ties_a_claim_to_a_sentence_in_the_other_language(e5_embedder: Embedder) -> None:
    """Asked in English which European country AA names in the Japanese chat, the model answered "AA names Italy";
    the chat says "AA: 私はイタリアとかに行ってました". Across languages only facts tie a claim to a sentence, and a
    country's name was none: "not in the cited text: Italy". A name the evidence writes in katakana is that name."""
    chat = chunk_with("ja_chat_realpersonachat_00004.json", "私はイタリアとかに行ってました")
    passages = [Passage(1, chat, chat.text)]
    question = "In the chat between AA and AB, AB asks which part of Europe AA had been to. Which country does AA name?"
    relevance = embedding_relevance(e5_embedder)

    right = check_answer("AA names Italy as the country she had been to.", question, passages, relevance=relevance)
    assert right.claims[0].status == "reattributed", right.claims[0].reason
    assert "イタリア" in right.citations[0].quote
    wrong_ones = (
        "AA names France as the country she had been to.",
        "AA says she has never been to Italy.",
        "AB names Italy as the country she had been to.",  # AB's line asks where; AA's names Italy
    )
    for wrong in wrong_ones:
        checked = check_answer(wrong, question, passages, relevance=relevance)
        assert checked.claims[0].status == "unsupported", wrong


@needs_realdocs
def test_a_true_sentence_about_another_thing_is_not_the_answer() -> None:
    """Asked how much H.R. 815 appropriates for wildfire recovery (nothing), the model copied "$10,000,000, to remain
    available until September 30, 2027, for necessary expenses related to the administration of nonprofit security
    grants": true, verified, and shown as the answer. Asked whether software whose licence bans commercial use may be
    used in-house, it answered with the FAQ's aside that such software is not OSS by OSI's definition."""
    from rag.answers.question_fit import NOT_ASKED_REASON

    grants = chunk_with("en_us_bill_hr815_2024.pdf", "administration of nonprofit security grants")
    question = "How much does H.R. 815 appropriate for wildfire recovery?"
    copied = check_answer(
        "$10,000,000, to remain available until September 30, 2027, for necessary expenses related to the "
        "administration of nonprofit security grants [1].",
        question,
        [Passage(1, grants, grants.text)],
    )
    assert copied.main_claim_failed
    assert copied.claims[0].reason == "the cited text does not give it for wildfire recovery"  # the amount's purpose
    asked_of_grants = check_answer(
        "H.R. 815 provides $10,000,000 for the administration of nonprofit security grants [1].",
        "How much does H.R. 815 provide for administering nonprofit security grants?",
        [Passage(1, grants, grants.text)],
    )
    assert not asked_of_grants.main_claim_failed, asked_of_grants.claims[0].reason

    faq = chunk_with("ja_oss_license_misunderstandings_faq.pdf", "社内で利用することはできません")
    question = (
        "当社は営利企業です。入手したソフトのライセンスで商用利用が禁止されているのですが、"
        "社外に出さず社内だけで使うのであれば問題ないですか？"
    )
    aside = check_answer(
        "(参考)商用利用を禁止しているソフトウェアはOSIのOSSの定義に合致していません[1]。",
        question,
        [Passage(1, faq, faq.text)],
    )
    assert aside.main_claim_failed and aside.claims[0].reason.startswith(NOT_ASKED_REASON.format("")[:-2])
    assert "社内" in aside.claims[0].reason
    answer = check_answer(
        "商用利用が禁止されているソフトウェアを社内で利用することはできません[1]。",
        question,
        [Passage(1, faq, faq.text)],
    )
    assert not answer.main_claim_failed, [c.reason for c in answer.claims]


@needs_realdocs
def test_a_claim_about_both_sides_of_a_pair_is_not_supported_by_a_sentence_about_one() -> None:
    """Asked which parameter sets the glue between Japanese and Latin characters (和文文字と欧文文字の間: \\xkanjiskip),
    the model answered \\kanjiskip, and it was verified on "▶\\kanjiskip=⟨skip⟩ 連続する和文文字間に標準で入るグルーを
    設定する.": the sentence holds the claim's 和文文字, 間 and グルー, and nothing of 欧文."""
    from rag.answers.premises import premises

    kanjiskip = chunk_with("ja_ptex_manual.pdf", "連続する和文文字間に標準で入るグルーを設定する")
    xkanjiskip = chunk_with(
        "ja_ptex_manual.pdf", "和文文字と欧文文字の間に,標準で\\xkanjiskip で指定されただけのグルー"
    )
    question = "pTeXで、和文文字と欧文文字の間に自動で入るグルーの量を指定するパラメータは何ですか？"
    claim = "pTeXで、和文文字と欧文文字の間に自動で入るグルーの量を指定するパラメータは{}です。"
    given = premises(question, [kanjiskip.text], [kanjiskip.source])  # pTeX: the manual's file name

    wrong = check_claim(claim.format("\\kanjiskip"), kanjiskip.text, given=given, topic=question)
    assert not wrong.supported and "欧文" in wrong.reason
    right = check_claim(claim.format("\\xkanjiskip"), xkanjiskip.text, given=given, topic=question)
    assert right.supported, right.reason


@needs_realdocs
def test_a_claim_restating_the_title_its_question_names_the_document_by_rests_on_its_answer() -> None:
    """Asked how many character classes W3C's 「簡便な行組版ルール（案）」 ends up with, the model answered right,
    restating the page's title, and was refused ("not in the cited text: 12", too few words): the sentence that gives
    12 never repeats the title, which says which document, as a file name does. A wrong number is still refused."""
    from rag.ingest.chunking import DOC_TITLE

    chunk = chunk_with("ja_w3c_jlreq_line_composition.html", "cl-xii までの 12 個とする")
    assert chunk.extra[DOC_TITLE] == "簡便な行組版ルール(案)"  # the page's <title>
    question = (
        "W3Cの「簡便な行組版ルール（案）」では、JLReqの文字クラスを整理して最終的にいくつの文字クラスにしていますか？"
    )
    passages = [Passage(1, chunk, chunk.text)]
    right = check_answer(
        "W3Cの「簡便な行組版ルール（案）」では、JLReqの文字クラスを整理して最終的に12つの文字クラスにしています[1]。",
        question,
        passages,
    )
    assert [c.status for c in right.claims] == ["verified"]
    assert right.citations[0].quote.startswith("新しい文字クラスはcl-i から cl-xii までの 12 個とする")
    wrong = check_answer(
        "W3Cの「簡便な行組版ルール（案）」では、JLReqの文字クラスを整理して最終的に30の文字クラスにしています[1]。",
        question,
        passages,
    )
    assert [c.status for c in wrong.claims] == ["unsupported"]
    # a question that does not name the document by its title: its words count as the claim's, as before
    unnamed = check_answer(
        "W3Cの簡便な行組版ルールの案では、JLReqの文字クラスを整理して最終的に12つの文字クラスにしています[1]。",
        "W3Cの案では、JLReqの文字クラスを整理して最終的にいくつの文字クラスにしていますか？",
        passages,
    )
    assert [c.status for c in unnamed.claims] == ["unsupported"]


@needs_realdocs
def test_a_japanese_answer_of_when_someone_did_something_rests_on_text_that_says_they_did_it() -> None:
    """Asked in what year 岩波書店 first adopted hanging punctuation (the guide gives no year), the claim restating the
    question with "1976年の第22刷" was verified on the 文節 section: "文節という用語は,橋本進吉が最初に使用した用語で
    あり,橋本進吉著“国語法研究”(岩波書店,1947年,参照したものは1976年の第22刷)…" holds the publisher, 最初 and the
    year, and adopts nothing."""
    bunsetsu = chunk_with("ja_w3c_jlreq_line_composition.html", "橋本進吉が最初に使用した", "1976年の第22刷")
    question = "簡便な行組版ルール（案）によると、岩波書店がぶら下げ組を最初に採用したのは何年のことですか？"
    reason = refusal_reason("岩波書店がぶら下げ組を最初に採用したのは1976年の第22刷です[1]。", question, bunsetsu)
    assert "採用" in reason
    note = chunk_with("ja_w3c_jlreq_line_composition.html", "ぶら下げ組は,岩波書店で採用されたのが最初であり")
    who = check_answer(
        "ぶら下げ組を最初に採用したのは岩波書店です[1]。",
        "簡便な行組版ルール（案）では、ぶら下げ組を最初に採用したのはどこですか？",
        [Passage(1, note, note.text)],
    )
    assert [c.status for c in who.claims] == ["verified"]
    # a field names by its label what was done: "場所: トヨタ自動車 名古屋オフィス" is where the meeting was held
    minutes = chunk_with("ja_openchain_jwg_minutes_20180613.pdf", "場所: トヨタ自動車")
    held = check_answer(
        "2018年6月13日のOpenChain Japan Working会合が開催されたのはトヨタ自動車 名古屋オフィスです[1]。",
        "2018年6月13日のOpenChain Japan Working会合が開催されたのはどこですか？",
        [Passage(1, minutes, minutes.text)],
    )
    assert [c.status for c in held.claims] == ["verified"]


@needs_realdocs
def test_a_value_picked_from_a_table_row_read_without_its_columns_is_not_verified() -> None:
    """pTeX's table of directions comes out of the PDF as "横組縦組DtoU 方向縦数式ディレクション" over
    "字送り方向水平右向き(→)垂直下向き(↓)垂直上向き(↑)垂直下向き(↓)". Asked the DtoU direction's character advance, the
    model answered the first column's 水平右向き(→), and the row held every word of it: verified."""
    table = chunk_with("ja_ptex_manual.pdf", "字送り方向水平右向き(→)垂直下向き(↓)垂直上向き(↑)")
    question = "pTeXのDtoU方向では、字送り方向はどちら向きになりますか？"
    reason = refusal_reason("pTEXのDtoU方向では、字送り方向は水平右向き(→)になります[1]。", question, table)
    assert "table row" in reason and "DtoU" in reason


@needs_realdocs
def test_a_syntax_line_with_a_placeholder_hands_the_question_back() -> None:
    """Asked in Japanese which option of \\listfiles adds each file's MD5 hash, the model copied the guide's syntax
    line "\\listfiles [⟨options⟩]": shown as verified on the sentence listing the options. ⟨options⟩ names none."""
    guide = chunk_with("en_latex_usrguide.pdf", "hashes Adds the MD5 hash")
    question = "LaTeXの \\listfiles で、各ファイルのMD5ハッシュも一覧に出したい場合、どのオプションを指定しますか？"
    reason = refusal_reason("\\listfiles [⟨options⟩][1]", question, guide)
    assert reason == RESTATES_ONLY_REASON


@needs_realdocs
def test_a_bare_amount_is_the_one_the_passages_give_for_what_the_question_asks() -> None:
    """H.R. 815 gives Israel "$4,000,000,000 … for the procurement of the Iron Dome and David's Sling defense systems"
    and, in the next proviso, "$1,200,000,000 … for the procurement of the Iron Beam defense system … in addition to
    funds provided pursuant to the U.S.-Israel Iron Dome Procurement Agreement". A bare "$1,200,000,000" to the Iron
    Dome question was verified on that second passage, which holds Israel, procurement and Iron Dome and no other
    amount. Asked the same in Japanese, the right bare "$4,000,000,000" was refused: the English proviso holds none of
    the question's Japanese words, and they were counted against it."""
    iron_beam = chunk_with("en_us_bill_hr815_2024.pdf", "$1,200,000,000 shall be for", "Iron Beam defense system")
    iron_dome = chunk_with("en_us_bill_hr815_2024.pdf", "$4,000,000,000 shall be for")
    assert "$4,000,000,000" not in iron_beam.text
    passages = [Passage(1, iron_beam, iron_beam.text), Passage(2, iron_dome, iron_dome.text)]
    english = "How much does H.R. 815 provide for Israel to procure the Iron Dome and David's Sling defense systems?"
    wrong = check_answer("$1,200,000,000 [1]", english, passages)
    assert [c.status for c in wrong.claims] == ["unsupported"]
    assert "$4,000,000,000" in wrong.claims[0].reason
    assert [c.status for c in check_answer("$4,000,000,000", english, passages).claims] == ["reattributed"]
    japanese = (
        "米国の法案H.R. 815で、イスラエル政府がアイアンドームとダビデスリング（David's Sling）を調達するための"
        "資金として充てられている額はいくらですか？"
    )
    right = check_answer("$4,000,000,000", japanese, passages)
    assert [(c.status, c.cited) for c in right.claims] == [("reattributed", (2,))]
    assert [c.status for c in check_answer("12億ドルです。", japanese, passages).claims] == ["unsupported"]


# ---- right answers the checks refused (untuned questions over the real documents) ------------------------------------


def verdicts(answer: str, question: str, *chunks: Chunk) -> list[str]:
    """The status of each claim of ``answer``, written from ``chunks`` (passages 1, 2, … in that order)."""
    checked = check_answer(answer, question, [Passage(n, c, c.text) for n, c in enumerate(chunks, 1)])
    return [c.status + (f": {c.reason}" if c.reason else "") for c in checked.claims]


@needs_realdocs
def test_a_verb_asked_after_a_subject_of_several_words_is_that_verb() -> None:
    """Asked which operating system the Normal World part of mTower runs on, the model answered, citing nothing,
    "The Normal World part of mTower runs on FreeRTOS operating system." The section says "Normal World is an
    application that runs under FreeRTOS operating system", and the answer was refused for not saying "part": the
    question's verb was read as the word after "Normal World"."""
    section = chunk_with("en_mtower_functionality_description.md", "runs under FreeRTOS operating system")
    question = "Which operating system does the Normal World part of mTower run on?"
    assert verdicts("The Normal World part of mTower runs on FreeRTOS operating system.", question, section) == [
        "reattributed"
    ]
    assert verdicts("The Normal World part of mTower runs on Zephyr.", question, section)[0].startswith("unsupported")


@needs_realdocs
def test_a_denial_of_another_predicate_beside_the_claim_s_words_does_not_oppose_it() -> None:
    """The simplified line composition rules say that choosing 行頭そろえ avoids the problem of 行の調整処理. The
    model said so, citing nothing, and was refused as "the opposite": another passage restating as many of its words
    says that English composition, adjusting lines, is "それほど複雑ではない" (denying 複雑) and that a rule "…分割を
    禁止することで回避できる" (forbidding 分割). A denial of what the claim says still opposes it."""
    avoids = chunk_with("ja_w3c_jlreq_line_composition.html", "この方法にすれば,行の調整処理の問題は回避できる")
    english = chunk_with("ja_w3c_jlreq_line_composition.html", "それほど複雑ではない")
    question = "日本語組版で行頭そろえを選ぶと、どの問題を避けられると簡便な行組版ルールは述べていますか？"
    assert verdicts("行頭そろえを選ぶと、行の調整処理の問題を回避できる。", question, avoids, english) == [
        "reattributed"
    ]
    assert verdicts("行頭そろえを選ぶと、行の調整処理の問題は回避できない。", question, avoids, english)[0].startswith(
        "unsupported"
    )


@needs_realdocs
def test_katakana_words_that_render_the_file_s_name_name_the_document() -> None:
    """Asked what the OSS compliance pamphlet (``ja_oss_compliance_pamphlet.docx``) advises after fixing a bug, the
    model answered "OSSコンプライアンスのパンフレットは、…もとのOSSの開発者へ提供することをお勧めします", which the
    pamphlet says; refused, as if コンプライアンス and パンフレット were words the sentence had to hold, and as if no
    passage mentioned them. They say which document, as "compliance" and "pamphlet" do in its file name."""
    advice = chunk_with("ja_oss_compliance_pamphlet.docx", "もとのOSSの開発者へ提供することをお勧めします")
    question = "OSSコンプライアンスのパンフレットは、OSSのバグを直したときにどうするよう勧めていますか？"
    claim = (
        "OSSコンプライアンスのパンフレットは、OSSのバグを直したときに、もとのOSSの開発者へ提供することをお勧めします。"
    )
    assert verdicts(claim, question, advice) == ["reattributed"]
    wrong = "OSSコンプライアンスのパンフレットは、OSSのバグを直したときに、社内だけで共有することをお勧めします。"
    assert verdicts(wrong, question, advice)[0].startswith("unsupported")


@needs_realdocs
def test_a_bare_answer_is_read_without_the_question_s_setting_and_the_kind_it_asks_for() -> None:
    """Asked which company raised the supply-chain problem at the 2018-06-13 meeting, the model answered "ソニー";
    the minutes' line is "(4) サプライチェーンにおける問題提起(ソニー)". Read with the whole question, the line lacked
    its date, "OpenChain" and 会社 (the kind of thing asked for), and the answer was refused. The date and the name are
    the question's premises, which the minutes give in their header; another company's line is still no answer."""
    minutes = chunk_with("ja_openchain_jwg_minutes_20180613.pdf", "サプライチェーンにおける問題提起")
    question = "2018年6月13日のOpenChain Japan WG会合で、サプライチェーンにおける問題提起をしたのはどの会社ですか？"
    assert verdicts("ソニー", question, minutes) == ["reattributed"]
    assert verdicts("トヨタ", question, minutes)[0].startswith("unsupported")


@needs_realdocs
def test_a_count_with_its_counter_is_found_in_a_number_counting_the_noun_after_it() -> None:
    """The MHLW material chose "資料2-2に掲載した50の裁判例に関する評釈". Asked for how many cases commentaries were
    chosen, the model answered "…50件の裁判例についての評釈を選んでいます" and was refused: a count with its counter
    (件) must meet the same counter, and the sentence writes 50 bare, before the noun it counts. Another count is still
    not found there, nor is a single digit, which stands bare before の everywhere."""
    method = chunk_with("ja_mhlw_worker_status_caselaw_method.pdf", "50の裁判例に関する評釈を選定した")
    question = "厚労省の資料で、評釈の選定では何件の裁判例についての評釈を選んでいますか？"
    claim = "厚労省の資料で、評釈の選定では{}件の裁判例についての評釈を選んでいます[1]。"
    assert verdicts(claim.format(50), question, method) == ["verified"]
    assert verdicts(claim.format(49), question, method)[0].startswith("unsupported: not in the cited text")
    sentence = "資料2-2に掲載した50の裁判例に関する評釈を選定した"
    assert fact_found(facts_of("50件")[0], facts_of(sentence), sentence)
    assert not fact_found(facts_of("5件")[0], facts_of("5の裁判例"), "5の裁判例")


@needs_realdocs
def test_a_legend_mark_is_read_with_its_own_meaning() -> None:
    """The MHLW method's legend gives four marks a meaning each ("・○:労働者性を肯定する方向の事情", "・●:…否定する
    方向の事情"). The answer's "厚労省の裁判例資料の表記で、" copies where the question looks: the line that answers
    does not repeat it, and the right answer was replaced by the evidence. A claim giving ● the meaning of ○ or ▲
    must not be verified: the rows share every word but the mark and 肯定/否定."""
    legend = chunk_with("ja_mhlw_worker_status_caselaw_method.pdf", "・●:労働者性を否定する方向の事情")
    question = "厚労省の裁判例資料の表記で、●の記号はどんな事情を表していますか？"
    passages = [Passage(1, legend, legend.text)]

    def status(answer: str) -> str:
        return check_answer(answer, question, passages).claims[0].status

    assert status("厚労省の裁判例資料の表記で、●の記号は労働者性を否定する方向の事情を表しています。") != "unsupported"
    assert status("厚労省の裁判例資料の表記で、●の記号は労働者性を肯定する方向の事情を表しています。") == "unsupported"
    assert status("●は労働者性を肯定することと矛盾しない事情です[1]。") == "unsupported"  # that is △
    assert status("○は労働者性を否定する方向の事情です[1]。") == "unsupported"
    assert status("△は労働者性を肯定することと矛盾しない事情です[1]。") == "verified"


def test_a_mark_opening_a_line_is_a_bullet_and_no_fact() -> None:
    assert [f.text for f in facts_of("●の記号は否定する方向")] == ["●"]
    assert [f.text for f in facts_of("・○:肯定する方向の事情")] == ["○"]
    assert facts_of("■ 見出し\n○ 表記方法") == ()


def test_only_the_question_own_opening_phrase_is_left_out_of_a_claim() -> None:
    question = "In the OSS compliance pamphlet, who should a fix be given to?"
    assert without_framing("In the OSS compliance pamphlet, fixes go to the original developers.", question) == (
        "fixes go to the original developers."
    )
    # a phrase of the answer's own is what it says
    assert without_framing("In most cases, fixes go to the original developers.", question).startswith("In most")
    assert without_framing("デジタル庁のルールでは、Shift_JISは使わない。", "デジタル庁のルールでは何を使う？") == (
        "Shift_JISは使わない。"
    )


@needs_realdocs
def test_a_value_list_is_read_with_the_sentence_that_says_what_it_lists() -> None:
    """Asked in Japanese which compilers mTower's Toolchain Selection offers, the model gave the right list, "GCC
    6.1q1, GCC 6.1q2, GCC 8q4"; the sentence holding it, "Options are GCC 6.1q1, …", leaves what it lists to the one
    before ("*Toolchain Selection* submenu lets you select toolchain…"), so it was refused as not speaking of what
    the question asks, and the right answer was replaced by the evidence. A release code (6.1q1) is one identifier,
    not the number 6.1: a list of them with their names is names alone, checked read with its question."""
    chunk = chunk_with("en_mtower_functionality_description.md", "Options are GCC 6.1q1")
    question = "mTowerをビルドするとき、Toolchain Selectionで選べるコンパイラはどれですか？"
    passages = [Passage(1, chunk, chunk.text)]
    (right,) = check_answer("GCC 6.1q1, GCC 6.1q2, GCC 8q4 [1]", question, passages).claims
    assert right.status == "verified", right.reason
    (wrong,) = check_answer("GCC 6.1q1, GCC 7q3 [1]", question, passages).claims
    assert wrong.status == "unsupported"
    assert [f.text for f in facts_of("GCC 6.1q1") if f.kind == "identifier"] == ["6.1q1"]


@needs_realdocs
def test_an_encoding_named_in_english_ties_a_claim_to_a_japanese_rule(e5_embedder: Embedder) -> None:
    """The Digital Agency's rule L3-08 ends "…既定の設定ではファイル作成・出力時にShift-JISが適用される仕様が一般的
    であること". Asked in English which encoding Windows spreadsheets apply by default, the model answered right in
    English; "Shift-JIS" was no fact (only its "JIS"), so nothing tied the English claim to the Japanese row, and the
    answer was replaced by the evidence."""
    row = chunk_with("ja_digital_agency_machine_readability_rules.csv", "Shift-JISが適用される")
    question = (
        "The Digital Agency machine-readability rules discuss character encodings for CSV exchange. Which encoding "
        "do standard Windows spreadsheet programs apply by default when creating or exporting a file?"
    )
    passages = [Passage(1, row, row.text)]
    relevance = embedding_relevance(e5_embedder)
    answer = (
        "The standard Windows spreadsheet programs apply by default the Shift-JIS encoding when creating or exporting "
        "a file [1]."
    )
    (right,) = check_answer(answer, question, passages, relevance).claims
    assert right.status == "verified", right.reason
    (wrong,) = check_answer(answer.replace("Shift-JIS", "EUC-JP"), question, passages, relevance).claims
    assert wrong.status == "unsupported"


@needs_realdocs
def test_a_record_field_name_is_no_word_an_english_claim_shares_with_a_japanese_record() -> None:
    """Asked what pet persona AM has, "Persona AM has a dog" was verified on "interlocutor_id: AM\\npersona:
    中年女性だ。": the record's field names made it read as English, and "persona" and "AM" were half the claim's
    words, so "Persona AM is a young man" would have been verified too. A record's language is its values', and a
    lone kanji between particles is a word the claim adds (猫 of "AMは猫を飼っています"), no counter or ending."""
    record = chunk_with("ja_realpersonachat_interlocutors_sample.jsonl", "persona: ロボット犬を飼っている。")
    passages = [Passage(1, record, record.text)]

    def status(answer: str, question: str = "What kind of pet does persona AM have?") -> str:
        return check_answer(answer, question, passages).claims[0].status

    assert status("Persona AM is a young man [1].") == "unsupported"
    assert status("Persona AM has a cat [1].") == "unsupported"
    asked = "ペルソナAMはどんなペットを飼っていますか？"
    assert status("AMは猫を飼っています[1]。", asked) == "unsupported"
    assert status("AMはロボット犬を飼っています[1]。", asked) == "verified"


@needs_realdocs
def test_a_japanese_name_a_claim_adds_must_be_in_its_evidence() -> None:
    """The 2018-06-13 minutes say "場所: トヨタ自動車 名古屋オフィス". "会合はトヨタ自動車の東京オフィスで開かれました"
    held every word of it but 東京, and a place or company in kanji or katakana was no fact the checks compared."""
    minutes = chunk_with("ja_openchain_jwg_minutes_20180613.pdf", "13:30-17:00")
    question, passages = (
        "2018年6月13日のOpenChain Japan WG会合はどこで開かれましたか？",
        [Passage(1, minutes, minutes.text)],
    )

    def status(answer: str) -> str:
        return check_answer(answer, question, passages).claims[0].status

    assert status("会合はトヨタ自動車の名古屋オフィスで開かれました[1]。") == "verified"
    assert status("会合はトヨタ自動車の東京オフィスで開かれました[1]。") == "unsupported"
    assert status("会合はソニーの名古屋オフィスで開かれました[1]。") == "unsupported"


@needs_realdocs
def test_an_attendee_line_is_no_evidence_of_another_attendee() -> None:
    """The minutes list attendees a line each ("Shinsuke Kato – Panasonic", "Ayumi Watanabe – Hitachi Solutions").
    Asked which company Shinsuke Kato is from, "Shinsuke Kato is from Hitachi Solutions" was verified on the next
    attendee's line: the name was the question's premise, needing no proof, and two lines side by side could be
    read as one window."""
    minutes = chunk_with("ja_openchain_jwg_minutes_20180613.pdf", "13:30-17:00")
    question, passages = (
        "Which company is Shinsuke Kato from, according to the attendee list?",
        [Passage(1, minutes, minutes.text)],
    )
    (right,) = check_answer("Shinsuke Kato is from Panasonic [1].", question, passages).claims
    assert right.status == "verified", right.reason
    for wrong in ("Shinsuke Kato is from Hitachi Solutions [1].", "Shinsuke Kato is from Toyota Motor East [1]."):
        assert check_answer(wrong, question, passages).claims[0].status == "unsupported", wrong


@needs_realdocs
def test_a_bound_or_a_side_turned_round_is_not_verified() -> None:
    """ "1,850 feet or less" bounds from above what "more than 1,850 feet" bounds from below; "150 名を超える" is no
    "fewer than 150"; 事後 is not 事前, a 男性 no 女性: each wrong claim held every other word of its evidence."""
    bill = chunk_with("en_us_bill_hr815_2024.pdf", "1,850 feet")
    asked = "In H.R. 815's data broker division, how precise does location data have to be?"
    right = "It must identify the location within a range of 1,850 feet or less [1]."
    assert check_answer(right, asked, [Passage(1, bill, bill.text)]).claims[0].status == "verified"
    turned = right.replace("1,850 feet or less", "more than 1,850 feet")
    assert check_answer(turned, asked, [Passage(1, bill, bill.text)]).claims[0].status == "unsupported"
    assert bound_reversed("feedback from fewer than 150 contributors", "150 名を超える寄稿者からのフィードバック")
    pamphlet = chunk_with("ja_oss_compliance_pamphlet.docx", "事前に他社と合意")
    asked = (
        "OSSコンプライアンスのパンフレットでは、他社から部品を調達する場合、OSSについて何をしておくよう勧めていますか？"
    )
    after = "他社から調達する場合は、OSSの確認方法を事後に他社と合意すればよいとしています[1]。"
    assert check_answer(after, asked, [Passage(1, pamphlet, pamphlet.text)]).claims[0].status == "unsupported"
    persona = chunk_with("ja_realpersonachat_interlocutors_sample.jsonl", "ヒトカラが趣味")
    asked, passages = "ペルソナAEの人はどんな人ですか？", [Passage(1, persona, persona.text)]
    assert check_answer("AEの人は、ドライブと写真が趣味の30代女性会社員です[1]。", asked, passages).main_claim_failed


def test_a_length_in_other_units_is_another_fact() -> None:
    """ "1,850 meters" is no "1,850 feet": a number's unit of length or weight is part of it."""
    (meters,) = facts_of("within a range of 1,850 meters or less")
    assert not fact_found(meters, facts_of("within a range of 1,850 feet or less"), "1,850 feet or less")
    assert fact_found(meters, facts_of("a range of 1,850 metres"), "a range of 1,850 metres")


_SWAPPED_REPLY = "AAさんが「今まで我慢した分、発散しましょう!」と言い、ABさんは自分もバイトをしていると返しました[1]。"


@needs_realdocs
@pytest.mark.parametrize(
    ("needle", "question", "right", "wrong", "reason"),
    [
        # "AA: 趣味は旅行です!" is AA's line; the claim giving it to AB was verified with AB's next line ("AB:
        # いいですね!") in the window, which named AB
        (
            "趣味は旅行です",
            "チャット00004で、自分の趣味を旅行だと言ったのは誰ですか？",
            "AAさんは、趣味は旅行だと言っています[1]。",
            ["ABさんは、趣味は旅行だと言っています[1]。"],
            "AA",
        ),
        # "AB: いいなー!\n私は、イギリスとフランスだけ行ったことあります。" is AB's turn, the window cutting it after
        # "いいなー!": the line without a speaker went unowned, and an English claim shares no word with a Japanese
        # line; its names heard there (UK / イギリス) do
        (
            "イギリスとフランスだけ行ったことあります",
            "In chat log 00004, which countries has AB been to?",
            "AB has been to the UK and France [1].",
            ["AA has been to both the UK and France [1]."],
            "to AB, not AA",
        ),
        # "AB: いいですね!今まで我慢した分、発散しましょう!" is AB's reply to AA's バイト. A claim giving the line to AA
        # and a reply to AB names both, and was verified on AB's turn alone, which names neither; a subject after
        # Japanese text opens its clause too ("その後AAさんが")
        (
            "今まで我慢した分、発散しましょう",
            "チャット00004で、AAさんがコロナが落ち着くのを待って今バイトなどをしていると言ったとき、"
            "ABさんはどう返しましたか？",
            "ABさんは「いいですね!今まで我慢した分、発散しましょう!」と返しました[1]。",
            [_SWAPPED_REPLY, "その後" + _SWAPPED_REPLY],
            "to AB, not AA",
        ),
        # "AA: 遠距離恋愛ですね!すごい聞きたいです!" is AA's line; "ABさんのほうが" (the one of the two who…) names AB
        # as the subject, and was read as no subject at all
        (
            "遠距離恋愛ですね",
            "チャット00004で、ABさんが結婚前にイギリス駐在中の夫に会いに行ったと話したとき、AAさんはどう反応しましたか？",
            "AAさんは「遠距離恋愛ですね」と言って、その話をすごく聞きたいと言いました[1]。",
            ["ABさんのほうが「遠距離恋愛ですね」と言い、AAさんに詳しく聞きたいと頼みました[1]。"],
            "to AA, not AB",
        ),
    ],
)
def test_a_chat_line_is_given_to_its_own_speaker(
    needle: str, question: str, right: str, wrong: list[str], reason: str
) -> None:
    chat = chunk_with("ja_chat_realpersonachat_00004.json", needle)
    passages = [Passage(1, chat, chat.text)]
    (verified,) = check_answer(right, question, passages).claims
    assert verified.status == "verified", verified.reason
    for answer in wrong:
        (refused,) = check_answer(answer, question, passages).claims
        assert refused.status == "unsupported" and reason in refused.reason


@needs_realdocs
def test_a_verb_stem_after_a_noun_is_no_word_the_claim_shares() -> None:
    """Persona AB's hobby is お菓子作り and her favourite food 餃子. "ABの人の趣味は餃子作りです" shared the pair 子作
    (of 餃子作り, 菓子作り) with the record, half of what it added: 作 is the stem of 作り, and 餃子 the answer."""
    record = chunk_with("ja_realpersonachat_interlocutors_sample.jsonl", "生まれも育ちも神戸")
    question, passages = "ペルソナABの人の趣味は何ですか？", [Passage(1, record, record.text)]
    assert check_answer("ABの人の趣味はお菓子作りです[1]。", question, passages).claims[0].status == "verified"
    assert check_answer("ABの人の趣味は餃子作りです[1]。", question, passages).claims[0].status == "unsupported"


@needs_realdocs
def test_across_languages_every_part_of_a_claim_needs_a_fact_of_its_own(e5_embedder: Embedder) -> None:
    """Persona AR's record says "また、ダンスを11年続けています" and "運動は苦手". Across languages the claim's facts
    carry the check, so "Persona AR, who is good at sports, has kept up dancing for 11 years" was verified by its 11
    years, the clause no check could read included."""
    record = chunk_with("ja_realpersonachat_interlocutors_sample.jsonl", "ダンスを11年続けています")
    question, passages = "How long has persona AR kept up dancing?", [Passage(1, record, record.text)]
    relevance = embedding_relevance(e5_embedder)

    def status(answer: str) -> str:
        return check_answer(answer, question, passages, relevance).claims[0].status

    assert status("Persona AR has kept up dancing for 11 years [1].") == "verified"
    assert status("Persona AR, who is good at sports, has kept up dancing for 11 years [1].") == "unsupported"


@needs_realdocs
def test_two_values_given_the_other_way_round_are_not_verified() -> None:
    """The pTeX manual gives "1 zw = 9.62216 pt, 1 zh = 9.16443 pt" for min10.tfm; the claim with the two values
    swapped held both numbers and both units, so nothing was missing."""
    manual = chunk_with("ja_ptex_manual.pdf", "1 zw = 9.62216 pt")
    question, passages = (
        "pTeXの標準和文フォントメトリックmin10.tfmでは、1zwと1zhはそれぞれ何ptですか？",
        [Passage(1, manual, manual.text)],
    )
    right = check_answer("min10.tfmでは、1 zw = 9.62216 pt、1 zh = 9.16443 ptです[1]。", question, passages)
    assert right.claims[0].status == "verified", right.claims[0].reason
    swapped = check_answer("min10.tfmでは、1 zw = 9.16443 pt、1 zh = 9.62216 ptです[1]。", question, passages)
    assert swapped.claims[0].status == "unsupported" and "other way round" in swapped.claims[0].reason


@needs_realdocs
def test_a_claim_joining_an_affirmation_and_a_denial_is_read_by_the_part_its_evidence_restates() -> None:
    """mTower's table says "| TEEC_RegisterSharedMemory | No | |" under "Implemented". "Yes, … is implemented but
    not tested" was verified: its "not" counted the whole claim as a denial, agreeing with the row's No."""
    table = chunk_with("en_mtower_functionality_description.md", "| TEEC_RegisterSharedMemory |")
    question, passages = "Does mTower implement TEEC_RegisterSharedMemory?", [Passage(1, table, table.text)]
    wrong = check_answer("Yes, TEEC_RegisterSharedMemory is implemented but not tested [1].", question, passages)
    assert wrong.claims[0].status == "unsupported"
    right = check_answer("No, TEEC_RegisterSharedMemory is not implemented [1].", question, passages)
    assert right.claims[-1].status == "verified"


@needs_realdocs
def test_a_condition_written_without_a_comma_picks_its_case() -> None:
    """The line composition rules give the 和字間隔 of 分かち書き a full-width space at a line's end and none at its
    start. "はい、和字間隔が行頭に配置される場合も全角アキを確保します" wrote its condition without a comma, so the
    clause comparison saw no condition, and the answer was verified on the line-end case; the right "いいえ" was
    refused."""
    rules = chunk_with("ja_w3c_jlreq_line_composition.html", "分かち書き文書の要件")
    question = "分かち書きで、区切りに使う和字間隔が行頭に来た場合も、全角分のアキを確保しますか？"
    passages = [Passage(1, rules, rules.text)]
    wrong = check_answer("はい、和字間隔が行頭に配置される場合も全角アキを確保します[1]。", question, passages)
    assert wrong.main_claim_failed
    right = check_answer("いいえ、和字間隔が行頭に配置される場合は全角アキを確保しません[1]。", question, passages)
    assert not right.main_claim_failed, right.claims


def test_an_acronym_is_found_where_the_text_writes_it_out() -> None:
    """ "GPLv3では、最低3年間" rests on "GNU General Public License version 3 の「最低3 年間…」"; "GPLv2" does not,
    and an attendee list's "Shane Coughlan – LF" names the Linux Foundation."""
    (gpl3,) = [f for f in facts_of("GPLv3では") if f.kind == "identifier"]
    (gpl2,) = [f for f in facts_of("GPLv2では") if f.kind == "identifier"]
    text = "例としてGNU General Public License version 3 の「最低3 年間…」"
    assert fact_found(gpl3, facts_of(text), text) and not fact_found(gpl2, facts_of(text), text)
    (foundation,) = facts_of("from the Linux Foundation")
    assert fact_found(foundation, (), "Shane Coughlan – LF")
    assert not fact_found(foundation, (), "Shane Coughlan – LFX")


@needs_realdocs
def test_a_long_place_name_does_not_outweigh_the_word_a_claim_adds_wrongly() -> None:
    """Persona AQ is "愛媛県松山市出身" and a 専業主婦. "AQの人は愛媛県松山市の出身で、会社員です" held the five
    kanji pairs of the place against the two of 会社員: a name counts as one word."""
    record = chunk_with("ja_realpersonachat_interlocutors_sample.jsonl", "interlocutor_id: AQ", "愛媛県松山市出身")
    question, passages = "ペルソナAQの人はどこの出身ですか？", [Passage(1, record, record.text)]
    assert check_answer("AQの人は愛媛県松山市の出身です[1]。", question, passages).claims[0].status == "verified"
    wrong = check_answer("AQの人は愛媛県松山市の出身で、会社員です[1]。", question, passages)
    assert wrong.claims[0].status == "unsupported"


@needs_realdocs
def test_a_liking_is_not_verified_on_a_dislike() -> None:
    """Persona AF is "辛党でケーキの生クリームが苦手だ"; "AFの人は甘党で、ケーキの生クリームが大好きです" held its
    other words."""
    record = chunk_with("ja_realpersonachat_interlocutors_sample.jsonl", "辛党でケーキの生クリームが苦手だ")
    question, passages = "ペルソナAFの人は、食べ物で何が苦手ですか？", [Passage(1, record, record.text)]
    wrong = check_answer("AFの人は甘党で、ケーキの生クリームが大好きです[1]。", question, passages)
    assert wrong.claims[0].status == "unsupported"
    right = check_answer("AFの人はケーキの生クリームが苦手です[1]。", question, passages)
    assert right.claims[0].status == "verified", right.claims[0].reason


_SET_ASIDE = ("ja_oss_license_misunderstandings_faq.pdf", "著作者名ではなく")
_COPYRIGHT_NOTICE = "OSSライセンスの誤解FAQによると、著作権表示には一般的に何を記載しますか？"
_RESPECTIVELY_EXAMPLE = ("ja_ptex_manual.pdf", '\\char\\euc"B0A5')
_WHICH_CHARACTER = 'pTeXマニュアルの例で、\\char\\euc"B0A5 はどの文字になりますか？'


@needs_realdocs
@pytest.mark.parametrize(
    ("passage", "question", "answer", "status", "reason_holds"),
    [
        # the FAQ: a copyright notice gives, "著作者名ではなく", the ©, the first year and the holder's name
        (
            _SET_ASIDE,
            _COPYRIGHT_NOTICE,
            "「©のマーク」「最初の発行年」「著作者名」の3点を記載します[1]。",
            "unsupported",
            "著作者名",
        ),
        (
            _SET_ASIDE,
            _COPYRIGHT_NOTICE,
            "「©のマーク」「最初の発行年」「著作権者の名前」の3点を記載します[1]。",
            "verified",
            "",
        ),
        # the pTeX manual: "\\char\\jis"346E,\\char\\euc"B0A5,\\char\\sjis"8A79 は,それぞれ「喜」,「哀」,「楽」である"
        (_RESPECTIVELY_EXAMPLE, _WHICH_CHARACTER, '\\char\\euc"B0A5 は「喜」です[1]。', "unsupported", "respectively"),
        (_RESPECTIVELY_EXAMPLE, _WHICH_CHARACTER, '\\char\\euc"B0A5 は「哀」です[1]。', "verified", ""),
    ],
)
def test_a_value_set_aside_or_given_to_another_item_is_not_verified(
    passage: tuple[str, str], question: str, answer: str, status: str, reason_holds: str
) -> None:
    """A claim listing what the text sets aside ("著作者名ではなく"), or pairing an item of a "respectively" sentence
    with another item's value, held every other word of its evidence and was verified."""
    chunk = chunk_with(*passage)
    (claim,) = check_answer(answer, question, [Passage(1, chunk, chunk.text)]).claims
    assert claim.status == status, claim.reason
    assert reason_holds in claim.reason
