"""Generate a true/false quiz from one source: sample chunks, pick focus sentences, restate, validate, balance.

Levels differ in what the items ask: beginner a definition or a single fact, intermediate a procedure step or a
condition, advanced an exception, a limit or the relation of two sentences (cited both). Code picks the focus
sentences a level asks about (``focus``); the LLM writes the TRUE statements the quiz needs, in its own words at
intermediate and advanced (``restatement``), each checked with the claim check answers use. Rounds run until the
count is met (the pool is re-sampled at most twice). Between 40 and 60 % of the items are FALSE (how many is
drawn, so counting gives nothing away; a quiz of one or three items draws either neighbour of the range), made by
changing one fact of a supported statement (``perturbation``) and kept only when the cited sentence contradicts
them in exactly that fact; beyond beginner, statements that copy their sentence (``validation.is_verbatim``) are the
first to be made FALSE, so the TRUE items are restatements wherever the model wrote them. With the ``extractive``
backend true statements are the focus sentences themselves (at advanced, a rule and the exception that continues it,
citing both); with an LLM, so are those it fell short of.
"""

from __future__ import annotations

import math
import random
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from rag.answers.prompts import Language, detect_language
from rag.errors import LLMUnavailableError, QuizError
from rag.llm.base import LLMBackend
from rag.quiz.focus import RELATION_OPENERS, focus_sentences, usable_statement
from rag.quiz.models import CitationRef, Quiz, QuizItem
from rag.quiz.perturbation import KIND_LABELS, perturb
from rag.quiz.pool import ChunkCatalog, ChunkPool
from rag.quiz.restatement import ask_statements
from rag.quiz.validation import (
    Candidate,
    Change,
    Deduplicator,
    Focus,
    contradiction,
    is_verbatim,
    rejection_summary,
)
from rag.records import QUIZ_LEVELS
from rag.settings import Settings

Progress = Callable[[str], None]

MAX_COUNT = 30
ROUNDS = 3  # the first sample and at most two re-samples
FALSE_SHARE = 0.4
MAX_FALSE_SHARE = 0.6
_EXPLANATIONS: dict[str, dict[str, str]] = {
    "ja": {
        "true": "正しい。文書には「{quoted}」とあります。",
        "false": "誤り。文書には「{quoted}」とあります。",
        "changed": "誤り。{label}が違います（{said}この文は「{replacement}」）。文書には「{quoted}」とあります。",
        "said": "文書は「{original}」、",
        "unsaid": "",
        "join": "」「",
    },
    "en": {
        "true": "True. The document states: “{quoted}”",
        "false": "False. The document states: “{quoted}”",
        "changed": "False: the statement changes {label} (the document has {said}“{replacement}”). "
        "The document states: “{quoted}”",
        "said": "“{original}”, not ",
        "unsaid": "not ",
        "join": "” and “",
    },
}


class QuizShortfallError(QuizError):
    """Fewer items than asked could be made; ``reasons`` counts why candidates were rejected."""

    def __init__(self, message: str, *, made: int, requested: int, reasons: dict[str, int]) -> None:
        super().__init__(message)
        self.made = made
        self.requested = requested
        self.reasons = reasons


