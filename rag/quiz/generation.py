"""Generate a true/false quiz from one source: sample chunks, pick focus sentences, restate, validate, balance.

Levels differ in what the items ask: beginner a definition or a single fact, intermediate a procedure step or a
condition, advanced an exception, a limit or the relation of two sentences (cited both). Code picks the focus
sentences a level asks about; the LLM restates each as one TRUE statement (in its own words at intermediate and
advanced), checked with the claim check answers use. Rounds run until the count is met (the pool is re-sampled
at most twice). The LLM gets the reply's JSON schema; its reply is parsed robustly (code fences, stray text) and,
once, repaired by showing the model its error. At least 40 % of the items are FALSE, made by changing one fact of
a supported statement (``perturbation``) and kept only when the cited sentence contradicts them in exactly that
fact. With the ``extractive`` backend true statements are the focus sentences themselves; with an LLM, so are
those of a round in which too few of the model's statements passed validation.
"""

from __future__ import annotations

import json
import math
import random
import re
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from rag.answers.claims import facts_of
from rag.answers.context_window import estimate_tokens
from rag.answers.faithfulness import content_tokens, normalize, split_sentences
from rag.answers.prompts import Language, detect_language
from rag.errors import LLMOutputError, LLMUnavailableError, QuizError
from rag.llm.base import LLMBackend, Message
from rag.quiz.models import CitationRef, GenerationReply, Quiz, QuizItem
from rag.quiz.perturbation import KIND_LABELS, perturb
from rag.quiz.pool import ChunkCatalog, ChunkPool
from rag.quiz.validation import (
    Candidate,
    Change,
    Deduplicator,
    Focus,
    contradiction,
    is_fragment,
    is_question,
    rejection_summary,
    validate_generated,
)
from rag.records import QUIZ_LEVELS
from rag.settings import Settings

Progress = Callable[[str], None]

MAX_COUNT = 30
ROUNDS = 3  # the first sample and at most two re-samples
FALSE_SHARE = 0.4
MAX_FALSE_SHARE = 0.6
SCHEMA = GenerationReply.model_json_schema()
_LEVEL_TASK = {
    "beginner": "a definition or a single fact it states",
    "intermediate": "a procedure step or a condition it sets (what must be done, when or if)",
    "advanced": "an exception or a limit it sets, or how its two sentences relate (one statement using both)",
}
_LEVEL_STYLE = {
    "beginner": "You may keep the passage's wording.",
    "intermediate": "Say it in your own words: change the wording and the word order; never copy the passage.",
    "advanced": "Say it in your own words: change the wording and the word order; never copy the passage.",
}
# what makes a sentence fit a level's question (lower-case; English cues padded to whole words)
LEVEL_CUES: dict[str, tuple[str, ...]] = {
    "beginner": (
        "とは",
        "という",
        "を指す",
        "を意味",
        "目的",
        "定義",
        " is a ",
        " are ",
        " means ",
        " refers to ",
        "defined as",
        "purpose",
    ),
    "intermediate": (
        "場合",
        "とき",
        "手順",
        "まず",
        "次に",
        "必要",
        "しなければ",
        "ください",
        "以内",
        " if ",
        " when ",
        " must ",
        " should ",
        " before ",
        " after ",
        " step",
        " then ",
        " required ",
        " within ",
    ),
    "advanced": (
        "ただし",
        "除",
        "例外",
        "限り",
        "以上",
        "以下",
        "未満",
        "まで",
        "最大",
        "禁止",
        "できない",
        "ません",
        " unless ",
        " except",
        " only ",
        " at least ",
        " at most ",
        " no more than ",
        " up to ",
        " limit",
        " not ",
        " prohibited ",
        " maximum ",
        " never ",
    ),
}
_RESTATE_EXAMPLE = {
    "en": " Example: the passage 'Receipts must be submitted within 30 days of the purchase.' becomes "
    "'A purchase gives you 30 days to hand in its receipts.'",
    "ja": " 例：「領収書は購入から30日以内に提出しなければならない。」は"
    "「購入後30日以内に領収書を出す必要がある。」と言い換える。",
}
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
# a second sentence that opens like this continues the first: the pair states a relation
_RELATION_OPENERS = re.compile(
    r"^(ただし|しかし|なお|また|このため|そのため|したがって|この場合|その場合|However|Therefore|Thus|In this case|"
    r"Otherwise|Unless|Except|If so|This|These|It )"
)
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
    if level not in QUIZ_LEVELS:
        raise ValueError(f"level={level!r}; allowed: {', '.join(QUIZ_LEVELS)}")
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
    falses: list[Candidate] = []
    used: set[str] = set()
    notify = progress or (lambda _message: None)
    llm_failure: LLMUnavailableError | None = None

    for round_no in range(1, ROUNDS + 1):
        if _split(count, n_false, max_false, len(trues), len(falses)) is not None:
            break
        sample = pool.sample(source, count, level, rng, exclude=used)
        used.update(c.chunk_id for c in sample)
        need = count - len(trues) - len(falses) + 1  # one spare; the document's sentences fill any gap
        focuses = focus_sentences(sample, level, language)
        if backend.name == "extractive" or llm_failure is not None:
            candidates = _extract(focuses, need * 2, language, reasons)
        else:
            notify(f"Round {round_no}/{ROUNDS}: asking {backend.model or backend.name} for {need} statements")
            asked = focuses[: need + 1]
            try:
                candidates = _ask(backend, asked, need, level, language, document, settings, reasons, notify)
            except LLMUnavailableError as err:
                llm_failure, candidates = err, []
                notify(f"The LLM failed twice, so the quiz goes on from the document's own sentences: {err}")
            candidates += _top_up(candidates, focuses, need, language, reasons, notify)
        for candidate in candidates:
            reason = dedup.reason(candidate.statement, candidate.chunk, candidate.quote)
            if reason:
                reasons[reason] += 1
                continue
            dedup.add(candidate.statement, candidate.chunk, candidate.quote)
            (trues if candidate.answer_bool else falses).append(candidate)
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


