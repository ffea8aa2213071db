"""What monitoring records about each search and answer, and the figures it sums them up in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

QueryKind = Literal["search", "answer"]
QUERY_KINDS: tuple[QueryKind, ...] = get_args(QueryKind)
"""What a monitored question was: a search alone, or a search and an answer."""

LatencyStage = Literal[
    "embed", "dense", "bm25", "fusion", "rerank", "context", "first_token", "generate", "check", "total"
]
LATENCY_STAGES: tuple[LatencyStage, ...] = get_args(LatencyStage)
"""The stages a question's time is measured in, in the order they run: the query embedding, Chroma's search, BM25,
fusion (with the manifest read and entity boost), the cross-encoder; for an answer the passages and evidence
(``context``), the wait for the first streamed word, the whole reply, the claim checks; ``total`` is the whole."""


@dataclass(frozen=True, slots=True)
class QueryEvent:
    """One search or answer as monitoring recorded it. No question text is kept: it is private.

    Attributes:
        at: when it finished, seconds since the epoch (UTC).
        kind: search or answer.
        stages_ms: milliseconds per stage that ran, in ``LATENCY_STAGES`` order.
        hits: how many hits the search returned.
        top_score: the best hit's score (None without hits).
        no_basis: the hits were no basis to answer from (for an answer: it said "no basis in the documents").
        backend: the LLM backend that answered ("" for a search).
    """

    at: float
    kind: QueryKind
    stages_ms: tuple[tuple[LatencyStage, float], ...]
    hits: int
    top_score: float | None
    no_basis: bool
    backend: str = ""


@dataclass(frozen=True, slots=True)
class StageLatency:
    """Median and 95th percentile of one stage over the questions in which it ran."""

    stage: LatencyStage
    count: int
    p50_ms: float
    p95_ms: float


@dataclass(frozen=True, slots=True)
class HourCount:
    """Questions in one clock hour (UTC), by kind; ``hour`` is its start, ``2026-11-23T20:00Z``."""

    hour: str
    searches: int
    answers: int


@dataclass(frozen=True, slots=True)
class MonitoringSummary:
    """Searches and answers over a window of time, from the monitoring log.

    Attributes:
        since: the window's start (ISO 8601, UTC).
        searches: searches in the window.
        answers: answers in the window.
        stages: p50/p95 per stage that ran at least once, in ``LATENCY_STAGES`` order.
        hit_ratio: share of questions with at least one hit (None without questions).
        no_basis_ratio: share of questions without a basis to answer from (None without questions).
        by_hour: every clock hour from the first question in the window to now, oldest first.
        backends: answers per LLM backend.
    """

    since: str
    searches: int
    answers: int
    stages: tuple[StageLatency, ...]
    hit_ratio: float | None
    no_basis_ratio: float | None
    by_hour: tuple[HourCount, ...]
    backends: tuple[tuple[str, int], ...] = ()
