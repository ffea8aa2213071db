"""Generate a true/false quiz from one source: sample chunks, ask the LLM (or extract), validate, balance.

Rounds run until the count is met (the pool is re-sampled at most twice). The LLM gets the reply's JSON schema;
its reply is parsed robustly (code fences, stray text) and, once, repaired by showing the model its error.
At least 40 % of the items are FALSE, made by controlled perturbation of supported statements rather than
trusted to the model. With the ``extractive`` backend true statements are the document's own sentences; with
an LLM, so are the statements of a round in which too few of the model's passed validation.
"""

from __future__ import annotations

import json
import math
import random
import re
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from rag.context_window import estimate_tokens
from rag.errors import LLMOutputError, LLMUnavailableError, QuizError
from rag.faithfulness import content_tokens, normalize, split_sentences
from rag.llm.base import LLMBackend, Message
from rag.prompts import Language, detect_language
from rag.quiz.models import LEVELS, CitationRef, GenerationReply, Quiz, QuizItem
from rag.quiz.perturbation import Perturbation, perturb
from rag.quiz.pool import ChunkCatalog, ChunkPool
from rag.quiz.validation import (
    Candidate,
    Deduplicator,
    is_fragment,
    is_question,
    rejection_summary,
    validate_generated,
)
from rag.settings import Settings

Progress = Callable[[str], None]

