"""Grounded answers: context from hits, a cited answer from the LLM, citations verified in code.

The flow is ``has_basis`` → ``build_context`` → ``build_messages`` → ``stream_answer`` → ``finish_answer``
(or ``answer_question`` for all of it at once). Nothing is asked of the LLM when no hit clears the thresholds.
With the ``extractive`` backend, or when the LLM fails, the answer is made of the passages' best sentences.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rag.citations import Passage, attribute_uncited, cite, drop_invalid_markers, passage_citation
from rag.context_window import estimate_tokens, fits, focus
from rag.errors import LLMError
from rag.faithfulness import markers_of, says_unknown, split_sentences, strip_markers, unsupported_sentences
from rag.llm.base import LLMBackend, Message
from rag.prompts import (
    FOLLOWUPS_MARKER,
    Language,
    answer_messages,
    detect_language,
    format_passage,
    heading_followups,
    split_followups,
)
from rag.records import Answer, Hit
from rag.settings import Settings

__all__ = [
    "AnswerStream",
    "Passage",
    "answer_question",
    "build_context",
    "build_messages",
    "finish_answer",
    "has_basis",
    "reading_rate",
    "stream_answer",
]

EXTRACTIVE = "extractive"
MIN_PASSAGE_CHARS = 200
MIN_PASSAGE_TOKENS = 60
NEIGHBOUR_CHARS = 200
SHORT_CHUNK_CHARS = 300
FALLBACK_PASSAGES = 3
_HOLD_BACK = 24  # characters kept unshown while streaming, so a "FOLLOWUPS:" marker can be cut off whole

_TEXT: dict[str, dict[Language, str]] = {
    "no_basis": {"ja": "文書に根拠が見つかりませんでした。", "en": "No basis in the documents."},
    "llm_failed": {
        "ja": "LLM の応答に失敗したため、関連する箇所だけを表示します。原因と対処: {error}",
        "en": "The LLM backend failed, so only the most relevant passages are shown. Cause and fix: {error}",
    },
    "empty": {
        "ja": "LLM が空の回答を返したため、関連する箇所だけを表示します。",
        "en": "The LLM returned an empty answer, so only the most relevant passages are shown.",
    },
    "extractive": {
        "ja": "LLM を使わず、文書の該当箇所をそのまま抜き出しました。",
        "en": "No LLM in use: these are the documents' own sentences.",
    },
    "no_citation": {
        "ja": "この回答はどの資料も引用していないため、根拠を確認できません。",
        "en": "This answer cites no passage, so it could not be verified.",
    },
    "attributed": {
        "ja": "LLM が出典番号を付けなかったため、本文と一致する資料を出典として付けました。",
        "en": "The LLM cited no passage, so the passages whose text matches the answer were attached as sources.",
    },
    "unsupported": {
        "ja": "{count} 文は引用した資料で裏付けられていません。",
        "en": "{count} sentence(s) are not supported by the passages they cite.",
    },
    "dropped": {
        "ja": "存在しない資料番号 {numbers} への引用を取り除きました。",
        "en": "Removed citations to passages that do not exist: {numbers}.",
    },
    "unknown": {
        "ja": "資料の中に回答が見つかりませんでした。",
        "en": "The passages do not contain the answer.",
    },
}


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
) -> list[Passage]:
    """Numbered passages from the hits within the context budget.

    The budget is ``settings.context_budget_chars`` characters and, for backends that read slowly (the embedded
    CPU model by default), ``settings.context_token_budget(backend_name)`` estimated tokens, headers included.
    Hits the reranker scored below its threshold are left out, as are repeated chunks. A short chunk gets some
    of its neighbours' text around it, so the model sees a complete thought; a chunk longer than what is left
    of the budget keeps the sentences the question is about (``rag.context_window.focus``).

    Args:
        question: the user's question.
        hits: search results, best first.
        settings: supplies the budgets and ``rerank_abs_threshold``.
        backend_name: the LLM backend that will read the passages (its token budget applies).
        prefill_tokens_per_s: how fast that backend reads a prompt, when known (see ``reading_rate``).

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
    for hit in hits:
        rerank = hit.scores.rerank_score
        if hit.chunk.chunk_id in seen or (rerank is not None and rerank < settings.rerank_abs_threshold):
            continue
        chars_left = char_budget - used_chars
        header_tokens = _header_tokens(len(passages) + 1, hit)
        tokens_left = None if token_budget is None else token_budget - used_tokens - header_tokens
        too_little = chars_left < MIN_PASSAGE_CHARS or (tokens_left is not None and tokens_left < MIN_PASSAGE_TOKENS)
        if passages and too_little:
            break
        text = hit.chunk.text.strip()
        if len(text) < SHORT_CHUNK_CHARS:
            before = hit.context_before.strip()[-NEIGHBOUR_CHARS:]
            after = hit.context_after.strip()[:NEIGHBOUR_CHARS]
            widened = "\n".join(part for part in (before and f"…{before}", text, after and f"{after}…") if part)
            text = widened if fits(widened, chars_left, tokens_left) else text
        text = focus(question, text, chars_left, tokens_left)
        seen.add(hit.chunk.chunk_id)
        passages.append(Passage(len(passages) + 1, hit.chunk, text, hit.score))
        used_chars += len(text)
        used_tokens += estimate_tokens(text) + header_tokens
    return passages


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


