"""What an answer is made of: citations, evidence, claim verdicts, and the LLM backends that write it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypedDict, get_args

BackendName = Literal["ollama", "openai", "embedded", "extractive"]
BACKEND_NAMES: tuple[BackendName, ...] = get_args(BackendName)
"""The LLM backends, in the order ``llm_backend="auto"`` tries them (extractive, which always works, last)."""


@dataclass(frozen=True, slots=True)
class Citation:
    """A verified quote from a chunk, cited as [n] in an answer."""

    n: int
    source: str
    page: int | None
    quote: str
    chunk_id: str
    base: str = "default"  # the knowledge base of the quoted chunk


ClaimStatus = Literal["verified", "reattributed", "unsupported", "not_checked", "computed"]


@dataclass(frozen=True, slots=True)
class Evidence:
    """A passage shown before the answer, with its sentence that best answers the question.

    Attributes:
        n: the passage number the answer cites it by.
        source: the source it comes from.
        page: 1-based page, or None for formats without pages.
        chunk_id: the chunk it is read from.
        text: the chunk's text.
        sentence: the verbatim sentence (or table row) of ``text`` that best answers the question ("" when none).
        score: the hit's score.
        lead_in: when ``sentence`` is a list item, the sentence introducing its list ("Nothing in this division may
            be construed—"), which may deny it; when it is a line of a flattened record, the line naming the record
            ("interlocutor_id: AD"); "" otherwise.
    """

    n: int
    source: str
    page: int | None
    chunk_id: str
    text: str
    sentence: str
    score: float = 0.0
    base: str = "default"  # the knowledge base of its passage
    lead_in: str = ""


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """How one answer sentence fared against the passage it cites.

    Attributes:
        sentence: the sentence, markers removed.
        status: ``verified`` (its cited passage supports it), ``reattributed`` (another passage does, and now carries
            its marker), ``unsupported`` (no passage does), ``not_checked`` (no claim: "I don't know", a heading),
            ``computed`` (a figure the engine worked out from the figures of supported claims, which ``cited`` hold:
            no passage states it).
        cited: the passage numbers it cites after checking.
        reason: why it is unsupported ("" otherwise): the missing number or name, or the flipped polarity.
    """

    sentence: str
    status: ClaimStatus
    cited: tuple[int, ...] = ()
    reason: str = ""

    @property
    def supported(self) -> bool:
        """Whether a passage supports the sentence: the one it cites, or the one it was moved to."""
        return self.status in ("verified", "reattributed")


@dataclass(frozen=True, slots=True)
class Answer:
    """A grounded answer with verified citations.

    Attributes:
        answer: the text shown (markers ``[n]`` refer to ``citations``).
        citations: one verified quote per cited passage.
        followups: follow-up questions to offer.
        no_basis: nothing relevant was found; the LLM was not asked.
        backend: the LLM backend that answered.
        unsupported_sentences: answer sentences no passage supports (shown as such, never as verified).
        message: notes for the user (how the answer was checked, an LLM failure and its fix).
        evidence: the passages the answer was written from, each with its best sentence (shown first).
        claims: the verdict on every answer sentence.
        query: the question as searched (a follow-up rewritten with the conversation), when it differs.
        model_answer: the model's own text when it was replaced by the evidence because its main claim failed.
        llm_error: why the LLM failed ("" when it did not); the evidence's citations are shown instead.
    """

    answer: str
    citations: tuple[Citation, ...] = ()
    followups: tuple[str, ...] = ()
    no_basis: bool = False
    backend: str = ""
    unsupported_sentences: tuple[str, ...] = ()
    message: str = ""
    evidence: tuple[Evidence, ...] = ()
    claims: tuple[ClaimVerdict, ...] = ()
    query: str = ""
    model_answer: str = ""
    llm_error: str = ""


@dataclass(frozen=True, slots=True)
class BackendStatus:
    """What the sidebar shows about one LLM backend.

    Attributes:
        name: the backend (one of ``BACKEND_NAMES`` for the engine's own).
        available: whether it answers now.
        model: the model it would use ("" when unknown).
        detail: host, file path, or the reason it is unavailable (with the fix).
    """

    name: str
    available: bool
    model: str = ""
    detail: str = ""


@dataclass(frozen=True, slots=True)
class BackendReport:
    """Every LLM backend's status, and which one answers.

    Attributes:
        statuses: one per backend, in ``auto``'s order of preference.
        configured: the ``llm_backend`` setting (``auto`` or a backend name).
        live: the name of the backend answers use: the configured one, or the one ``auto`` picked (None: a named
            backend that is not among the statuses).
    """

    statuses: tuple[BackendStatus, ...]
    configured: str
    live: str | None

    @property
    def live_status(self) -> BackendStatus | None:
        return next((s for s in self.statuses if s.name == self.live), None)


class AnswerEvaluation(TypedDict):
    """Answer metrics (``evaluate --answers``): the summary (``accuracy``, ``no_answer_accuracy``, ...) and one row
    per question (format in ``rag.evaluation.answers``)."""

    summary: dict[str, Any]
    per_query: list[dict[str, Any]]
