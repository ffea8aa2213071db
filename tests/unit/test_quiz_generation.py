"""Quiz generation: robust parsing, repair, validation, balanced truth, shortfall reasons, no-LLM mode."""

from __future__ import annotations

import json
import random
import unicodedata
from collections import defaultdict
from pathlib import Path

import pytest

from rag.answers.faithfulness import is_question, normalize
from rag.errors import LLMUnavailableError
from rag.quiz.generation import QuizShortfallError, false_count_range, generate_quiz
from rag.quiz.models import Quiz
from rag.quiz.perturbation import perturb
from rag.quiz.pool import ChunkPool
from rag.quiz.restatement import SCHEMA, parse_reply
from rag.quiz.validation import Focus, is_fragment, validate_generated
from rag.records import Chunk
from tests.scripted_llm import ScriptedLLM

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "data"
POLICY = [
    "Remote work overview."
    " Employees may work remotely up to 3 days per week. Remote work requires approval from a manager.",
    "Expense rules."
    " Home office equipment is reimbursed up to 500 dollars per year. Receipts must be submitted within 30 days.",
    "Security procedure."
    " Laptops must be encrypted with BitLocker. Lost devices must be reported to IT within 24 hours.",
    "Travel policy."
    " Economy class is required for flights under 6 hours. Hotel costs are capped at 200 dollars per night.",
    "Leave policy. Employees receive 20 days of paid leave per year. Unused leave can be carried over for 1 year.",
    "Training. New employees must complete security training within 14 days. The training takes about 2 hours.",
]
TRUE_ITEMS = [
    ("Employees may work remotely up to 3 days per week.", "Employees may work remotely up to 3 days per week."),
    (
        "Home office equipment is reimbursed up to 500 dollars per year.",
        "Home office equipment is reimbursed up to 500 dollars per year.",
    ),
    ("Lost devices must be reported to IT within 24 hours.", "Lost devices must be reported to IT within 24 hours."),
    ("Hotel costs are capped at 200 dollars per night.", "Hotel costs are capped at 200 dollars per night."),
    ("Employees receive 20 days of paid leave each year.", "Employees receive 20 days of paid leave per year."),
    (
        "New employees must finish security training within 14 days.",
        "New employees must complete security training within 14 days.",
    ),
]


class Catalog:
    """An in-memory ChunkCatalog (the real one reads SQLite; the protocol is the same)."""

    def __init__(self, docs: dict[str, list[str]]) -> None:
        self.docs = {
            name: [
                Chunk(chunk_id=f"{name}#{i}", text=t, source=name, page=i + 1, chunk_index=i)
                for i, t in enumerate(texts)
            ]
            for name, texts in docs.items()
        }

    def sources(self) -> list[str]:
        return list(self.docs)

    def chunks_of(self, source: str) -> list[Chunk]:
        return self.docs.get(source, [])

    def version(self) -> str:
        return "fixed"  # never written to


def reply(items: list[tuple[str, str]], answer: bool = True) -> str:
    return json.dumps(
        {
            "items": [
                {
                    "statement": s,
                    "type": "true_false",
                    "answer_bool": answer,
                    "explanation": "",
                    "passage": 1,
                    "quote": q,
                }
                for s, q in items
            ]
        }
    )


def assert_well_formed(quiz: Quiz, catalog: Catalog, count: int) -> None:
    chunks = {c.chunk_id: c for c in catalog.docs[quiz.source]}
    document = [normalize(c.text) for c in chunks.values()]
    assert len(quiz.items) == count
    fewest, most = false_count_range(count)
    assert fewest <= sum(not item.answer_bool for item in quiz.items) <= most
    assert len({item.id for item in quiz.items}) == count
    for item in quiz.items:
        assert not is_question(item.statement)
        citation = item.citations[0]
        assert citation.quote in chunks[citation.chunk_id].text  # verbatim
        assert citation.quote in item.explanation
        if not item.answer_bool:  # a false statement is stated nowhere in the document
            assert not any(normalize(item.statement) in text for text in document)