def _header_tokens(n: int, hit: Hit) -> int:
    """What passage ``n``'s header line costs in the prompt (``rag.prompts.format_passage`` without the text)."""
    return estimate_tokens(format_passage(Passage(n, hit.chunk, "")))


def build_messages(question: str, passages: Sequence[Passage]) -> list[Message]:
    """The chat messages for a cited answer in the question's language (see ``rag.prompts``)."""
    return answer_messages(question, passages)


class AnswerStream:
    """The visible pieces of a streamed answer, with what the caller needs to finish it.

    An iterator (``st.write_stream`` consumes it) of the answer text without its ``FOLLOWUPS:`` section.
    A backend failure ends the stream instead of raising; ``error`` then holds it. ``raw_text`` is the whole reply.
    """

    def __init__(self, backend: LLMBackend, question: str, passages: Sequence[Passage]) -> None:
        self.backend_name = backend.name
        self.question = question
        self.raw_text = ""
        self.visible_text = ""
        self.error: LLMError | None = None
        self._backend = backend
        self._passages = list(passages)
        self._pieces: Iterator[str] | None = None

    def __iter__(self) -> AnswerStream:
        return self

    def __next__(self) -> str:
        if self._pieces is None:
            self._pieces = self._generate()
        return next(self._pieces)

    def _generate(self) -> Iterator[str]:
        if not self._passages:
            text = _TEXT["no_basis"][detect_language(self.question)]
            self.raw_text = self.visible_text = text
            yield text
        elif self.backend_name == EXTRACTIVE:
            text = _extractive(self.question, self._passages).answer
            self.raw_text = self.visible_text = text
            yield text
        else:
            yield from self._stream_llm()
        _remember(self)

    def _stream_llm(self) -> Iterator[str]:
        shown = 0
        cut: int | None = None
        try:
            for piece in self._backend.stream_chat(build_messages(self.question, self._passages)):
                self.raw_text += piece
                if cut is not None:
                    continue
                match = FOLLOWUPS_MARKER.search(self.raw_text, max(shown - _HOLD_BACK, 0))
                cut = match.start() if match else None
                end = cut if cut is not None else max(len(self.raw_text) - _HOLD_BACK, shown)
                if end > shown:
                    yield self.raw_text[shown:end]
                    shown = end
        except LLMError as err:
            self.error = err
        if cut is None and len(self.raw_text) > shown:
            yield self.raw_text[shown:]
        self.visible_text = self.raw_text[: cut if cut is not None else len(self.raw_text)]


def stream_answer(backend: LLMBackend, question: str, passages: Sequence[Passage]) -> AnswerStream:
    """Stream the answer's text (no LLM call for the extractive backend or when there are no passages).

    Returns:
        An iterable of text pieces; pass it (or the text it produced) to :func:`finish_answer`.
    """
    return AnswerStream(backend, question, passages)