MAX_COUNT = 30
ROUNDS = 3  # the first sample and at most two re-samples
FALSE_SHARE = 0.4
MAX_FALSE_SHARE = 0.6
SCHEMA = GenerationReply.model_json_schema()
_LEVEL_HINT = {
    "beginner": "basic facts, definitions and purposes",
    "intermediate": "procedures, methods and how things are done",
    "advanced": "exceptions, prohibitions, cautions and judgement calls",
}
_SENTENCE_CHARS = {"ja": (15, 120), "en": (40, 240)}
# bullets, list numbers and all-caps section labels ("OBJECTIVE The purpose ...") are not part of a statement
_LEADING_NOISE = re.compile(r"^\s*(?:[#>*・•\-]+|\d+[.)．]|[（(]\d+[)）]|(?:[A-Z]{4,}:?\s+)+(?=[A-Z][a-z]))\s*")


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
        The quiz (not yet saved), with at least 40 % FALSE items.

    Raises:
        ValueError: ``count`` or ``level`` is out of range.
        SourceNotFoundError: the source has no indexed text.
        QuizShortfallError: the count could not be met (a QuizError listing the rejection reasons, and the LLM's
            failure when it failed twice in a row: the quiz then goes on from the document's own sentences).
    """
    if not 1 <= count <= MAX_COUNT:
        raise ValueError(f"count={count}; allowed: 1 to {MAX_COUNT}")
    if level not in LEVELS:
        raise ValueError(f"level={level!r}; allowed: {', '.join(LEVELS)}")
    settings = settings or Settings()
    pool = catalog if isinstance(catalog, ChunkPool) else ChunkPool(catalog)
    document = pool.chunks(source)
    document_texts = [c.text for c in document]
    language = detect_language(" ".join(c.text for c in document[:5]))
    rng = random.Random(seed)
    n_false = max(math.ceil(count * FALSE_SHARE), count // 2)
    max_false = max(n_false, math.floor(count * MAX_FALSE_SHARE))
    reasons: Counter[str] = Counter()
    dedup = Deduplicator()
    trues: list[Candidate] = []
    falses: list[tuple[Candidate, Perturbation | None]] = []
    used: set[str] = set()
    notify = progress or (lambda _message: None)
    llm_failure: LLMUnavailableError | None = None

    for round_no in range(1, ROUNDS + 1):
        if _split(count, n_false, max_false, len(trues), len(falses)) is not None:
            break
        sample = pool.sample(source, count, level, rng, exclude=used)
        used.update(c.chunk_id for c in sample)
        need = count - len(trues) - len(falses) + 1  # one spare; the document's sentences fill any gap
        if backend.name == "extractive" or llm_failure is not None:
            candidates = _extract(sample, need * 2, language, reasons)
        else:
            notify(f"Round {round_no}/{ROUNDS}: asking {backend.model or backend.name} for {need} statements")
            try:
                candidates = _ask(backend, sample, need, level, language, document, settings, reasons, notify)
            except LLMUnavailableError as err:
                llm_failure, candidates = err, []
                notify(f"The LLM failed twice, so the quiz goes on from the document's own sentences: {err}")
            candidates += _top_up(candidates, sample, need, language, reasons, notify)
        for candidate in candidates:
            reason = dedup.reason(candidate.statement, candidate.chunk, candidate.quote)
            if reason:
                reasons[reason] += 1
                continue
            dedup.add(candidate.statement, candidate.chunk, candidate.quote)
            if candidate.answer_bool:
                trues.append(candidate)
            else:
                falses.append((candidate, None))
        _balance(trues, falses, n_false, document_texts, rng, reasons)
        notify(f"Round {round_no}/{ROUNDS}: {len(trues)} true and {len(falses)} false statements ready")

    split = _split(count, n_false, max_false, len(trues), len(falses))
    if split is None:
        made = min(count, len(trues) + len(falses))
        raise QuizShortfallError(
            f"Only {made} of {count} quiz items ({len(falses)} false of the {n_false} needed) could be made from "
            f"{source!r} at level {level}. Rejected candidates: {rejection_summary(reasons)}. "
            + (f"The LLM failed twice: {llm_failure} " if llm_failure else "")
            + "Try a smaller count, another level, or a source with more text.",
            made=made,
            requested=count,
            reasons=dict(reasons),
        )
    t, f = split
    items = [_true_item(c, language) for c in trues[:t]] + [_false_item(c, p, language) for c, p in falses[:f]]
    rng.shuffle(items)
    items = [item.model_copy(update={"id": f"q{i}"}) for i, item in enumerate(items, 1)]
    notify(f"{len(items)} items ready ({f} false)")
    return Quiz(
        id=uuid.uuid4().hex[:12],
        source=document[0].source,
        level=level,  # type: ignore[arg-type]  # checked against LEVELS above
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        backend=backend.name,
        items=items,
    )


def parse_reply(reply: str) -> list[Any]:
    """The list of items in an LLM reply, tolerating code fences, stray text, a bare item or list, and a reply cut
    off mid-item (its complete items are kept).

    Raises:
        LLMOutputError: no JSON object or list with items could be found.
    """
    text = re.sub(r"```(?:json)?", "", reply).strip()
    data: Any = None
    for candidate in (text, text[text.find("{") : text.rfind("}") + 1], text[text.find("[") : text.rfind("]") + 1]):
        try:
            data = json.loads(candidate)
            break
        except json.JSONDecodeError:
            continue
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        return list(data["items"])
    if isinstance(data, dict) and "statement" in data:
        return [data]
    if isinstance(data, list):
        return data
    if salvaged := _complete_items(text):  # a reply cut off at the token limit: keep the items it finished
        return salvaged
    raise LLMOutputError(
        'The reply is not a JSON object of the form {"items": [...]}'
        + (f"; got: {reply.strip()[:120]!r}" if reply.strip() else "; it was empty")
    )


def _complete_items(text: str) -> list[dict[str, Any]]:
    """Every complete ``{"statement": ...}`` object in ``text``, even when the JSON around them is unfinished."""
    decoder = json.JSONDecoder()
    items: list[dict[str, Any]] = []
    for match in re.finditer(r'\{\s*"statement"', text):
        try:
            item, _end = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(item, dict):
            items.append(item)
    return items


def quiz_messages(passages: Sequence[Any], need: int, level: str, language: Language) -> list[Message]:
    """The messages asking for ``need`` statements about the numbered ``passages`` (chunks)."""
    body = "\n\n".join(f"[{i}] {c.text.strip()}" for i, c in enumerate(passages, 1))
    lang = "Japanese" if language == "ja" else "English"
    system = (
        "You write true/false quiz statements from the numbered passages. Reply with JSON only, matching the "
        'schema {"items": [{"statement", "type": "true_false", "answer_bool", "passage"}]}. '
        "Each statement is one short declarative sentence (never a question) that restates one fact of one "
        "passage in the passage's own words: at most 60 characters in Japanese or 25 words in English. Most "
        "statements must be TRUE (answer_bool true): stated by the passage. A FALSE statement (answer_bool false) "
        "changes exactly one fact of a passage sentence: a number, a negation or a name. 'passage' is the number "
        f"of the passage the statement is about. Write the statements in {lang}."
    )
    user = f"Passages:\n{body}\n\nWrite {need} statements about {_LEVEL_HINT[level]}, each from a different passage."
    return [Message("system", system), Message("user", user)]


def _split(count: int, n_false: int, max_false: int, n_true_have: int, n_false_have: int) -> tuple[int, int] | None:
    """(trues, falses) to use when the count can be met with a valid truth balance, else None."""
    f = max(n_false, count - n_true_have)
    return (count - f, f) if f <= min(n_false_have, max_false) else None


def _balance(
    trues: list[Candidate],
    falses: list[tuple[Candidate, Perturbation | None]],
    n_false: int,
    document: Sequence[str],
    rng: random.Random,
    reasons: Counter[str],
) -> None:
    """Turn TRUE candidates into FALSE ones by perturbation until ``n_false`` are FALSE (in place)."""
    index = 0
    while len(falses) < n_false and index < len(trues):
        candidate = trues[index]
        change = perturb(candidate.statement, document, rng)
        if change is None:
            reasons["not_perturbable"] += 1
            index += 1
            continue
        trues.pop(index)
        falses.append((Candidate(change.statement, False, "", candidate.chunk, candidate.quote), change))


def _ask(
    backend: LLMBackend,
    sample: Sequence[Any],
    need: int,
    level: str,
    language: Language,
    document: Sequence[Any],
    settings: Settings,
    reasons: Counter[str],
    notify: Progress,
) -> list[Candidate]:
    """One generation call (plus one retry: a repair request after an unusable reply, the same request after a
    failed one) over a batch of the sample; the valid candidates.

    The batch keeps to the answer context budget (``context_budget_chars``, and for the embedded model its fixed
    token cap: a CPU reads ~1,000 Japanese characters of passages in ~9 s before it starts writing).

    Raises:
        LLMUnavailableError: the backend failed on both attempts (down, timed out, broke off).
    """
    batch: list[Any] = []
    used_chars = used_tokens = 0
    token_cap = settings.context_token_budget(backend.name)
    for chunk in sample:
        tokens = estimate_tokens(chunk.text)
        over_chars = used_chars + len(chunk.text) > settings.context_budget_chars
        over_tokens = token_cap is not None and used_tokens + tokens > token_cap
        if len(batch) > need or (batch and (over_chars or over_tokens)):
            break
        batch.append(chunk)
        used_chars += len(chunk.text)
        used_tokens += tokens
    messages = quiz_messages(batch, need, level, language)
    reply, items = "", []
    for attempt in (1, 2):
        try:
            reply = backend.chat(messages, schema=SCHEMA, temperature=0.4)
            items = parse_reply(reply)
            break
        except LLMUnavailableError as err:
            reasons["llm_failed"] += 1
            if attempt == 2:
                raise
            notify(f"The LLM failed ({err}); trying once more")
        except LLMOutputError as err:
            reasons["unparseable_reply"] += 1
            if attempt == 2:
                return []
            messages = [
                *messages,
                Message("assistant", reply),
                Message("user", f"That reply could not be used: {err}. Reply again with only the JSON object."),
            ]
    candidates: list[Candidate] = []
    for raw in items:
        result = validate_generated(raw, batch, document)
        if isinstance(result, str):
            reasons[result] += 1
        else:
            candidates.append(result)
    return candidates


def _top_up(
    candidates: Sequence[Candidate],
    sample: Sequence[Any],
    need: int,
    language: Language,
    reasons: Counter[str],
    notify: Progress,
) -> list[Candidate]:
    """The document's own sentences from the sampled chunks no valid statement came from, when the model fell short.

    A small model's statements are often rejected (a Japanese paraphrase shares too few words with its source to
    be checked); the quiz then uses sentences the document states, cleaned, and perturbs some into FALSE ones.
    """
    if len(candidates) >= need:
        return []
    covered = {c.chunk.chunk_id for c in candidates}
    extracted = _extract([c for c in sample if c.chunk_id not in covered], need - len(candidates), language, reasons)
    if extracted:
        notify(
            f"{len(extracted)} statements taken from the document's own sentences "
            f"(rejected model statements so far: {rejection_summary(reasons)})"
        )
    return extracted


def _extract(sample: Sequence[Any], limit: int, language: Language, reasons: Counter[str]) -> list[Candidate]:
    """TRUE candidates that are the chunks' own sentences, cleaned (one per chunk, the best-sized one)."""
    low, high = _SENTENCE_CHARS[language]
    target = (low + high) / 2
    candidates: list[Candidate] = []
    for chunk in sample:
        options: list[tuple[float, str, str]] = []
        for sentence in split_sentences(chunk.text):
            statement = normalize(_LEADING_NOISE.sub("", sentence))
            if (
                low <= len(statement) <= high
                and not is_fragment(statement)
                and sentence[-1] in ("。" if language == "ja" else ".")
                and "|" not in statement
                and not is_question(statement)
                and len(content_tokens(statement)) >= 4
            ):
                options.append((abs(len(statement) - target), statement, sentence))
        if not options:
            reasons["no_usable_sentence"] += 1
            continue
        _, statement, sentence = min(options)
        candidates.append(Candidate(statement, True, "", chunk, sentence))
        if len(candidates) >= limit:
            break
    return candidates