def test_code_fenced_json_is_parsed_with_the_schema_and_false_items_are_perturbations() -> None:
    catalog = Catalog({"policy.md": POLICY})
    llm = ScriptedLLM([f"Here you go:\n```json\n{reply(TRUE_ITEMS[:5])}\n```\nGood luck!"])
    quiz = generate_quiz(llm, catalog, "policy.md", count=5, seed=1)
    assert len(llm.calls) == 1 and llm.schemas[0] == SCHEMA
    assert_well_formed(quiz, catalog, 5)
    falses = [item for item in quiz.items if not item.answer_bool]
    originals = {s for s, _ in TRUE_ITEMS}
    assert all(item.statement not in originals for item in falses)
    assert all(item.explanation.startswith("False: the statement changes") for item in falses)


def test_a_title_is_not_accepted_as_a_statement() -> None:
    chunk = Chunk(
        chunk_id="c1",
        text="## Remote work rules for all staff\nEmployees may work remotely up to 3 days.",
        source="a.md",
    )
    raw = {"statement": "Remote work rules for all staff", "type": "true_false", "answer_bool": True, "passage": 1}
    assert validate_generated(raw, [Focus.whole(chunk)], [chunk]) == "heading_not_statement"
    raw["statement"] = "Employees may work remotely up to 3 days."
    assert not isinstance(validate_generated(raw, [Focus.whole(chunk)], [chunk]), str)


def test_document_sentences_cut_by_a_chunk_boundary_are_not_quiz_statements() -> None:
    fragment = (
        "to the line manager within thirty days of the purchase, together with the original receipts, the project "
        "code and a short note on the business purpose."
    )
    texts = [f"{fragment} {rule}" for rule in (r for r, _q in TRUE_ITEMS)]
    catalog = Catalog({"expenses.md": texts})
    quiz = generate_quiz(ScriptedLLM(name="extractive"), catalog, "expenses.md", count=5, seed=2)
    assert all(not item.statement[0].islower() for item in quiz.items)
    assert all("to the line manager" not in item.statement for item in quiz.items)


@pytest.mark.parametrize("count", [1, 3])
def test_a_short_quiz_is_not_always_false(count: int) -> None:
    catalog = Catalog({"policy.md": POLICY})
    false_counts = []
    for seed in range(12):
        quiz = generate_quiz(ScriptedLLM(name="extractive"), catalog, "policy.md", count=count, seed=seed)
        assert len(quiz.items) == count
        false_counts.append(sum(not item.answer_bool for item in quiz.items))
    fewest, most = false_count_range(count)
    assert set(false_counts) == {fewest, most}  # either neighbour of 40-60 %, so the count gives nothing away


def test_the_false_share_stays_between_40_and_60_percent() -> None:
    for count in range(1, 31):
        fewest, most = false_count_range(count)
        assert 0 <= fewest <= most <= count
        if count in (1, 3):
            assert most == fewest + 1
        else:
            assert 0.4 * count <= fewest and most <= 0.6 * count


def test_broken_json_gets_one_repair_retry_that_shows_the_error() -> None:
    catalog = Catalog({"policy.md": POLICY})
    llm = ScriptedLLM(['{"items": [{"statement": "Employees may work', reply(TRUE_ITEMS)])
    quiz = generate_quiz(llm, catalog, "policy.md", count=5, seed=2)
    assert_well_formed(quiz, catalog, 5)
    assert len(llm.calls) == 2
    repair = llm.calls[1]
    assert repair[-2].role == "assistant" and repair[-2].content.startswith('{"items": [{"statement"')
    assert "could not be used" in repair[-1].content and "JSON" in repair[-1].content