def finish_answer(
    question: str,
    passages: Sequence[Passage],
    text: str,
    backend_name: str,
    *,
    stream: AnswerStream | None = None,
) -> Answer:
    """Turn the streamed text into an Answer whose citations are verified against the chunks.

    Args:
        question: the question asked.
        passages: the passages the answer was written from.
        text: the text the stream produced (or the whole reply).
        backend_name: the backend's ``name``.
        stream: the stream that produced ``text``; when omitted, the most recent stream that produced exactly
            this text for this question is used, to recover the follow-ups section and a backend failure.

    Returns:
        The answer with verified citations, follow-ups, unsupported sentences and a message for the user.
    """
    language = detect_language(question)
    if not passages:
        return _no_basis(language, backend_name)
    stream = stream or _recall(question, text)
    if backend_name == EXTRACTIVE:
        return _extractive(question, passages)
    if stream is not None and stream.error is not None:
        message = _TEXT["llm_failed"][language].format(error=stream.error)
        return _fallback(question, passages, backend_name, message, llm_error=str(stream.error))
    body, followups = split_followups(stream.raw_text if stream is not None else text)
    body, dropped = drop_invalid_markers(body, len(passages))
    if not body.strip():
        return _fallback(question, passages, backend_name, _TEXT["empty"][language])
    notes: list[str] = []
    if not markers_of(body) and not says_unknown(body):
        body = attribute_uncited(body, question, passages)
        if markers_of(body):
            notes.append(_TEXT["attributed"][language])
    citations = cite(body, passages)
    if dropped:
        notes.append(_TEXT["dropped"][language].format(numbers=", ".join(f"[{n}]" for n in dropped)))
    if not citations and says_unknown(body):
        unsupported: list[str] = []
        notes.append(_TEXT["unknown"][language])
    elif not citations:
        unsupported = [strip_markers(s) for s in split_sentences(body) if strip_markers(s)]
        notes.append(_TEXT["no_citation"][language])
    else:
        unsupported = unsupported_sentences(body, {p.n: p.text for p in passages})
        if unsupported:
            notes.append(_TEXT["unsupported"][language].format(count=len(unsupported)))
    return Answer(
        answer=body.strip(),
        citations=citations,
        followups=followups or heading_followups(question, passages, language),
        backend=backend_name,
        unsupported_sentences=tuple(unsupported),
        message=" ".join(notes),
    )


def answer_question(backend: LLMBackend, question: str, hits: Sequence[Hit], settings: Settings) -> Answer:
    """Answer in one call (no streaming): no LLM call when the hits give no basis.

    Returns:
        The finished answer; a backend failure yields the top passages' citations and a message, not an error.
    """
    if not has_basis(hits, settings):
        return _no_basis(detect_language(question), backend.name)
    passages = build_context(question, hits, settings, backend.name, reading_rate(backend))
    if backend.name == EXTRACTIVE or not passages:
        return finish_answer(question, passages, "", backend.name)
    try:
        reply = backend.chat(build_messages(question, passages))
    except LLMError as err:
        message = _TEXT["llm_failed"][detect_language(question)].format(error=err)
        return _fallback(question, passages, backend.name, message, llm_error=str(err))
    return finish_answer(question, passages, reply, backend.name)


def _no_basis(language: Language, backend_name: str) -> Answer:
    text = _TEXT["no_basis"][language]
    return Answer(answer=text, no_basis=True, backend=backend_name, message=text)


def _fallback(
    question: str, passages: Sequence[Passage], backend_name: str, message: str, *, llm_error: str = ""
) -> Answer:
    citations = tuple(passage_citation(p, question) for p in passages[:FALLBACK_PASSAGES])
    return Answer(answer="", citations=citations, backend=backend_name, message=message, llm_error=llm_error)


def _extractive(question: str, passages: Sequence[Passage]) -> Answer:
    language = detect_language(question)
    citations = tuple(c for c in (passage_citation(p, question) for p in passages[:FALLBACK_PASSAGES]) if c.quote)
    text = "\n".join(f"{c.quote} [{c.n}]" for c in citations)
    return Answer(
        answer=text,
        citations=citations,
        followups=heading_followups(question, passages, language),
        backend=EXTRACTIVE,
        message=_TEXT["extractive"][language],
    )


@dataclass(frozen=True, slots=True)
class _Key:
    question: str
    text: str


_RECENT: OrderedDict[_Key, AnswerStream] = OrderedDict()
_RECENT_LOCK = threading.Lock()
_RECENT_MAX = 64


def _remember(stream: AnswerStream) -> None:
    with _RECENT_LOCK:
        _RECENT[_Key(stream.question, stream.visible_text.strip())] = stream
        while len(_RECENT) > _RECENT_MAX:
            _RECENT.popitem(last=False)


def _recall(question: str, text: str) -> AnswerStream | None:
    with _RECENT_LOCK:
        return _RECENT.get(_Key(question, text.strip()))
