"""What the model reads: whether the hits are a basis to answer from, and the numbered passages that fit the budget.

The budget is in characters and, for a model that reads slowly (the embedded CPU model), in estimated tokens
(``rag.answers.context_window``): a short chunk is widened with its neighbours' text, a long one keeps the sentences
the question is about, and a chunk that announces the table after it ("Table below gives a listing of API functions
for Normal World.") brings that table as the next passage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answers.citations import Passage
from rag.answers.context_window import estimate_tokens, fits, focus, focus_record
from rag.answers.evidence import SentenceRelevance
from rag.answers.prompts import format_passage
from rag.errors import LLMError
from rag.llm.base import LLMBackend
from rag.records import Chunk, Hit
from rag.settings import Settings

MIN_PASSAGE_CHARS = 200
MIN_PASSAGE_TOKENS = 60
NEIGHBOUR_CHARS = 200
SHORT_CHUNK_CHARS = 300
RECORD_SHARE = 0.5
"""Most of the budget one record (a row of a wide sheet or a JSON record) takes: its lines the question is about
(``focus_record``), so the rows after it are read too; a record's row of twenty labelled values fills a small model's
whole context otherwise."""

ANNOUNCES_TABLE = re.compile(
    r"\b(?:tables?|chart)\s+(?:below|that follows)\b|\b(?:following|below)\s+tables?\b|\bas\s+follows\b"
    r"|(?:下|次|以下)の(?:表|一覧)|下表|表\s*\d*\s*に(?:示す|まとめ)|(?:次|以下)のとおり",
    re.IGNORECASE,
)
"""Words by which a text points at the table after it: "Table below gives…", "the following table", "下表", "次の表"."""


def has_basis(hits: Sequence[Hit], settings: Settings) -> bool:
    """Whether the hits are worth answering from.

    When a reranker ran: one hit at or above its absolute threshold. Without one: a hit that shares a term with
    the question, or a best cosine at or above the embedding model's off-topic floor
    (``Settings.basis_cosine_floor``); a question about something the documents never touch fails both.
    """
    if not hits:
        return False
    reranked = [h.scores.rerank_score for h in hits if h.scores.rerank_score is not None]
    if reranked:
        return max(reranked) >= settings.rerank_abs_threshold
    if any(h.matched_terms for h in hits):
        return True
    cosines = [h.scores.dense_score for h in hits if h.scores.dense_score is not None]
    return not cosines or max(cosines) >= settings.basis_cosine_floor


def build_context(
    question: str,
    hits: Sequence[Hit],
    settings: Settings,
    backend_name: str = "",
    prefill_tokens_per_s: float | None = None,
    relevance: SentenceRelevance | None = None,
) -> list[Passage]:
    """Numbered passages from the hits within the context budget.

    The budget is ``settings.context_budget_chars`` characters and, for backends that read slowly (the embedded
    CPU model by default), ``settings.context_token_budget(backend_name)`` estimated tokens, headers included.
    Hits the reranker scored below its threshold are left out, as are repeated chunks. A short chunk gets some
    of its neighbours' text around it, so the model sees a complete thought (the passage keeps those neighbours in
    ``around``: a claim drawn from their text is checked against them); a chunk longer than what is left
    of the budget keeps the sentences the question is about (``rag.answers.context_window.focus``). A chunk that
    points at the table after it brings that table as the next passage (``announced_table``), its rows chosen by the
    question when it is too long.

    Args:
        question: the user's question.
        hits: search results, best first.
        settings: supplies the budgets and ``rerank_abs_threshold``.
        backend_name: the LLM backend that will read the passages (its token budget applies).
        prefill_tokens_per_s: how fast that backend reads a prompt, when known (see ``reading_rate``).
        relevance: the embedding model's cosines: what part of a long chunk a question in another language is about.

    Returns:
        Passages numbered from 1 (empty when no hit qualifies).
    """
    char_budget = max(settings.context_budget_chars, MIN_PASSAGE_CHARS)
    token_budget = settings.context_token_budget(backend_name, prefill_tokens_per_s)
    if token_budget is not None:
        token_budget = max(token_budget, MIN_PASSAGE_TOKENS)
    passages: list[Passage] = []
    seen: set[str] = set()
    used_chars = used_tokens = 0

    def room(chunk: Chunk) -> tuple[int, int | None, int, bool]:
        """Characters and estimated tokens left for ``chunk`` as the next passage, its header's cost, and whether
        that is too little for a passage."""
        header = _header_tokens(len(passages) + 1, chunk)
        chars_left = char_budget - used_chars
        tokens_left = None if token_budget is None else token_budget - used_tokens - header
        too_little = chars_left < MIN_PASSAGE_CHARS or (tokens_left is not None and tokens_left < MIN_PASSAGE_TOKENS)
        return chars_left, tokens_left, header, too_little

    def add(chunk: Chunk, text: str, score: float, header: int, around: tuple[Chunk, ...] = ()) -> None:
        nonlocal used_chars, used_tokens
        seen.add(chunk.chunk_id)
        passages.append(Passage(len(passages) + 1, chunk, text, score, around))
        used_chars += len(text)
        used_tokens += estimate_tokens(text) + header

    for hit in hits:
        rerank = hit.scores.rerank_score
        if hit.chunk.chunk_id in seen or (rerank is not None and rerank < settings.rerank_abs_threshold):
            continue
        chars_left, tokens_left, header, too_little = room(hit.chunk)
        if passages and too_little:
            break
        text = hit.chunk.text.strip()
        if hit.chunk.chunk_type == "record":  # a row of a sheet: the lines asked about, leaving room for others
            chars_cap = min(chars_left, int(char_budget * RECORD_SHARE))
            tokens_cap = (
                None
                if tokens_left is None or token_budget is None
                else min(tokens_left, int(token_budget * RECORD_SHARE))
            )
            add(hit.chunk, focus_record(question, text, chars_cap, tokens_cap, relevance), hit.score, header)
            continue
        table = announced_table(hit)
        around: tuple[Chunk, ...] = ()
        if len(text) < SHORT_CHUNK_CHARS:
            before = hit.context_before.strip()[-NEIGHBOUR_CHARS:]
            after = "" if table is not None else hit.context_after.strip()[:NEIGHBOUR_CHARS]
            widened = "\n".join(part for part in (before and f"…{before}", text, after and f"{after}…") if part)
            if fits(widened, chars_left, tokens_left):
                text = widened
                shown = (hit.preceding if before else None, hit.following if after else None)
                around = tuple(chunk for chunk in shown if chunk is not None)
        add(hit.chunk, focus(question, text, chars_left, tokens_left, relevance), hit.score, header, around)
        if table is None or table.chunk_id in seen:
            continue
        chars_left, tokens_left, header, too_little = room(table)
        if not too_little:
            add(table, focus(question, table.text.strip(), chars_left, tokens_left, relevance), hit.score, header)
    return passages


def announced_table(hit: Hit) -> Chunk | None:
    """The table chunk right after ``hit``'s chunk in its source, when the hit's text points at it."""
    following = hit.following
    if following is None or following.chunk_type != "table" or following.source != hit.chunk.source:
        return None
    return following if ANNOUNCES_TABLE.search(hit.chunk.text) else None


def reading_rate(backend: LLMBackend) -> float | None:
    """Prompt tokens per second the backend reads, for backends that measure it (the embedded model); else None.

    A backend that cannot load gives None here and reports its error when asked to answer.
    """
    measure = getattr(backend, "prefill_rate", None)
    if not callable(measure):
        return None
    try:
        return float(measure())
    except LLMError:
        return None


def _header_tokens(n: int, chunk: Chunk) -> int:
    """What passage ``n``'s header line costs in the prompt (``prompts.format_passage`` without the text)."""
    return estimate_tokens(format_passage(Passage(n, chunk, "")))
