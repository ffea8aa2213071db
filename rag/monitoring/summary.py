"""Figures from the monitoring log: p50/p95 per stage, hit and no-basis ratios, questions by hour."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np

from rag.records import LATENCY_STAGES, HourCount, MonitoringSummary, QueryEvent, StageLatency

HOUR_S = 3600


def summarize(events: Sequence[QueryEvent], *, since: float, now: float) -> MonitoringSummary:
    """Summarize the events of one window of time.

    Args:
        events: the events at or after ``since`` (any order).
        since: the window's start, seconds since the epoch.
        now: the window's end; the hourly counts run up to its hour.

    Returns:
        The summary; ratios are None and ``by_hour`` is empty when the window holds no event.
    """
    inside = sorted((e for e in events if since <= e.at <= now), key=lambda e: e.at)
    per_stage: dict[str, list[float]] = {}
    for event in inside:
        for stage, ms in event.stages_ms:
            per_stage.setdefault(stage, []).append(ms)
    stages = tuple(
        StageLatency(stage, len(per_stage[stage]), *_p50_p95(per_stage[stage]))
        for stage in LATENCY_STAGES
        if stage in per_stage
    )
    total = len(inside)
    return MonitoringSummary(
        since=_iso(since),
        searches=sum(e.kind == "search" for e in inside),
        answers=sum(e.kind == "answer" for e in inside),
        stages=stages,
        hit_ratio=sum(e.hits > 0 for e in inside) / total if total else None,
        no_basis_ratio=sum(e.no_basis for e in inside) / total if total else None,
        by_hour=_by_hour(inside, now),
        backends=tuple(sorted(Counter(e.backend for e in inside if e.kind == "answer" and e.backend).items())),
    )


def _p50_p95(values: list[float]) -> tuple[float, float]:
    p50, p95 = np.percentile(np.asarray(values, dtype=float), [50, 95])
    return round(float(p50), 2), round(float(p95), 2)


def _by_hour(events: Sequence[QueryEvent], now: float) -> tuple[HourCount, ...]:
    """Every clock hour from the first event's to ``now``'s, zeros included, so a chart's gaps are real."""
    if not events:
        return ()
    searches = Counter(int(e.at // HOUR_S) for e in events if e.kind == "search")
    answers = Counter(int(e.at // HOUR_S) for e in events if e.kind == "answer")
    first, last = int(events[0].at // HOUR_S), max(int(now // HOUR_S), int(events[-1].at // HOUR_S))
    return tuple(HourCount(_iso(hour * HOUR_S, "%Y-%m-%dT%H:00Z"), searches[hour], answers[hour])
                 for hour in range(first, last + 1))  # fmt: skip


def _iso(seconds: float, pattern: str = "%Y-%m-%dT%H:%M:%SZ") -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime(pattern)
