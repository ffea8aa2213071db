"""A difference or a sum the question asks for is worked out from the answer's checked figures, and shown as
computed."""

from __future__ import annotations

import json
from pathlib import Path

from test_claims import chunk_with, chunks_of, embedding_relevance, needs_realdocs

from rag.answers.claims import check_claim
from rag.answers.draft import AnswerDraft
from rag.answers.premises import premises
from rag.answers.worked_figures import asks_difference, counted_list, timed_span, worked_difference, worked_total
from rag.evaluation.answers import evaluate_answers
from rag.models.embedding import Embedder
from rag.records import Chunk, ClaimVerdict, Hit
from rag.settings import Settings
from tests.scripted_llm import ScriptedLLM

APPLIES = "beginning on the date that is 270 days after the date of"
CHALLENGE = "challenge to this division, not later than 165 days"
BYTEDANCE, TIKTOK = "(i) ByteDance, Ltd.", "(ii) TikTok;"  # the clauses naming them, read among the passages


@needs_realdocs
def test_the_days_between_two_deadlines_of_the_bill_are_worked_out_and_marked_as_computed(tmp_path: Path) -> None:
    """Asked how far apart the app ban and the deadline for challenging the division are, the model copied both
    deadlines right (270 and 165 days, two sections of H.R. 815) and left the subtraction out: the answer never said
    105 days. The engine now adds the line, cites both passages, and says that no passage states the result."""
    applies = chunk_with("en_us_bill_hr815_2024.pdf", APPLIES)
    challenge = chunk_with("en_us_bill_hr815_2024.pdf", CHALLENGE)
    question = (
        "The TikTok and ByteDance app ban begins some days after enactment, and a lawsuit against that division has "
        "to be brought sooner. How many days apart are the two dates?"
    )
    reply = (
        "The ban on ByteDance/TikTok apps starts 270 days after the date of the bill's enactment [1], while a court "
        "challenge to the division itself must be filed within 165 days after the date of the bill's enactment [2]."
    )
    named = [chunk_with("en_us_bill_hr815_2024.pdf", needle) for needle in (BYTEDANCE, TIKTOK)]
    hits = [Hit(applies, 1.0), Hit(challenge, 0.9), *(Hit(chunk, 0.8) for chunk in named)]
    answer = AnswerDraft(ScriptedLLM([reply]), question, hits, Settings()).finish()
    assert not answer.model_answer, answer.message
    assert "270 days − 165 days = 105 days" in answer.answer
    computed = [c for c in answer.claims if c.status == "computed"]
    assert len(computed) == 1 and set(computed[0].cited) == {1, 2}
    assert "no passage states" in answer.message

    class Service:  # what `evaluate --answers` reads: the draft, and the chunks as stored
        def prepare_answer(self, asked: str) -> AnswerDraft:
            return AnswerDraft(ScriptedLLM([reply]), asked, hits, Settings())

        def neighbours(self, chunk_id: str, window: int = 1) -> list[Chunk]:
            return [hit.chunk for hit in hits if hit.chunk.chunk_id == chunk_id]

    golden = tmp_path / "golden.jsonl"
    golden.write_text(json.dumps({"id": "apart", "question": question, "answer_contains": ["105"]}) + "\n", "utf-8")
    summary = evaluate_answers(Service(), golden)["summary"]
    # the sentence holding one deadline from each passage is verified by its two quotes together, not counted as
    # "verified with a fact not in the quote"; the computed line is not shown as verified at all
    assert summary["accuracy"] == 1.0 and summary["verified_with_unsupported_fact"] == 0


@needs_realdocs
def test_a_name_the_question_states_as_a_premise_is_not_what_the_evidence_must_be_about() -> None:
    """The section that says when the ban applies defines the banned applications by a subsection number and never
    names ByteDance or TikTok, which the question names and another section does. The deadline sentence was refused
    as "not about app, ban, bytedance, start"; the question's premises now weigh like the file's name."""
    applies = chunk_with("en_us_bill_hr815_2024.pdf", APPLIES)
    claim = "The ban on ByteDance/TikTok apps starts 270 days after the date of the bill's enactment."
    topic = "How many days after enactment does the ban on ByteDance and TikTok apps start?"
    named = [chunk_with("en_us_bill_hr815_2024.pdf", needle).text for needle in (BYTEDANCE, TIKTOK)]
    given = premises(topic, [applies.text, *named], [applies.source])
    assert {f.value for f in given} >= {"ByteDance", "TikTok"}
    held = check_claim(claim, applies.text, topic=topic, given=given, source=applies.source)
    assert held.supported, held.reason
    wrong = check_claim(claim.replace("270", "180"), applies.text, topic=topic, given=given, source=applies.source)
    assert not wrong.supported and "180" in wrong.reason