def test_a_failed_llm_call_is_retried_once_and_the_quiz_is_made() -> None:
    catalog = Catalog({"policy.md": POLICY})
    timed_out = LLMUnavailableError("Ollama at http://127.0.0.1:11434 did not answer within 120 s")
    llm = ScriptedLLM([timed_out, reply(TRUE_ITEMS)])
    messages: list[str] = []

    quiz = generate_quiz(llm, catalog, "policy.md", count=5, seed=2, progress=messages.append)

    assert_well_formed(quiz, catalog, 5)
    assert len(llm.calls) == 2 and llm.calls[0] == llm.calls[1]  # the same request again
    assert any("trying once more" in m for m in messages)


def test_an_llm_that_keeps_failing_is_asked_twice_then_the_shortfall_names_it() -> None:
    down = LLMUnavailableError("Ollama is not reachable at http://127.0.0.1:11434: start it with `ollama serve`")
    llm = ScriptedLLM(default=down)

    with pytest.raises(QuizShortfallError, match=r"0 of 4.*The LLM failed twice: .*ollama serve") as caught:
        generate_quiz(llm, Catalog({"notes.md": KEYWORD_NOTES}), "notes.md", count=4, seed=3)

    assert len(llm.calls) == 2  # later rounds do not wait on a dead backend again
    assert caught.value.reasons["llm_failed"] == 2


KEYWORD_NOTES = [  # notes of keywords: no sentence a quiz could state
    "Remote work: 3 days, manager approval, home office, VPN",
    "Expenses: 500 dollars, receipts, 30 days, finance team",
    "Laptops: BitLocker, encryption, IT desk, 24 hours",
    "Hotels: 200 dollars, economy class, 6 hours, travel desk",
]
BAD_REPLY = json.dumps(
    {
        "items": [
            {
                "statement": "Can employees work remotely 3 days per week?",
                "answer_bool": True,
                "explanation": "",
                "passage": 1,
                "quote": "Employees may work remotely up to 3 days per week.",
            },
            {
                "statement": "Laptops must be encrypted with BitLocker.",
                "answer_bool": False,
                "explanation": "",
                "passage": 1,
                "quote": "Laptops must be encrypted with BitLocker.",
            },
            {
                "statement": "Staff get free lunch on Fridays.",
                "answer_bool": True,
                "explanation": "",
                "passage": 1,
                "quote": "Lunch is free every Friday for all staff.",
            },
            {
                "statement": "Hotels are capped.",
                "answer_bool": "yes",
                "explanation": "",
                "passage": 1,
                "quote": "x",
            },
        ]
    }
)


def test_rejected_model_statements_are_replaced_by_the_documents_own_sentences() -> None:
    catalog = Catalog({"policy.md": POLICY})
    llm = ScriptedLLM(default=BAD_REPLY)
    messages: list[str] = []
    quiz = generate_quiz(llm, catalog, "policy.md", count=4, seed=3, progress=messages.append)

    assert_well_formed(quiz, catalog, 4)
    document = [normalize(c.text) for c in catalog.docs["policy.md"]]
    for item in quiz.items:
        assert "free lunch" not in item.statement and not item.statement.startswith("Can ")
        if item.answer_bool:
            assert any(normalize(item.statement) in text for text in document)
    told = " ".join(messages)
    assert "document's own sentences" in told
    for reason in ("question_form", "false_supported", "true_not_supported", "answer_not_bool"):
        assert reason in told


def test_shortfall_names_the_rejection_reasons_when_no_sentence_can_stand_in() -> None:
    catalog = Catalog({"notes.md": KEYWORD_NOTES})
    llm = ScriptedLLM(default=BAD_REPLY)
    with pytest.raises(QuizShortfallError) as caught:
        generate_quiz(llm, catalog, "notes.md", count=4, seed=3)
    error = caught.value
    assert error.requested == 4 and error.made == 0
    for reason in ("question_form", "true_not_supported", "answer_not_bool", "no_usable_sentence"):
        assert error.reasons[reason] >= 1 and reason in str(error)
    assert "0 of 4" in str(error)
    assert len(llm.calls) == 3  # the first sample and two re-samples, no more


