"""Run ``python -m rag index``'s entry point in child processes and SIGKILL them at chosen points; read what the three
stores hold afterwards. Shared by the crash-safety and concurrency tests and ``bench/faults.py``.

Each run is a real process that ``rag.cli.main(["index", ...])`` runs in, killed with a real SIGKILL. The processes
fork from a forkserver that imported the engine's heavy modules once (torch, sentence-transformers, chromadb:
~20 s per interpreter on a busy two-core machine), so twenty kills cost seconds, not minutes. A kill point is
random (a delay drawn over the length of a whole run: parsing, embedding, the Chroma write, the manifest
switch-over, the BM25 rebuild) or exact: right after ``ChromaStore.upsert`` (Chroma holds the vectors, the manifest
does not list them) or right after ``Manifest.put_source`` inside the switch-over transaction (not committed);
``"chroma@3"`` dies after the third call (a big file's third slice, after two were committed).
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import random
import signal
import sqlite3
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.context import ForkServerContext
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXACT_POINTS = {
    "chroma": ("rag.index.vector_store", "ChromaStore", "upsert"),
    "manifest": ("rag.index.manifest", "Manifest", "put_source"),
}
_PRELOAD = [
    "torch",
    "sentence_transformers",
    "chromadb",
    "rag.cli",
    "rag.service",
    "rag.index.writer",
    "rag.models.embedding",
]


@dataclass(frozen=True)
class StoreIds:
    """The chunk ids each store holds."""

    manifest: frozenset[str]
    chroma: frozenset[str]
    bm25: frozenset[str]


def cli_env(storage: Path, models: Path, embedding_model: str) -> dict[str, str]:
    return {"RAG_STORAGE_DIR": str(storage), "RAG_MODEL_DIR": str(models), "RAG_EMBEDDING_MODEL": embedding_model,
            "HF_HUB_OFFLINE": "1"}  # fmt: skip


def _index_child(paths: Sequence[str], env: dict[str, str], crash_at: str) -> None:
    """The child: ``python -m rag index PATHS --json`` but for the interpreter start (dying at ``crash_at``)."""
    os.environ.update(env)
    if crash_at:
        point, _, nth = crash_at.partition("@")
        module, owner, name = EXACT_POINTS[point]
        cls = getattr(importlib.import_module(module), owner)
        real = getattr(cls, name)
        calls = [0]

        def dying(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            real(self, *args, **kwargs)
            calls[0] += 1
            if calls[0] >= int(nth or 1):
                os.kill(os.getpid(), signal.SIGKILL)

        setattr(cls, name, dying)
    from rag.cli import main

    with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        code = main(["index", *paths, "--json"])
    sys.exit(code)


def _nothing() -> None:
    pass


class IndexRunner:
    """Starts index runs as child processes of one forkserver that preloaded the engine (started here, once)."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("forkserver")
        assert isinstance(context, ForkServerContext)
        context.set_forkserver_preload(_PRELOAD)
        self._context = context
        started = context.Process(target=_nothing)
        started.start()
        started.join()

    def start(self, paths: Sequence[Path], env: dict[str, str], crash_at: str = "") -> multiprocessing.Process:
        process = self._context.Process(target=_index_child, args=([str(p) for p in paths], env, crash_at))
        process.start()
        return process

    def run(self, paths: Sequence[Path], env: dict[str, str], crash_at: str = "", timeout_s: float = 300) -> int:
        """One run to its end (or its exact crash point); its exit code, ``-9`` when it was killed."""
        process = self.start(paths, env, crash_at)
        process.join(timeout_s)
        return process.exitcode if process.exitcode is not None else -1

    def kill_after(self, paths: Sequence[Path], env: dict[str, str], delay_s: float) -> bool:
        """Start a run and SIGKILL it after ``delay_s``; True when it was still running then."""
        process = self.start(paths, env)
        process.join(delay_s)
        alive = process.is_alive()
        if alive and process.pid is not None:
            os.kill(process.pid, signal.SIGKILL)
        process.join(60)
        return alive

    def kill_at_random(self, paths: Sequence[Path], env: dict[str, str], rng: random.Random, span_s: float) -> bool:
        """SIGKILL a run at a random moment within ``span_s`` (the length of a whole run)."""
        return self.kill_after(paths, env, rng.uniform(0.0, span_s))

    def timed_run(self, paths: Sequence[Path], env: dict[str, str]) -> float:
        """Seconds one complete run takes (the span random kill points are drawn from)."""
        started = time.monotonic()
        code = self.run(paths, env)
        if code not in (0, 1):
            raise RuntimeError(f"index run failed with exit code {code}")
        return time.monotonic() - started


def store_ids(storage: Path) -> StoreIds:
    """Read the three stores directly, without the engine's recovery in between."""
    import chromadb

    from rag.index.keyword_index import KeywordIndex

    with contextlib.closing(sqlite3.connect(storage / "manifest.sqlite3")) as db:
        manifest = frozenset(r[0] for r in db.execute("SELECT chunk_id FROM chunks"))
    client = chromadb.PersistentClient(str(storage / "chroma"))
    chroma: set[str] = set()
    for collection in client.list_collections():
        chroma |= set(client.get_collection(collection.name).get(include=[])["ids"])
    bm25 = frozenset(KeywordIndex.load(storage / "bm25").ids)
    return StoreIds(manifest, frozenset(chroma), bm25)


def make_docs(folder: Path, files: int = 6) -> Path:
    folder.mkdir(parents=True)
    for i in range(files):
        paragraphs = [f"Section {i}.{p}: device {i} reports status code {100 * i + p} after {p + 2} retries, "
                      f"and the operator logs event {i}-{p} in the shift book before the next check."
                      for p in range(12)]  # fmt: skip
        (folder / f"report_{i}.md").write_text(f"# Report {i}\n\n" + "\n\n".join(paragraphs), encoding="utf-8")
    return folder


def edit(docs: Path, n: int) -> None:
    """Change one file so the next run has something to write."""
    files = sorted(docs.iterdir())
    target = files[n % len(files)]
    target.write_text(
        target.read_text(encoding="utf-8") + f"\n\nRevision {n}: the check interval is {n + 5} minutes.\n"
    )