def quiz_messages(passages: Sequence[Focus], need: int, level: str, language: Language) -> list[Message]:
    """The messages asking for ``need`` TRUE statements, one about each numbered focus passage."""
    body = "\n".join(f"[{i}] {focus.text.strip()}" for i, focus in enumerate(passages, 1))
    lang = "Japanese" if language == "ja" else "English"
    system = (
        "You write TRUE statements for a true/false quiz, one about each numbered passage: "
        f"{_LEVEL_TASK[level]}. {_LEVEL_STYLE[level]} Keep every number, date, time, name and negation exactly "
        "as the passage has it, and add nothing the passage does not say. Each statement is one short declarative "
        "sentence (never a question): at most 60 characters in Japanese or 25 words in English, in "
        f'{lang}. Reply with JSON only: {{"items": [{{"passage": 1, "statement": "..."}}]}}.'
        + (_RESTATE_EXAMPLE[language] if level != "beginner" else "")
    )
    user = f"Passages:\n{body}\n\nWrite {need} statements, each about a different passage."
    return [Message("system", system), Message("user", user)]


def focus_sentences(sample: Sequence[Any], level: str, language: Language) -> list[Focus]:
    """The sentences each sampled chunk offers ``level``'s question, best suited first (one focus a chunk).

    A usable sentence is a whole declarative sentence of a quizzable size. It suits a level by its cues (a
    definition, a condition, an exception or a limit) and by holding a fact that a FALSE variant can change. At
    advanced level two neighbouring sentences whose second continues the first (ただし, However, This...) form
    one focus: the statement relates them and cites both.
    """
    scored: list[tuple[float, int, Focus]] = []
    for order, chunk in enumerate(sample):
        usable = [(s, statement) for s in split_sentences(chunk.text) if (statement := _usable(s, language))]
        best: tuple[float, Focus] | None = None
        for i, (sentence, statement) in enumerate(usable):
            option = (_suitability(statement, level), Focus(chunk, (sentence,)))
            if level == "advanced" and i + 1 < len(usable) and _RELATION_OPENERS.match(usable[i + 1][1]):
                pair = f"{statement} {usable[i + 1][1]}"
                option = (_suitability(pair, level) + 2.0, Focus(chunk, (sentence, usable[i + 1][0])))
            if best is None or option[0] > best[0]:
                best = option
        if best is None:  # a table or a list: the model may still state one of its facts (never copied as is)
            best = (-10.0, Focus.whole(chunk))
        scored.append((best[0], order, best[1]))
    scored.sort(key=lambda item: (-item[0], item[1]))
    seen: set[str] = set()
    focuses: list[Focus] = []
    for _score, _order, focus in scored:  # chunks overlap: one sentence is one focus
        if (key := normalize(focus.text)) not in seen:
            seen.add(key)
            focuses.append(focus)
    return focuses