def test_shortfall_when_the_source_is_too_small_for_the_count() -> None:
    catalog = Catalog({"tiny.md": POLICY[:2]})
    llm = ScriptedLLM(default=reply(TRUE_ITEMS[:2]))
    with pytest.raises(QuizShortfallError) as caught:
        generate_quiz(llm, catalog, "tiny.md", count=6, seed=4)
    assert caught.value.made == 2 and caught.value.reasons["duplicate_statement"] >= 2


@pytest.mark.parametrize("bad", [{"count": 0}, {"count": 31}, {"level": "expert"}])
def test_bad_arguments_name_the_allowed_values(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="allowed"):
        generate_quiz(ScriptedLLM(), Catalog({"policy.md": POLICY}), "policy.md", **bad)  # type: ignore[arg-type]


def test_parse_reply_accepts_lists_single_items_and_rejects_prose() -> None:
    assert parse_reply('[{"statement": "A."}]') == [{"statement": "A."}]
    assert parse_reply('noise {"statement": "A.", "answer_bool": true} noise') == [
        {"statement": "A.", "answer_bool": True}
    ]
    with pytest.raises(Exception, match="items"):
        parse_reply("I cannot help with that.")


def test_a_reply_cut_off_at_the_token_limit_keeps_its_complete_items() -> None:
    whole = reply(TRUE_ITEMS[:3])
    cut = whole[: whole.index(TRUE_ITEMS[2][0]) + 10]  # stops inside the third item
    assert [item["statement"] for item in parse_reply(cut)] == [s for s, _q in TRUE_ITEMS[:2]]


def test_question_detection_in_japanese_and_english() -> None:
    assert is_question("返品は可能ですか？") and is_question("返品できるか。") and is_question("Is it allowed?")
    assert not is_question("返品は可能です。") and not is_question("Remote work requires approval.")


def test_pool_normalizes_source_names_and_prefers_the_level_keywords() -> None:
    nfc = unicodedata.normalize("NFC", "手順書.pdf")
    texts = [f"一般的な説明の文章です。番号{i}の内容を記載しています。" * 3 for i in range(30)]
    texts[7] = "例外の扱い。禁止事項に注意し、リスクを判断すること。" * 3
    pool = ChunkPool(Catalog({nfc: texts}))
    import random

    sample = pool.sample(unicodedata.normalize("NFD", "手順書.pdf"), 3, "advanced", random.Random(0))
    assert len(sample) == 20 and sample[0].chunk_index == 7


