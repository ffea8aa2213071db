"""Quiz items worth taking (issue 16): well-formed false statements that change one fact, restated true ones
checked like answers, levels that ask different things, explanations that name the changed fact."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from rag.answers.claims import facts_of
from rag.llm.base import Message
from rag.quiz.generation import focus_sentences, generate_quiz
from rag.quiz.perturbation import perturb
from rag.quiz.validation import contradiction, is_verbatim
from rag.quiz.wellformed import malformed_parts
from rag.records import Chunk
from tests.scripted_llm import ScriptedLLM
from tests.unit.test_quiz_generation import Catalog

BACKUPS = [
    "Backup overview. Snapshots older than 45 days are pruned automatically at 03:00 local time.",
    "Restore procedure. If a restore fails, the operator must open a ticket within 2 hours.",
    "Retention limits. Each project may keep at most 20 snapshots. However, archived projects keep only 5 snapshots.",
    "Storage. Backups are written to the Kestrel Systems vault before they are copied to tape.",
    "API. Restores are started with restore_snapshot() and listed with list_snapshots(). Old snapshots are removed"
    " with prune_snapshots() by the scheduler.",
    "Encryption. Backups are encrypted with AES keys that are rotated every 90 days.",
    "Reporting. A weekly report is sent to the Orion Team every Monday.",
]
PARAPHRASES = dict(  # what a model that restates would write for each focus sentence
    [
        (
            "Snapshots older than 45 days are pruned automatically at 03:00 local time.",
            "At 03:00 local time, snapshots past 45 days of age get removed automatically.",
        ),
        (
            "If a restore fails, the operator must open a ticket within 2 hours.",
            "The operator has 2 hours to open a ticket when a restore fails.",
        ),
        (
            "Each project may keep at most 20 snapshots.",
            "A project is allowed no more than 20 snapshots.",
        ),
        (
            "Backups are written to the Kestrel Systems vault before they are copied to tape.",
            "Before copying to tape, backups go to the Kestrel Systems vault.",
        ),
        (
            "Restores are started with restore_snapshot() and listed with list_snapshots().",
            "You start a restore by calling restore_snapshot() and list them with list_snapshots().",
        ),
        (
            "Backups are encrypted with AES keys that are rotated every 90 days.",
            "The AES keys that encrypt backups get rotated every 90 days.",
        ),
        (
            "A weekly report is sent to the Orion Team every Monday.",
            "Every Monday the Orion Team gets a weekly report.",
        ),
    ]
)


class RestatingLLM(ScriptedLLM):
    """A chat model that restates each numbered passage it is shown, from a table of restatements (the real
    models cannot run in unit tests; this one reads the prompt the way they do, behind the same Protocol)."""

    def __init__(self, restatements: Mapping[str, str]) -> None:
        super().__init__(default="")
        self.restatements = restatements

    def chat(
        self, messages: Sequence[Message], *, schema: dict[str, Any] | None = None, temperature: float = 0.2
    ) -> str:
        super().chat(messages, schema=schema, temperature=temperature)
        items = []
        for n, passage in re.findall(r"^\[(\d+)\] (.+)$", messages[-1].content, re.MULTILINE):
            known = sorted((s for s in self.restatements if s in passage), key=len, reverse=True)
            if known:  # the restatement of the whole passage when there is one
                items.append({"passage": int(n), "statement": self.restatements[known[0]]})
        return json.dumps({"items": items})


def test_a_false_time_is_a_time_that_exists() -> None:
    statement = "Snapshots older than 45 days are pruned automatically at 03:00 local time."
    changes = [perturb(statement, [statement], random.Random(seed)) for seed in range(40)]
    assert all(c is not None for c in changes)
    for change in changes:
        assert change is not None and not malformed_parts(change.statement)
        if change.kind == "time":
            assert re.fullmatch(r"\d\d:00", change.replacement) and change.replacement != "03:00"
    assert {c.kind for c in changes if c} >= {"time", "number"}


@pytest.mark.parametrize(
    ("statement", "kind", "well_formed"),
    [
        ("令和6年4月1日から新しい規程が適用されます。", "date", r"令和[1-9]\d?年"),
        ("The parser requires version 1.2 of the library.", "version", r"1\.[13]"),
        ("About 30 % of the budget goes to licences.", "number", r"(?:[1-9]|[1-9]\d|100) %"),
        ("The grant is capped at $1,200,000 per year.", "number", r"\$\d{1,3}(?:,\d{3})+"),
    ],
)
def test_each_kind_of_fact_changes_within_its_kind(statement: str, kind: str, well_formed: str) -> None:
    made = [perturb(statement, [statement], random.Random(seed)) for seed in range(30)]
    of_kind = [c for c in made if c and c.kind == kind]
    assert of_kind
    for change in of_kind:
        assert re.search(well_formed, change.statement) and not malformed_parts(change.statement)
        assert contradiction(change.statement, statement) is not None  # the source contradicts it in one fact


def test_names_and_identifiers_are_swapped_for_others_from_the_same_document() -> None:
    document = [" ".join(BACKUPS)]
    statement = "A restore is started by calling restore_snapshot()."
    swaps = {perturb(statement, document, random.Random(seed)) for seed in range(30)}
    identifiers = {c.replacement for c in swaps if c and c.kind == "identifier"}
    assert identifiers and identifiers <= {f.text for f in facts_of(document[0]) if f.kind == "identifier"}


@pytest.mark.parametrize(
    ("statement", "flipped"),
    [
        ("この機能は管理者だけが利用できる。", "利用できない"),
        ("Receipts must be submitted by the employee.", "must not"),
        ("利用者は18歳以上でなければなりません。", "未満"),
        ("Keys are rotated before the backup starts.", "after"),
    ],
)
def test_polarity_and_comparisons_turn_round(statement: str, flipped: str) -> None:
    changes = [perturb(statement, [statement], random.Random(seed)) for seed in range(30)]
    assert any(c and flipped in c.statement and c.kind in ("polarity", "comparison") for c in changes)


def test_malformed_times_dates_and_eras_are_named_unless_the_document_writes_them() -> None:
    assert malformed_parts("Snapshots are pruned at 03:2 local time.") == ["03:2"]
    assert set(malformed_parts("令和0年2月30日に施行された。")) == {"2月30日", "令和0年"}
    assert malformed_parts("The job runs at 25:00 on 2024-13-01.") == ["25:00", "2024-13-01"]
    assert malformed_parts("The screen ratio is 16:9.", "Use a 16:9 screen ratio.") == []
    assert malformed_parts("令和元年5月1日、10:30に開始。") == []


def test_a_false_statement_must_differ_from_its_sentence_in_exactly_one_fact() -> None:
    sentence = "Snapshots older than 45 days are pruned automatically at 03:00 local time."
    one = contradiction("Snapshots older than 45 days are pruned automatically at 05:00 local time.", sentence)
    assert one is not None and (one.kind, one.original, one.replacement) == ("time", "03:00", "05:00")
    assert contradiction("Snapshots older than 90 days are pruned automatically at 05:00 local time.", sentence) is None
    assert contradiction(sentence, sentence) is None
    assert contradiction("Invoices are paid within 30 days.", sentence) is None  # not about the sentence


def test_intermediate_true_statements_are_restatements_checked_like_answers() -> None:
    catalog = Catalog({"backups.md": BACKUPS})
    llm = RestatingLLM(PARAPHRASES)
    quiz = generate_quiz(llm, catalog, "backups.md", count=5, level="intermediate", seed=3)
    assert "own words" in llm.calls[0][0].content
    truths = [item for item in quiz.items if item.answer_bool]
    assert truths and all(item.statement in PARAPHRASES.values() for item in truths)
    for item in quiz.items:
        evidence = " ".join(c.quote for c in item.citations)
        assert not malformed_parts(item.statement, evidence)
        assert all(c.quote in item.explanation for c in item.citations)
        if item.answer_bool:
            assert not is_verbatim(item.statement, evidence)
        else:
            change = contradiction(item.statement, evidence)
            assert change is not None and f"“{change.replacement}”" in item.explanation


def test_a_restatement_that_loses_a_fact_or_flips_polarity_is_not_a_true_item() -> None:
    wrong = dict(PARAPHRASES)
    wrong["Snapshots older than 45 days are pruned automatically at 03:00 local time."] = (
        "Snapshots older than 30 days are pruned automatically at 03:00 local time."
    )
    wrong["If a restore fails, the operator must open a ticket within 2 hours."] = (
        "If a restore fails, the operator must not open a ticket within 2 hours."
    )
    quiz = generate_quiz(
        RestatingLLM(wrong), Catalog({"backups.md": BACKUPS}), "backups.md", count=5, level="intermediate", seed=3
    )
    truths = {item.statement for item in quiz.items if item.answer_bool}
    assert not truths & {
        "Snapshots older than 30 days are pruned automatically at 03:00 local time.",
        "If a restore fails, the operator must not open a ticket within 2 hours.",
    }


def test_advanced_asks_about_limits_and_relates_two_sentences_with_two_citations() -> None:
    chunk = Chunk(chunk_id="c", source="b.md", text=BACKUPS[2])
    focus = focus_sentences([chunk], "advanced", "en")[0]
    assert focus.sentences == (
        "Each project may keep at most 20 snapshots.",
        "However, archived projects keep only 5 snapshots.",
    )
    relation = {focus.text: "Projects may keep up to 20 snapshots, but archived ones only 5."}
    catalog = Catalog({"backups.md": BACKUPS})
    quiz = generate_quiz(
        RestatingLLM({**PARAPHRASES, **relation}), catalog, "backups.md", count=5, level="advanced", seed=1
    )
    related = [item for item in quiz.items if len(item.citations) == 2]
    assert related and {c.quote for c in related[0].citations} == set(focus.sentences)


def test_beginner_and_advanced_pick_different_sentences() -> None:
    chunks = [Chunk(chunk_id=f"c{i}", source="b.md", text=t) for i, t in enumerate(BACKUPS)]
    beginner = [f.sentences for f in focus_sentences(chunks, "beginner", "en")[:2]]
    advanced = [f.sentences for f in focus_sentences(chunks, "advanced", "en")[:2]]
    assert beginner != advanced