def _citation(candidate: Candidate) -> list[CitationRef]:
    chunk = candidate.chunk
    return [CitationRef(source=chunk.source, page=chunk.page, quote=candidate.quote, chunk_id=chunk.chunk_id)]


def _true_item(candidate: Candidate, language: Language) -> QuizItem:
    base = (
        f"正しい。文書には「{candidate.quote}」とあります。"
        if language == "ja"
        else (f"True. The document states: “{candidate.quote}”")
    )
    explanation = f"{base} {candidate.explanation}".strip()
    return QuizItem(
        id="", statement=candidate.statement, answer_bool=True, explanation=explanation, citations=_citation(candidate)
    )


def _false_item(candidate: Candidate, change: Perturbation | None, language: Language) -> QuizItem:
    if language == "ja":
        detail = f"（「{change.replacement}」ではなく「{change.original}」）" if change else ""
        explanation = f"誤り。文書には「{candidate.quote}」とあります{detail}。 {candidate.explanation}"
    else:
        detail = f" (“{change.original}”, not “{change.replacement}”)" if change else ""
        explanation = f"False. The document states: “{candidate.quote}”{detail}. {candidate.explanation}"
    return QuizItem(
        id="",
        statement=candidate.statement,
        answer_bool=False,
        explanation=explanation.strip(),
        citations=_citation(candidate),
    )