def load_real_documents() -> dict[str, list[str]]:
    docs: dict[str, list[str]] = defaultdict(list)
    with open(SHARED / "jsquad-ja" / "corpus.jsonl", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["title"] in ("ジェイ・キャスト", "法華経"):
                docs[row["title"] + ".pdf"].append(row["text"])
    with open(SHARED / "scifact" / "corpus.jsonl", encoding="utf-8") as handle:
        for _, line in zip(range(15), handle):
            docs["scifact-abstracts.pdf"].append(json.loads(line)["text"])
    return dict(docs)


@pytest.mark.parametrize("source", ["ジェイ・キャスト.pdf", "法華経.pdf", "scifact-abstracts.pdf"])
def test_extractive_quiz_from_real_japanese_and_english_documents(source: str) -> None:
    catalog = Catalog(load_real_documents())
    llm = ScriptedLLM(name="extractive")
    quiz = generate_quiz(llm, catalog, source, count=6, level="intermediate", seed=5)
    assert llm.calls == []
    assert_well_formed(quiz, catalog, 6)
    document = [normalize(c.text) for c in catalog.docs[source]]
    for item in quiz.items:
        if item.answer_bool:  # a true statement is the document's own sentence
            assert any(normalize(item.statement) in text for text in document)
    marker = "誤り。" if source != "scifact-abstracts.pdf" else "False: the statement changes"
    assert any(item.explanation.startswith(marker) for item in quiz.items)


def test_an_entity_is_swapped_for_another_name_never_for_a_sentence_opener() -> None:
    document = ["This study measured Sirtuin in Candida. The results were clear. We found Candida in 3 samples."]
    statement = "Old cells regulate aging through Sirtuin."
    swaps = {perturb(statement, document, random.Random(seed)) for seed in range(20)}
    assert {s.replacement for s in swaps if s} == {"Candida"}


def test_a_year_becomes_a_nearby_year() -> None:
    statement = "1814年憲章が発布された。"
    years = {perturb(statement, ["1814年憲章が発布された。"], random.Random(seed)) for seed in range(20)}
    changed = {int(p.replacement.rstrip("年")) for p in years if p and p.kind in ("number", "date")}
    assert changed and all(1800 <= year <= 1830 for year in changed)


def test_a_model_statement_cut_mid_sentence_is_rejected() -> None:
    chunk = Chunk(chunk_id="c1", text="The drug was found to promote cell proliferation in mice.", source="a.md")
    raw = {
        "statement": "was found to promote cell proliferation.",
        "type": "true_false",
        "answer_bool": True,
        "passage": 1,
    }
    assert validate_generated(raw, [Focus.whole(chunk)], [chunk]) == "fragment_not_statement"


def test_a_japanese_sentence_cut_after_its_first_kana_is_a_fragment() -> None:
    chunk = Chunk(
        chunk_id="c1",
        text="め、コントリビューションの計画を立案するプロセスを定義しておくと良いでしょう。",
        source="a.md",
    )
    raw = {"statement": chunk.text, "type": "true_false", "answer_bool": True, "passage": 1}
    assert validate_generated(raw, [Focus.whole(chunk)], [chunk]) == "fragment_not_statement"
    assert not is_fragment("また、エンジニアにその存在を周知しておく必要があります。")


def test_without_an_llm_advanced_items_ask_about_a_rule_and_its_exception_citing_both() -> None:
    rules = [
        "Backups are kept for 30 days on the primary server. However, monthly archives are kept for 12 months.",
        "Accounts are locked after 5 failed logins. Unless an administrator unlocks them, they stay locked for 1 hour.",
        "Reports are due within 10 days after the quarter ends. However, the annual report is due within 60 days.",
    ]
    quiz = generate_quiz(ScriptedLLM(name="extractive"), Catalog({"rules.md": rules}), "rules.md", count=3,
                         level="advanced", seed=3)  # fmt: skip
    paired = [item for item in quiz.items if len(item.citations) == 2]
    assert paired
    for item in paired:
        first, second = (c.quote for c in item.citations)
        assert second.startswith(("However", "Unless")) and any(first in r and second in r for r in rules)
        assert first in item.explanation and second in item.explanation


@pytest.mark.parametrize(
    ("sentence", "restated", "accepted"),
    [
        ("Employees receive 20 days of paid leave per year.",
         "Every employee receives 20 days of paid leave per year.", False),
        ("Employees receive 20 days of paid leave per year.",
         "Staff get 20 days of paid leave each year.", True),
        ("Remote work is allowed up to 2 days per week, except during the first 3 months.",
         "Remote work of up to 2 days per week is allowed only after the first 3 months.", True),
        ("申請書は窓口で受け付けます。", "申請書は窓口でのみ受け付けます。", False),
    ],
)  # fmt: skip
def test_a_true_restatement_may_not_narrow_the_claim_to_all_none_or_only(
    sentence: str, restated: str, accepted: bool
) -> None:
    chunk = Chunk(chunk_id="c1", text=sentence, source="rules.md")
    raw = {"statement": restated, "type": "true_false", "answer_bool": True, "passage": 1}
    result = validate_generated(raw, [Focus.whole(chunk)], [chunk])
    assert result == "true_adds_restriction" if not accepted else not isinstance(result, str), result
