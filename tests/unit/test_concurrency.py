"""Two writer processes and eight reader threads at once: no exception, no torn read, readers never wait for a
writer (they never ask for the writer lock with a wait), and the stores agree afterwards.

Real processes (forked from a forkserver that preloaded the engine), real Chroma, the real (small) model.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from rag.index.writer import Index
from rag.service import RagService
from tests.crash_driver import IndexRunner, cli_env, make_docs, store_ids

READERS = 8


@pytest.mark.slow
def test_two_writers_and_eight_readers(settings, minilm_embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    base = make_docs(tmp_path / "base", files=2)
    reader = RagService(settings, embedder=minilm_embedder)
    reader.index_paths([base])
    waits: list[tuple[str, float]] = []
    real_writer = Index.writer

    @contextmanager
    def recorded(self: Index, *, wait_s: float = 600.0) -> Iterator[None]:
        waits.append((threading.current_thread().name, wait_s))
        with real_writer(self, wait_s=wait_s):
            yield

    monkeypatch.setattr(Index, "writer", recorded)
    folders = [make_docs(tmp_path / name, files=4) for name in ("alpha", "beta")]
    env = cli_env(settings.storage, settings.models, settings.embedding_model)
    runner = IndexRunner()
    writers = [runner.start([f], env) for f in folders]
    errors: list[BaseException] = []
    searches = [0] * READERS
    stop = threading.Event()

    def read(n: int) -> None:
        while not stop.is_set():
            try:
                hits = reader.search(f"device {n % 4} status code retries", top_k=5)
                committed = reader.index.manifest.chunks_by_id([h.chunk.chunk_id for h in hits])
                assert all(h.chunk.text and committed[h.chunk.chunk_id].text == h.chunk.text for h in hits)
                searches[n] += 1
            except Exception as err:  # any failure in a reader is what this test looks for
                errors.append(err)
                return

    threads = [threading.Thread(target=read, args=(n,), name=f"reader-{n}") for n in range(READERS)]
    for thread in threads:
        thread.start()
    for w in writers:
        w.join(240)
    stop.set()
    for thread in threads:
        thread.join(60)

    assert [w.exitcode for w in writers] == [0, 0]
    assert not errors, errors[:3]
    assert all(searches), searches
    assert not [name for name, wait_s in waits if name.startswith("reader-") and wait_s > 0]  # readers never wait
    assert len(reader.sources()) == 10
    ids = store_ids(settings.storage)
    assert ids.manifest == ids.chroma == ids.bm25


def test_a_file_another_connection_holds_is_switched_to_wal_once_it_is_free(tmp_path: Path) -> None:
    """A second ``rag index`` started beside a first one lost a worker to "database is locked" on the switch to WAL
    (seen once in the full suite). ``open_wal`` waits, and retries, until the other connection lets the file go."""
    import sqlite3
    import time

    from rag.wal import open_wal

    path = tmp_path / "manifest.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE meta (key TEXT)")
    holder.execute("BEGIN EXCLUSIVE")
    released = threading.Timer(0.5, lambda: holder.execute("COMMIT"))
    released.start()
    started = time.monotonic()
    db = open_wal(path, timeout_s=10)
    waited = time.monotonic() - started
    released.join()
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert waited >= 0.4  # it waited for the holder instead of failing
    db.close()
    holder.close()
