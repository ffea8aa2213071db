"""The monitoring log: one SQLite row per search or answer, in ``<storage>/monitoring.sqlite3``.

Recording never raises: a locked, full or unwritable log costs the row (with a warning in the log), never the
search. Writes wait at most ``BUSY_TIMEOUT_MS`` for another process's write, so a stuck log cannot stall a search.
Rows older than the kept days are deleted by the writer itself (on its first write, then every ``PRUNE_EVERY``), so
a log that records every question for years stays the size of its window.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rag.records import LATENCY_STAGES, QUERY_KINDS, QueryEvent
from rag.wal import open_wal

log = logging.getLogger(__name__)

FILE_NAME = "monitoring.sqlite3"
BUSY_TIMEOUT_MS = 2000
PRUNE_EVERY = 500
_SETUP_LOCK = threading.Lock()
_PAUSED = threading.local()  # per thread, for every log: an evaluation's own services record nothing either

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, kind TEXT NOT NULL, stages_ms TEXT NOT NULL,
    hits INTEGER NOT NULL, top_score REAL, no_basis INTEGER NOT NULL, backend TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS events_by_time ON events(at);
"""


class QueryLog:
    """Thread-safe access to one monitoring file (a connection per thread, WAL mode).

    Args:
        path: the SQLite file (created, with its folder, on the first write).
        keep_days: rows older than this many days are deleted as new ones come in (0: kept for ever).
    """

    def __init__(self, path: Path, keep_days: int = 0) -> None:
        self.path = path
        self.keep_days = keep_days
        self._local = threading.local()
        self._writes = 0

    def _db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            # one thread at a time: switching a new file to WAL takes an exclusive lock that SQLite does not wait for,
            # so two threads' first records could lose one row to "database is locked"
            with _SETUP_LOCK:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = open_wal(self.path, timeout_s=BUSY_TIMEOUT_MS / 1000)
                db.executescript(_SCHEMA)
            self._local.db = db
        return db

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Record nothing from this thread, in any log, inside the block (evaluations are not people's questions)."""
        before = getattr(_PAUSED, "on", False)
        _PAUSED.on = True
        try:
            yield
        finally:
            _PAUSED.on = before

    def record(self, event: QueryEvent) -> bool:
        """Append one event; returns whether it was stored. Never raises for the log's own failures."""
        if getattr(_PAUSED, "on", False):
            return False
        row = (
            event.at,
            event.kind,
            json.dumps(dict(event.stages_ms)),
            event.hits,
            event.top_score,
            int(event.no_basis),
            event.backend,
        )
        try:
            self._db().execute(
                "INSERT INTO events(at, kind, stages_ms, hits, top_score, no_basis, backend) VALUES (?,?,?,?,?,?,?)",
                row,
            )
            if self.keep_days and self._writes % PRUNE_EVERY == 0:
                self.prune(time.time() - self.keep_days * 86400)
            self._writes += 1
        except (sqlite3.Error, OSError) as err:  # monitoring must never cost a search: log it and go on
            log.warning("Could not record a %s in %s: %s", event.kind, self.path, err)
            return False
        return True

    def prune(self, before: float) -> int:
        """Delete the rows older than ``before`` (seconds since the epoch); returns how many went."""
        return self._db().execute("DELETE FROM events WHERE at < ?", (before,)).rowcount

    def events(self, since: float = 0.0) -> list[QueryEvent]:
        """Every event at or after ``since`` (seconds since the epoch), oldest first; [] when there is no log yet.

        Raises:
            sqlite3.Error: the file exists but cannot be read (the caller says what to do).
        """
        if not self.path.exists():
            return []
        rows = self._db().execute(
            "SELECT at, kind, stages_ms, hits, top_score, no_basis, backend FROM events WHERE at >= ? ORDER BY at",
            (since,),
        )
        return [_event(*row) for row in rows]


def _event(at: float, kind: str, stages: str, hits: int, top: float | None, no_basis: int, backend: str) -> QueryEvent:
    known = {stage: float(ms) for stage, ms in json.loads(stages).items() if stage in LATENCY_STAGES}
    ordered = tuple((stage, known[stage]) for stage in LATENCY_STAGES if stage in known)
    return QueryEvent(
        at=float(at),
        kind=kind if kind in QUERY_KINDS else "search",  # type: ignore[arg-type]
        stages_ms=ordered,
        hits=int(hits),
        top_score=None if top is None else float(top),
        no_basis=bool(no_basis),
        backend=backend,
    )