def _usable(sentence: str, language: Language) -> str:
    """The sentence cleaned of bullets and labels when it can be a quiz statement, else ""."""
    low, high = _SENTENCE_CHARS[language]
    statement = normalize(_LEADING_NOISE.sub("", sentence))
    fits = (
        low <= len(statement) <= high
        and not is_fragment(statement)
        and sentence[-1] in ("。" if language == "ja" else ".")
        and "|" not in statement
        and not is_question(statement)
        and len(content_tokens(statement)) >= 4
    )
    return statement if fits else ""


def _suitability(statement: str, level: str) -> float:
    padded = f" {statement.lower()} "
    cues = sum(1 for cue in LEVEL_CUES[level] if cue in padded)
    return 2.0 * min(cues, 2) + (1.5 if facts_of(statement) else 0.0)


def _split(count: int, n_false: int, max_false: int, n_true_have: int, n_false_have: int) -> tuple[int, int] | None:
    """(trues, falses) to use when the count can be met with a valid truth balance, else None."""
    f = max(n_false, count - n_true_have)
    return (count - f, f) if f <= min(n_false_have, max_false) else None


def _balance(
    trues: list[Candidate],
    falses: list[Candidate],
    n_false: int,
    document: Sequence[str],
    rng: random.Random,
    reasons: Counter[str],
) -> None:
    """Turn TRUE candidates into FALSE ones until ``n_false`` are FALSE (in place).

    Each keeps its citation; the cited sentence must contradict the new statement in exactly the changed fact.
    """
    order = list(range(len(trues)))
    rng.shuffle(order)  # false items come from restated and copied statements alike
    turned: list[int] = []
    for index in order:
        if len(falses) >= n_false:
            break
        candidate = trues[index]
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


def _ask(
    backend: LLMBackend,
    sample: Sequence[Focus],
    need: int,
    level: str,
    language: Language,
    document: Sequence[Any],
    settings: Settings,
    reasons: Counter[str],
    notify: Progress,
) -> list[Candidate]:
    """One generation call (plus one retry: a repair request after an unusable reply, the same request after a
    failed one) over a batch of the focus passages; the valid candidates.

    The batch keeps to the answer context budget (``context_budget_chars``, and for the embedded model its fixed
    token cap: a CPU reads ~1,000 Japanese characters of passages in ~9 s before it starts writing).

    Raises:
        LLMUnavailableError: the backend failed on both attempts (down, timed out, broke off).
    """
    batch: list[Any] = []
    used_chars = used_tokens = 0
    token_cap = settings.context_token_budget(backend.name)
    for focus in sample:
        tokens = estimate_tokens(focus.text)
        over_chars = used_chars + len(focus.text) > settings.context_budget_chars
        over_tokens = token_cap is not None and used_tokens + tokens > token_cap
        if len(batch) > need or (batch and (over_chars or over_tokens)):
            break
        batch.append(focus)
        used_chars += len(focus.text)
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
    """TRUE candidates that are the focus sentences themselves, cleaned (the first sentence of a pair)."""
    candidates: list[Candidate] = []
    for focus in focuses:
        statement = _usable(focus.sentences[0], language) if focus.sentences else ""
        if not statement:
            reasons["no_usable_sentence"] += 1
            continue
        candidates.append(Candidate(statement, True, "", focus.chunk, focus.sentences[0]))
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
