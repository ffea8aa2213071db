"""Big generated text files and a memory meter for indexing them; shared by the big-file tests and
``bench/big_file.py``.

``measure_indexing`` runs one ``RagService.index_paths`` in a fresh interpreter (so nothing an earlier test
allocated counts) and samples the process's resident memory every 20 ms from ``/proc/self/statm``: the peak
growth over the resident memory just before indexing (engine imported, model loaded, Chroma open) is what the
file cost. The embedding step is either the real model or ``StandInEmbedder``, a fast stand-in behind the same
``Embedder`` protocol that is not a model (random unit vectors seeded by each text's CRC-32): with it the
figures are the pipeline's (read, chunk, tokenize, store), never a real embedding speed.

With ``trace_heap`` the child also traces Python's heap (``tracemalloc``: every Python object and numpy array,
not Chroma's own index or SQLite's cache) and reports its peak while the file's chunks were read, embedded and
written, up to the BM25 rebuild: the memory the writer itself needs. Chroma's HNSW graph and the BM25 index grow
with what is indexed by design (they are the index); the RSS figures include them.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
STAND_IN = "stand-in (random vectors seeded by CRC-32, not a model)"
_WORDS = ("device", "status", "reports", "operator", "checks", "valve", "pressure", "after", "before", "the",
          "cooling", "loop", "shift", "book", "records", "event", "retries", "sensor", "code", "interval")  # fmt: skip


class StandInEmbedder:
    """A fast stand-in for the embedding model (same ``Embedder`` protocol): not a model, for memory figures."""

    name = "stand-in"
    fingerprint = "stand-in-crc32-384"
    dimension = 384

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = [np.random.default_rng(zlib.crc32(t.encode("utf-8"))).standard_normal(self.dimension) for t in texts]
        matrix = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dimension)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True).clip(1e-9)


def write_text_file(path: Path, megabytes: float, seed: int = 7) -> Path:
    """A plain-text file of about ``megabytes`` MB: numbered paragraphs of varied sentences (no two chunks alike)."""
    rng = random.Random(seed)
    target = int(megabytes * 1024 * 1024)
    written = 0
    with path.open("w", encoding="utf-8") as out:
        n = 0
        while written < target:
            sentences = " ".join(
                f"Entry {n}.{s}: " + " ".join(rng.choice(_WORDS) for _ in range(rng.randint(8, 16))) + "."
                for s in range(rng.randint(3, 6))
            )
            paragraph = sentences + "\n\n"
            out.write(paragraph)
            written += len(paragraph)
            n += 1
    return path


_CHILD = r"""
import json, os, sys, threading, time, tracemalloc
from pathlib import Path
sys.path.insert(0, {repo!r})
from rag.service import RagService
from rag.settings import Settings
from tests.big_files import StandInEmbedder

settings = Settings.from_env(storage_dir=Path({storage!r}), index_slice_chunks={slice_chunks})
if {stand_in}:
    embedder = StandInEmbedder()
else:
    from rag.models.embedding import load_embedder
    embedder = load_embedder(settings)
service = RagService(settings, embedder=embedder)
warm = Path({storage!r}).parent / "warm.txt"
warm.parent.mkdir(parents=True, exist_ok=True)
warm.write_text("A short note so that Chroma, the tokenizer and the model are loaded before measuring.\n")
service.index_paths([warm])
page = os.sysconf("SC_PAGE_SIZE")
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * page
before = rss()
peak = [before]
done = threading.Event()
def sample():
    while not done.is_set():
        peak[0] = max(peak[0], rss())
        time.sleep(0.02)
sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
heap = {{"peak": 0}}
if {trace_heap}:
    import rag.index.writer
    rebuild = rag.index.writer.Index._rebuild_keyword
    def traced_rebuild(self):
        heap["peak"] = max(heap["peak"], tracemalloc.get_traced_memory()[1])
        return rebuild(self)
    rag.index.writer.Index._rebuild_keyword = traced_rebuild
    tracemalloc.start()
events = []
started = time.monotonic()
report = service.index_paths([Path({file!r})], progress=lambda e: events.append(e.current))
seconds = time.monotonic() - started
done.set(); sampler.join()
peak[0] = max(peak[0], rss())
outcome = report.files[0]
print(json.dumps({{"status": outcome.status, "error": outcome.error, "chunks": outcome.chunks,
                  "embedded": report.embedded, "seconds": seconds, "rss_before": before, "rss_peak": peak[0],
                  "progress_events": len(events), "last_progress": events[-2] if len(events) > 1 else "",
                  "heap_peak_writing": heap["peak"], "ok": service.check_consistency().ok}}))
"""


def measure_indexing(file: Path, storage: Path, *, slice_chunks: int = 1024, stand_in: bool = True,
                     trace_heap: bool = False, timeout_s: float = 3600) -> dict[str, object]:  # fmt: skip
    """Index ``file`` into ``storage`` in a fresh interpreter; what it reported, with resident memory in bytes.

    Raises:
        RuntimeError: the child failed (its stderr is in the message).
    """
    code = _CHILD.format(repo=str(REPO), storage=str(storage), file=str(file), slice_chunks=slice_chunks,
                         stand_in=stand_in, trace_heap=trace_heap)  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout_s,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"}, cwd=REPO)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"indexing {file.name} failed: {done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))