def test_questions_that_ask_for_a_difference_are_told_from_those_that_count() -> None:
    for question in (
        "How many days apart are the two deadlines?",
        "How much more does the grant program get than the other one?",
        "What is the difference between the two amounts?",
        "How many years longer is the first term than the second?",
        "How much later does the ban start compared with the deadline for a challenge?",
        "二つの期限の差は何日ですか？",
        "申請期限は審査期限より何日長いですか？",
        "「はい」の回答は「いいえ」に比べてどれくらい多いですか？",
    ):
        assert asks_difference(question), question
    for question in (
        "How many companies have more than 50 employees?",
        "How many days does the waiver last?",
        "What is the difference of opinion about?",  # no "between"/"in": not a figure
        "How many more days can the President extend the date?",  # one figure: nothing to compare it with
        "あと何日多く延長できますか？",
        "差別的な表現は禁止されていますか？",
        "ファイルを差し替えてもよいですか？",
    ):
        assert not asks_difference(question), question


def verified(sentence: str, *cited: int) -> ClaimVerdict:
    return ClaimVerdict(sentence, "verified", cited)


TWO_GRANTS = [verified("The first grant is $390,000,000.", 1), verified("The second is $10,000,000.", 2)]


def test_a_difference_is_worked_out_only_from_two_supported_figures_in_one_unit() -> None:
    question, two = "How much more is the first grant than the second one?", TWO_GRANTS
    line = worked_difference(question, two, "en")
    assert line is not None and line.sentence.endswith("$390,000,000 − $10,000,000 = $380,000,000.")
    assert line.status == "computed" and line.cited == (1, 2)
    unsupported = [two[0], ClaimVerdict("The second is $10,000,000.", "unsupported")]
    assert worked_difference(question, unsupported, "en") is None  # a figure no passage holds is no input
    three = [*two, verified("A third gets $5,000,000.", 3)]
    assert worked_difference(question, three, "en") is None  # which two is ambiguous
    mixed = [two[0], verified("It runs for 180 days.", 2)]
    assert worked_difference(question, mixed, "en") is None  # dollars and days do not subtract
    bare = [verified("Section 5 applies.", 1), verified("Section 3 does not.", 2)]
    assert worked_difference("How many more than that?", bare, "en") is None  # a bare number may be a section's
    assert worked_difference("How much is the first grant?", two, "en") is None  # no difference asked


@needs_realdocs
def test_the_total_of_two_accounts_in_two_divisions_is_worked_out() -> None:
    """H.R. 815 funds "Diplomatic Programs" with $150,000,000 in its Israel division and $60,000,000 in its Ukraine
    division. The model gave both and the right total, $210,000,000, in a sentence of its own: no passage states the
    total, and the first sentence, naming "the State Department" (the bill writes "Department of State") in a
    passage clipped mid-sentence, was refused as "a table row read without its columns". The answer now stands, with
    the sum worked out and shown as computed."""
    israel = chunk_with("en_us_bill_hr815_2024.pdf", "‘‘Diplomatic Programs’’, $150,000,000")
    ukraine = chunk_with("en_us_bill_hr815_2024.pdf", "‘‘Diplomatic Programs’’, $60,000,000")
    question = (
        "H.R. 815 funds the State Department's 'Diplomatic Programs' account in both its Israel division and its "
        "Ukraine division. How much does each provide, and what is the combined total?"
    )
    reply = (
        "The State Department's 'Diplomatic Programs' account in the Israel division receives $150,000,000, while in "
        "the Ukraine division, it receives $60,000,000. The combined total is $210,000,000."
    )
    # the same figures joined by ", and", as the model wrote them on another run
    joined = (
        "The total amount provided for the Israel division is $150,000,000, and the total amount provided for the "
        "Ukraine division is $60,000,000. The combined total is $210,000,000."
    )
    for said in (reply, joined):
        hits = [Hit(israel, 1.0), Hit(ukraine, 0.9)]
        answer = AnswerDraft(ScriptedLLM([said]), question, hits, Settings()).finish()
        assert not answer.model_answer, answer.message
        assert answer.claims[0].status in ("verified", "reattributed") and set(answer.claims[0].cited) == {1, 2}
        assert "$150,000,000 + $60,000,000 = $210,000,000" in answer.answer


