"""What the facade records about each search and answer, and how it reads the figures back.

A search or an answer is recorded with its stage times, hit count, top score and basis, never its question. The
facade calls these; reading the log turns SQLite's errors into ``MonitoringError``.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rag.errors import MonitoringError
from rag.monitoring.query_log import QueryLog
from rag.monitoring.summary import summarize
from rag.records import Answer, Hit, LatencyStage, MonitoringSummary, QueryEvent, QueryKind
from rag.settings import Settings

if TYPE_CHECKING:
    from rag.retrieval.hybrid import StageTimes

StageTimings = tuple[tuple[LatencyStage, float], ...]
"""Milliseconds per stage that ran, in ``LATENCY_STAGES`` order."""


def read_summary(query_log: QueryLog, *, days: float) -> MonitoringSummary:
    """Searches and answers of the last ``days``: p50/p95 per stage, hit and no-basis ratios, questions by hour.

    Raises:
        MonitoringError: the monitoring file exists but cannot be read.
    """
    now = time.time()
    since = now - days * 86400
    try:
        events = query_log.events(since)
    except sqlite3.Error as err:
        raise MonitoringError(
            f"Cannot read the monitoring log {query_log.path}: {err}. Move the file away; a new one starts "
            "with the next question."
        ) from err
    return summarize(events, since=since, now=now)


def search_stages(times: StageTimes) -> StageTimings:
    """A search's stages in milliseconds (a stage that did not run is left out)."""
    stages: tuple[tuple[LatencyStage, float], ...] = (
        ("embed", times.embed_ms),
        ("dense", times.dense_ms),
        ("bm25", times.bm25_ms),
        ("fusion", times.fuse_ms),
        ("rerank", times.rerank_ms),
    )
    return tuple((stage, ms) for stage, ms in stages if ms > 0)


def record_query(
    query_log: QueryLog,
    settings: Settings,
    kind: QueryKind,
    hits: Sequence[Hit],
    stages: StageTimings,
    started: float,
    answer: Answer | None = None,
) -> None:
    """Record one search or answer (nothing when ``settings.monitoring`` is off); ``started`` is its
    ``time.perf_counter()`` at the start, for the total."""
    if not settings.monitoring:
        return
    from rag.answers.context import has_basis

    total = (time.perf_counter() - started) * 1e3
    no_basis = answer.no_basis if answer is not None else not has_basis(hits, settings)
    query_log.record(
        QueryEvent(
            at=time.time(),
            kind=kind,
            stages_ms=tuple((stage, round(ms, 3)) for stage, ms in (*stages, ("total", total))),
            hits=len(hits),
            top_score=hits[0].score if hits else None,
            no_basis=no_basis,
            backend=answer.backend if answer is not None else "",
        )
    )