def generate_quiz(
    backend: LLMBackend,
    catalog: ChunkCatalog | ChunkPool,
    source: str,
    *,
    count: int = 5,
    level: str = "beginner",
    settings: Settings | None = None,
    progress: Progress | None = None,
    seed: int | None = None,
) -> Quiz:
    """Make a true/false quiz of ``count`` items from ``source``.

    Args:
        backend: the LLM; one named ``extractive`` makes items from the document's sentences without an LLM.
        catalog: the chunks by source (a ChunkPool to reuse its cache).
        source: the source name (NFC-normalized for lookup).
        count: number of items, 1 to 30.
        level: beginner, intermediate or advanced.
        settings: supplies the per-call context budget.
        progress: called with a short message after each step.
        seed: makes sampling, perturbation and item order repeatable.

    Returns:
        The quiz (not yet saved); ``false_count_range(count)`` bounds how many items are FALSE.

    Raises:
        ValueError: ``count`` or ``level`` is out of range.
        SourceNotFoundError: the source has no indexed text.
        QuizShortfallError: the count could not be met (a QuizError listing the rejection reasons, and the LLM's
            failure when it failed twice in a row: the quiz then goes on from the document's own sentences).
    """
    if not 1 <= count <= MAX_COUNT:
        raise ValueError(f"count={count}; allowed: 1 to {MAX_COUNT}")
    if level not in QUIZ_LEVELS:
        raise ValueError(f"level={level!r}; allowed: {', '.join(QUIZ_LEVELS)}")
    settings = settings or Settings()
    pool = catalog if isinstance(catalog, ChunkPool) else ChunkPool(catalog)
    document = pool.chunks(source)
    document_texts = [c.text for c in document]
    language = detect_language(" ".join(c.text for c in document[:5]))
    rng = random.Random(seed)
    min_false, max_false = false_count_range(count)
    n_false = rng.randint(min_false, max_false)  # the draw the rounds aim for
    reasons: Counter[str] = Counter()
    dedup = Deduplicator()
    trues: list[Candidate] = []
    falses: list[Candidate] = []
    used: set[str] = set()
    notify = progress or (lambda _message: None)
    llm_failure: LLMUnavailableError | None = None

    restating = backend.name != "extractive"  # whether another round may bring restatements rather than copies
    for round_no in range(1, ROUNDS + 1):
        # while the model restates, copies a level cannot keep as TRUE items do not count: another round asks it
        # about other passages; once a round brought none, copies fill the TRUE places as a last resort
        kept = sum(_keeps(c, level) for c in trues)
        counted = kept if restating else len(trues)
        if _split(count, n_false, max_false, counted, len(falses)) is not None:
            break
        sample = pool.sample(source, count, level, rng, exclude=used)
        used.update(c.chunk_id for c in sample)
        need = count - counted - len(falses) + 1  # one spare; the document's sentences fill any gap
        focuses = focus_sentences(sample, level, language)
        if backend.name == "extractive" or llm_failure is not None:
            candidates = _extract(focuses, need * 2, language, reasons)
        else:
            # the model writes the TRUE statements still missing (and a spare); FALSE ones are made in code
            want = min(need, max(0, count - n_false - kept) + 1)
            notify(f"Round {round_no}/{ROUNDS}: asking {backend.model or backend.name} for {want} statements")
            try:
                candidates = ask_statements(
                    backend, focuses, want, level, language, document, settings, reasons, notify
                )
            except LLMUnavailableError as err:
                llm_failure, candidates = err, []
                notify(f"The LLM failed twice, so the quiz goes on from the document's own sentences: {err}")
            restating = restating and llm_failure is None and any(_keeps(c, level) for c in candidates)
            candidates += _top_up(candidates, focuses, need, language, reasons, notify)
        for candidate in candidates:
            reason = dedup.reason(candidate.statement, candidate.chunk, candidate.quote)
            if reason:
                reasons[reason] += 1
                continue
            dedup.add(candidate.statement, candidate.chunk, candidate.quote)
            (trues if candidate.answer_bool else falses).append(candidate)
        _balance(trues, falses, n_false, max_false, level, document_texts, rng, reasons)
        notify(f"Round {round_no}/{ROUNDS}: {len(trues)} true and {len(falses)} false statements ready")

    # the copies a level cannot keep as TRUE items take FALSE places, within the largest FALSE share; a draw the
    # document could not meet falls back to the smallest share allowed
    kept = sum(_keeps(c, level) for c in trues)
    for aim in dict.fromkeys((n_false, min_false)):
        split = _split(count, max(aim, min(count - kept, max_false, len(falses))), max_false, len(trues), len(falses))
        if split is not None:
            break
    if split is None:
        made = min(count, len(trues) + len(falses))
        raise QuizShortfallError(
            f"Only {made} of {count} quiz items ({len(falses)} false of the {min_false} needed) could be made from "
            f"{source!r} at level {level}. Rejected candidates: {rejection_summary(reasons)}. "
            + (f"The LLM failed twice: {llm_failure} " if llm_failure else "")
            + "Try a smaller count, another level, or a source with more text.",
            made=made,
            requested=count,
            reasons=dict(reasons),
        )
    t, f = split
    trues.sort(key=lambda c: not _keeps(c, level))  # restatements before copies
    items = [_item(c, language) for c in trues[:t] + falses[:f]]
    rng.shuffle(items)
    items = [item.model_copy(update={"id": f"q{i}"}) for i, item in enumerate(items, 1)]
    notify(f"{len(items)} items ready ({f} false)")
    return Quiz(
        id=uuid.uuid4().hex[:12],
        source=document[0].source,
        level=level,  # type: ignore[arg-type]  # checked against QUIZ_LEVELS above
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        backend=backend.name,
        items=items,
    )


def false_count_range(count: int) -> tuple[int, int]:
    """The fewest and most FALSE items a quiz of ``count`` may have: 40 to 60 %, or the two counts either side of it."""
    fewest, most = math.ceil(count * FALSE_SHARE - 1e-9), math.floor(count * MAX_FALSE_SHARE + 1e-9)
    return (most, fewest) if fewest > most else (fewest, most)


def _split(count: int, n_false: int, max_false: int, n_true_have: int, n_false_have: int) -> tuple[int, int] | None:
    """(trues, falses) to use when the count can be met with a valid truth balance, else None."""
    f = max(n_false, count - n_true_have)
    return (count - f, f) if f <= min(n_false_have, max_false) else None