def test_a_sum_is_worked_out_only_from_figures_of_several_passages() -> None:
    line = worked_total("What is the combined total of the two grants?", TWO_GRANTS, "en")
    assert line is not None and line.sentence.endswith("$390,000,000 + $10,000,000 = $400,000,000.")
    assert line.status == "computed" and line.cited == (1, 2)
    question, two = "What is the combined total of the two grants?", TWO_GRANTS
    part = [verified("It gets $390,000,000, of which $160,000,000 stays available until 2025.", 1)]
    assert worked_total(question, part, "en") is None  # a whole and its part, from one passage
    assert worked_total("What is the total amount for the first grant?", two, "en") is None  # one figure asked
    line = worked_total(
        "二つの助成の合計はいくらですか？",
        [verified("一つ目は30万円です。", 1), verified("二つ目は20万円です。", 2)],
        "ja",
    )
    assert line is not None and line.sentence.startswith("引用した数値からの計算: 30万円 + 20万円 = ")


def test_the_result_is_written_as_the_figures_are() -> None:
    claims = [verified("回答は37件でした。", 1), verified("上場しているのは17件です。", 1)]
    line = worked_difference("全回答は上場している回答より何件多いですか？", claims, "ja")
    assert line is not None and line.sentence == "引用した数値からの計算: 37件 − 17件 = 20件"
    scaled = [verified("Revenue was 1.2 billion yen.", 1), verified("Costs were 500 million yen.", 2)]
    line = worked_difference("What is the difference between revenue and costs?", scaled, "en")
    assert line is not None and "= 700,000,000" in line.sentence
    asked = [verified("Division 2023 says 90 days.", 1), verified("Another says 30 days.", 2)]
    line = worked_difference("In the 2023 act, how many days longer is the first period than the second?", asked, "en")
    assert line is not None and line.sentence.endswith("90 days − 30 days = 60 days.")


@needs_realdocs
def test_the_items_of_a_numbered_checklist_are_counted_when_the_model_miscounts(e5_embedder: Embedder) -> None:
    """Asked how many checks the OSS pamphlet's management checklist has, the model answered "3" with items (1) to
    (8) before it (the list runs on into the next chunk). The answer falls back to the evidence, and the engine now
    counts the list the best evidence sentence introduces, as a computed line (past the speech bubble
    "これでバッチリ!" drawn beside the lead-in)."""
    chunks = chunks_of("ja_oss_compliance_pamphlet.docx")
    opening = next(c for c in chunks if "以下が含まれているかをチェックしてみてください" in c.text)
    rest = next(c for c in chunks if c.chunk_index == opening.chunk_index + 1)
    assert "(8)" not in opening.text and "(8)" in rest.text  # the list is cut between two chunks
    question = "OSSコンプライアンスのパンフレットで、OSSの管理体制について確認する項目はいくつありますか？"
    hit = Hit(opening, 1.0, context_after=rest.text, following=rest)
    relevance = embedding_relevance(e5_embedder)  # the evidence ranked by meaning too, as the engine ranks it
    answer = AnswerDraft(ScriptedLLM(["3つです[1]。"]), question, [hit], Settings(), relevance=relevance).finish()
    assert answer.model_answer  # the model's "3" holds nowhere: the evidence is shown
    assert "(1)〜(8) の 8項目" in answer.answer
    assert [c.cited for c in answer.claims if c.status == "computed"] == [(1,)]
    without_rest = AnswerDraft(
        ScriptedLLM(["3つです[1]。"]), question, [Hit(opening, 1.0)], Settings(), relevance=relevance
    ).finish()
    assert "項目です" not in without_rest.answer  # cut off at (4): not counted short


