"""Opening the project's SQLite files (the manifest, the query log) in write-ahead-log mode.

Switching a file to WAL needs a moment alone with it. When two processes open a new index at once, SQLite can
answer the second one's switch with "database is locked" at once, without waiting the busy timeout (it does so
where waiting could deadlock, or while the other connection is still setting the log up). Two ``rag index`` runs
started together then lost one of them. ``open_wal`` retries the switch until the timeout instead.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

RETRY_PAUSE_S = 0.05


def open_wal(path: Path, timeout_s: float) -> sqlite3.Connection:
    """A connection to ``path`` in WAL mode with ``synchronous=NORMAL``, autocommit (``isolation_level=None``) and a
    busy timeout of ``timeout_s``, which also bounds the retries of the switch to WAL.

    Raises:
        sqlite3.OperationalError: the file stayed locked for ``timeout_s``, or another error.
    """
    db = sqlite3.connect(path, timeout=timeout_s, isolation_level=None)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            break
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() >= deadline:
                db.close()
                raise
            time.sleep(RETRY_PAUSE_S)
    db.execute("PRAGMA synchronous=NORMAL")
    return db