def _balance(
    trues: list[Candidate],
    falses: list[Candidate],
    n_false: int,
    max_false: int,
    level: str,
    document: Sequence[str],
    rng: random.Random,
    reasons: Counter[str],
) -> None:
    """Turn TRUE candidates into FALSE ones until ``n_false`` are FALSE, and copies up to ``max_false`` (in place).

    Each keeps its citation; the cited sentence must contradict the new statement in exactly the changed fact.
    """
    order = list(range(len(trues)))
    rng.shuffle(order)
    order.sort(key=lambda i: _keeps(trues[i], level))  # a copy, unfit as a TRUE item at this level, goes first
    turned: list[int] = []
    for index in order:
        candidate = trues[index]
        # beyond the share asked for, only copies are made FALSE (up to the largest FALSE share)
        if len(falses) >= n_false and (len(falses) >= max_false or _keeps(candidate, level)):
            break
        change = perturb(candidate.statement, document, rng)
        if change is None:
            reasons["not_perturbable"] += 1
            continue
        if contradiction(change.statement, candidate.evidence) is None:
            reasons["false_not_contradicted"] += 1
            continue
        made = Change(change.kind, change.original, change.replacement)
        falses.append(replace(candidate, statement=change.statement, answer_bool=False, explanation="", change=made))
        turned.append(index)
    for index in sorted(turned, reverse=True):
        trues.pop(index)


def _keeps(candidate: Candidate, level: str) -> bool:
    """Whether a TRUE candidate is fit to stay TRUE at ``level``: beyond beginner it must not copy its citation."""
    return level == "beginner" or not is_verbatim(candidate.statement, candidate.evidence)


def _top_up(
    candidates: Sequence[Candidate],
    focuses: Sequence[Focus],
    need: int,
    language: Language,
    reasons: Counter[str],
    notify: Progress,
) -> list[Candidate]:
    """The focus sentences no valid statement came from, as they stand, when the model fell short.

    A small model's statements are often rejected (a restatement that loses a number or a negation); the quiz then
    uses sentences the document states, cleaned, and perturbs some into FALSE ones.
    """
    if len(candidates) >= need:
        return []
    covered = {c.chunk.chunk_id for c in candidates}
    fresh = [f for f in focuses if f.chunk.chunk_id not in covered]
    extracted = _extract(fresh, need - len(candidates), language, reasons)
    if extracted:
        notify(
            f"{len(extracted)} statements taken from the document's own sentences "
            f"(rejected model statements so far: {rejection_summary(reasons)})"
        )
    return extracted


def _extract(focuses: Sequence[Focus], limit: int, language: Language, reasons: Counter[str]) -> list[Candidate]:
    """TRUE candidates that are the focus sentences themselves, cleaned; a pair (advanced: a rule and the exception
    or limit that continues it) stays one statement citing both, so the item asks about their relation."""
    candidates: list[Candidate] = []
    for focus in focuses:
        parts = [usable_statement(s, language, focus.chunk.text) for s in focus.sentences[:2]]
        if not parts or not parts[0]:
            reasons["no_usable_sentence"] += 1
            continue
        if len(focus.sentences) == 2 and parts[1] and RELATION_OPENERS.match(parts[1]):
            pair = "".join(parts) if language == "ja" else " ".join(parts)
            candidates.append(Candidate(pair, True, "", focus.chunk, focus.sentences[0], focus.sentences[1]))
        else:
            candidates.append(Candidate(parts[0], True, "", focus.chunk, focus.sentences[0]))
        if len(candidates) >= limit:
            break
    return candidates


def _item(candidate: Candidate, language: Language) -> QuizItem:
    """The quiz item: citations for every quote, and an explanation that quotes them and names a changed fact."""
    chunk = candidate.chunk
    citations = [
        CitationRef(source=chunk.source, page=chunk.page, quote=quote, chunk_id=chunk.chunk_id)
        for quote in candidate.quotes
    ]
    return QuizItem(
        id="",
        statement=candidate.statement,
        answer_bool=candidate.answer_bool,
        explanation=explain(candidate, language),
        citations=citations,
    )


def explain(candidate: Candidate, language: Language) -> str:
    """Why the statement is true or false: the cited sentences, and for a FALSE one the fact it changes."""
    words = _EXPLANATIONS[language]
    change = candidate.change
    key = "true" if candidate.answer_bool else "false" if change is None else "changed"
    text = words[key].format(
        quoted=words["join"].join(candidate.quotes),
        label=KIND_LABELS[change.kind][language == "ja"] if change else "",
        said=words["said"].format(original=change.original) if change and change.original else words["unsaid"],
        replacement=change.replacement if change else "",
    )
    return f"{text} {candidate.explanation}".strip()