LEAD = "Check the following:"


def test_a_list_is_counted_only_when_numbered_from_one_without_a_gap_and_ended() -> None:
    closing = "\n" + "The checks above are kept in one document shared by everyone concerned. " * 2
    items = "\n".join(f"({i}) item {i} is checked" for i in range(1, 5))
    question = "How many checks are there?"
    line = counted_list(question, [], [(1, LEAD, items + closing)], "en")
    assert line is not None and line.sentence.endswith("numbers its items (1) to (4): 4.")
    assert counted_list(question, [], [(1, LEAD, items)], "en") is None  # may go on past the passage
    another_after = counted_list(question, [], [(1, LEAD, items + closing + "\n" + items + closing)], "en")
    assert another_after is not None and another_after.sentence.endswith(": 4.")
    gap = items.replace("(3)", "(5)")
    assert counted_list(question, [], [(1, LEAD, gap + closing)], "en") is None
    not_from_one = items.replace("(1)", "(0)")
    assert counted_list(question, [], [(1, LEAD, not_from_one + closing)], "en") is None
    assert counted_list(question, [], [(1, "The checks are listed.", items + closing)], "en") is None  # no lead-in
    callout = counted_list(question, [], [(1, LEAD, "You are all set!\n" + items + closing)], "en")
    assert callout is not None and callout.sentence.endswith(": 4.")  # a text box's callout before item (1)
    prose = "Some of them are checked by another department before every release.\n"
    assert counted_list(question, [], [(1, LEAD, prose + items + closing)], "en") is None  # not the list that follows
    answered = [verified("There are 4 checks.", 1)]
    assert counted_list(question, answered, [(1, LEAD, items + closing)], "en") is None  # the answer gave one
    circled = "\n".join(f"{'①②③'[i]} 項目" for i in range(3))
    line = counted_list("確認項目はいくつ？", [], [(2, "次の項目を確認します：", circled + closing)], "ja")
    assert line is not None and "①〜③ の 3項目" in line.sentence and line.cited == (2,)
    assert counted_list("What does the list check?", [], [(1, LEAD, items + closing)], "en") is None


@needs_realdocs
def test_the_length_of_a_meeting_is_worked_out_from_its_clock_times(e5_embedder: Embedder) -> None:
    """The minutes give "日時: 2018 年6 月13 日13:30-17:00". Asked how long the meeting lasted, the model answered
    "3 hours", which no passage holds; the evidence is shown, and the engine works the span out."""
    minutes = chunk_with("ja_openchain_jwg_minutes_20180613.pdf", "13:30-17:00")
    question = "How long did the OpenChain Japan WG meeting on June 13, 2018 last?"
    reply = "The meeting lasted 3 hours [1]."
    relevance = embedding_relevance(e5_embedder)
    answer = AnswerDraft(ScriptedLLM([reply]), question, [Hit(minutes, 1.0)], Settings(), relevance=relevance).finish()
    assert answer.model_answer and "13:30-17:00 is 3 hours 30 minutes (3.5 hours)" in answer.answer
    assert [c.status for c in answer.claims][-1] == "computed"


def test_a_time_span_is_measured_only_when_asked_and_unambiguous() -> None:
    shown = [(1, "日時: 2018 年6 月13 日13:30-17:00")]
    line = timed_span("会合は何時間でしたか？", [], shown, "ja")
    assert line is not None and line.sentence == "引用した時刻からの計算: 13:30-17:00 は 3時間30分"
    assert timed_span("What time did it end?", [], shown, "en") is None  # asks a time, not a length
    night = timed_span("How long is the shift?", [], [(2, "Shift: 22:00〜06:30")], "en")
    assert night is not None and "8 hours 30 minutes" in night.sentence  # past midnight
    two = [*shown, (2, "懇親会 18:00-20:00")]
    assert timed_span("会合は何時間でしたか？", [], two, "ja") is None  # which span is meant is unclear
    said = [verified("The meeting lasted 3.5 hours.", 1)]
    assert timed_span("How long did the meeting last?", said, shown, "en") is None  # the answer gave it
