"""Scale: index build time, hybrid search p50/p95 and serving RSS at N synthetic chunks, in-process and through
a ``chroma run`` server.

The index is built through the stores the engine uses (``ChromaStore.upsert``, the manifest's chunk rows with
their BM25 tokens, ``KeywordIndex`` rebuilt from the manifest), with random unit vectors of the real dimension
(384) and synthetic texts: words drawn from a Zipf-like distribution over a vocabulary of made-up Latin-script and
katakana words, each word's tokens being what the configured BM25 tokenizer makes of it (so queries tokenize to
the stored tokens). Nothing is embedded at build time; queries are embedded by the real model as in the app.

Each serving mode runs in a fresh process that only opens the index, as the app would: first in-process (embedded
Chroma on the built folder), then through ``chroma run --path <storage>/chroma`` (the same files, served). RSS is
read from /proc: steady (VmRSS after the queries) and peak (VmHWM); the BM25 figure is what loading the keyword
index adds to the serving process, the Chroma figure what the first dense query adds (in-process) or the server
process's own RSS.

Run: nice -n 10 .venv/bin/python bench/scale.py --chunks 100000 [--queries 200] [--build-through server]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import numpy as np  # noqa: E402
from chroma_run import ChromaRun  # noqa: E402  (the tests' `chroma run` starter: a real server)

from rag.index.manifest import ChunkRow, SourceRow  # noqa: E402
from rag.records import Chunk  # noqa: E402
from rag.service import RagService  # noqa: E402
from rag.settings import Settings  # noqa: E402

DIMENSION = 384  # multilingual-e5-small
BATCH = 10_000
CHUNKS_PER_SOURCE = 200
VOCABULARY = 40_000
SYLLABLES = ["ka", "mi", "to", "ra", "su", "ne", "po", "li", "de", "zu", "ho", "ya", "gi", "ve", "no", "ba"]
KANA = list("カミトラスネポリデズホヤギベノバシタコ")


def made_up_words(rng: np.random.Generator, count: int) -> list[str]:
    """``count`` distinct words: two thirds Latin syllables, one third katakana."""
    words: set[str] = set()
    while len(words) < count:
        length = int(rng.integers(2, 5))
        alphabet = KANA if rng.random() < 0.33 else SYLLABLES
        words.add("".join(alphabet[i] for i in rng.integers(0, len(alphabet), length)))
    return sorted(words)


class SyntheticCorpus:
    """Chunks with Zipf-distributed words, their BM25 tokens and random unit vectors, made batch by batch."""

    def __init__(self, service: RagService, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.words = made_up_words(self.rng, VOCABULARY)
        tokenizer = service.index.tokenizer
        self.word_tokens = [tuple(tokenizer.tokenize(word)) for word in self.words]
        weights = 1.0 / (np.arange(VOCABULARY) + 10.0) ** 1.05
        self.probabilities = weights / weights.sum()

    def batch(self, start: int, size: int) -> tuple[list[ChunkRow], np.ndarray]:
        rows = []
        for n in range(start, start + size):
            picks = self.rng.choice(VOCABULARY, size=int(self.rng.integers(60, 120)), p=self.probabilities)
            source = f"synthetic/doc{n // CHUNKS_PER_SOURCE:06d}.txt"
            chunk = Chunk(f"scale-{n:09d}", " ".join(self.words[i] for i in picks), source, rel_path=source,
                          doc_type=f"type{n % 5}", page=1, chunk_index=n % CHUNKS_PER_SOURCE)  # fmt: skip
            rows.append(ChunkRow(chunk, tuple(t for i in picks for t in self.word_tokens[i])))
        vectors = self.rng.standard_normal((size, DIMENSION)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return rows, vectors

    def queries(self, count: int) -> list[str]:
        """Three to five words from the vocabulary's middle (neither stop-word-like nor unseen)."""
        return [" ".join(self.words[i] for i in self.rng.integers(50, 5000, int(self.rng.integers(3, 6))))
                for _ in range(count)]  # fmt: skip


def build(service: RagService, corpus: SyntheticCorpus, total: int) -> dict[str, float]:
    """Write ``total`` chunks through the engine's stores; seconds spent in each."""
    index, spent = service.index.manifest, {"chroma_s": 0.0, "manifest_s": 0.0, "bm25_s": 0.0}
    for start in range(0, total, BATCH):
        rows, vectors = corpus.batch(start, min(BATCH, total - start))
        started = time.perf_counter()
        service.index.vectors.upsert([r.chunk for r in rows], vectors)
        spent["chroma_s"] += time.perf_counter() - started
        started = time.perf_counter()
        with index.transaction() as db:
            version = index.bump_version(db, "index", f"synthetic {start}")
            for first in range(0, len(rows), CHUNKS_PER_SOURCE):
                part = rows[first : first + CHUNKS_PER_SOURCE]
                source = part[0].chunk.source
                index.add_chunks(db, source, part)
                index.put_source(db, SourceRow(source, source, source, part[0].chunk.doc_type, 0, 0.0, "", 1,
                                               len(part), "indexed", "", (), "", "", version))  # fmt: skip
        spent["manifest_s"] += time.perf_counter() - started
        done = start + len(rows)
        print(f"  {done:,}/{total:,} chunks, chroma {spent['chroma_s']:.0f} s", file=sys.stderr, flush=True)
    started = time.perf_counter()
    service.index.keyword_index()  # the manifest changed: rebuilds and saves BM25 from its tokens
    spent["bm25_s"] = time.perf_counter() - started
    return spent


def memory_of(pid: int | str = "self") -> dict[str, float]:
    """Steady (VmRSS) and peak (VmHWM) resident memory of a process, in MB."""
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    fields = {line.split(":")[0]: float(line.split()[1]) / 1024 for line in status if line.startswith("Vm")}
    return {"rss_mb": fields["VmRSS"], "peak_mb": fields["VmHWM"]}


def percentiles(name: str, values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {f"{name}_p50": statistics.median(ordered), f"{name}_p95": ordered[int(0.95 * (len(ordered) - 1))]}


def time_queries(service: RagService, queries: list[str]) -> dict[str, float]:
    """Hybrid search p50/p95: whole (query embedding included) and retrieval alone (dense + BM25 + fusion)."""
    totals, retrieval, stages = [], [], {"embed": [], "dense": [], "bm25": []}
    for query in queries:
        started = time.perf_counter()
        service.search(query, top_k=5, rerank=False)
        totals.append((time.perf_counter() - started) * 1e3)
        times = service.retriever.last_times
        retrieval.append(times.dense_ms + times.bm25_ms + times.fuse_ms)
        for key, value in (("embed", times.embed_ms), ("dense", times.dense_ms), ("bm25", times.bm25_ms)):
            stages[key].append(value)
    figures = {**percentiles("search", totals), **percentiles("retrieval", retrieval)}
    for key, values in stages.items():
        figures.update(percentiles(key, values))
    return figures


def serve(storage: Path, queries: list[str], chroma_url: str, server_pid: int) -> None:
    """Open the built index as the app would, time the queries, print one JSON line of figures."""
    settings = Settings.from_env()
    service = RagService(replace(settings, storage_dir=storage, model_dir=settings.models, chroma_url=chroma_url))
    figures = {"start_mb": memory_of()["rss_mb"]}
    service.index.keyword_index()
    figures["bm25_mb"] = memory_of()["rss_mb"] - figures["start_mb"]
    before = memory_of()["rss_mb"]
    service.embedder.embed_queries(["warm"])
    figures["model_mb"] = memory_of()["rss_mb"] - before
    before = memory_of()["rss_mb"]
    started = time.perf_counter()
    service.search(queries[0], rerank=False)
    figures["first_query_ms"] = (time.perf_counter() - started) * 1e3
    figures["chroma_open_mb"] = memory_of()["rss_mb"] - before
    for query in queries[1:6]:  # warm: torch's thread pool, the HNSW and BM25 pages
        service.search(query, rerank=False)
    figures.update(time_queries(service, queries))
    figures.update(memory_of())
    if server_pid:
        figures.update({f"server_{k}": v for k, v in memory_of(server_pid).items()})
    print(json.dumps(figures))


def run_serving(storage: Path, queries: int, server: ChromaRun | None) -> dict[str, float]:
    url, pid = (server.url, server.pid) if server else ("", 0)
    command = [sys.executable, __file__, "--serve", str(storage), "--queries", str(queries), "--chroma-url", url,
               "--server-pid", str(pid)]  # fmt: skip
    output = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout
    return dict(json.loads(output.strip().splitlines()[-1]))


def print_table(chunks: int, built: dict[str, float], rows: dict[str, dict[str, float]]) -> None:
    total = built["chroma_s"] + built["manifest_s"] + built["bm25_s"]
    print(f"\n{chunks:,} chunks: build {total:.0f} s (Chroma upsert {built['chroma_s']:.0f} s = "
          f"{chunks / max(built['chroma_s'], 1e-9):,.0f} chunks/s, manifest {built['manifest_s']:.0f} s, "
          f"BM25 {built['bm25_s']:.0f} s); on disk: Chroma {built['chroma_gb']:.2f} GB, "
          f"manifest {built['manifest_gb']:.2f} GB, BM25 {built['bm25_gb']:.2f} GB")  # fmt: skip
    print("search = the whole hybrid search, query embedding included; retrieval = dense + BM25 + fusion; ms")
    print(f"{'serving':<22}{'search p50/p95':>15}{'retrieval p50/p95':>18}{'dense p50':>10}{'bm25 p50':>9}"
          f"{'embed p50':>10}{'app RSS/peak MB':>16}{'BM25 MB':>8}{'server RSS/peak MB':>19}")  # fmt: skip
    for label, f in rows.items():
        server = f"{f.get('server_rss_mb', 0):.0f}/{f.get('server_peak_mb', 0):.0f}"
        print(f"{label:<22}{f['search_p50']:>8.1f}/{f['search_p95']:<6.1f}{f['retrieval_p50']:>11.1f}/"
              f"{f['retrieval_p95']:<6.1f}{f['dense_p50']:>10.1f}{f['bm25_p50']:>9.1f}{f['embed_p50']:>10.1f}"
              f"{f['rss_mb']:>10.0f}/{f['peak_mb']:<5.0f}{f['bm25_mb']:>8.0f}{server:>19}")  # fmt: skip
    print(json.dumps({"chunks": chunks, "build": built, "serving": rows}))


def size_gb(path: Path) -> float:
    """A file's size, or all the files' under a folder, in GB."""
    if path.is_file():
        return path.stat().st_size / 1e9
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e9


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--build-through", choices=("embedded", "server"), default="embedded")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)  # internal: the measuring child process
    parser.add_argument("--chroma-url", default="", help=argparse.SUPPRESS)
    parser.add_argument("--server-pid", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    settings = Settings.from_env()
    storage = settings.storage / "bench" / f"scale-{args.chunks}"
    if args.serve:
        corpus = SyntheticCorpus(RagService(replace(settings, storage_dir=args.serve)))
        serve(args.serve, corpus.queries(args.queries), args.chroma_url, args.server_pid)
        return
    shutil.rmtree(storage, ignore_errors=True)
    server = ChromaRun(storage / "chroma").start() if args.build_through == "server" else None
    try:
        service = RagService(replace(settings, storage_dir=storage, model_dir=settings.models,
                                     chroma_url=server.url if server else ""))  # fmt: skip
        corpus = SyntheticCorpus(service)
        built = build(service, corpus, args.chunks)
        if server:
            built["build_server_peak_mb"] = memory_of(server.pid)["peak_mb"]
        del service
    finally:
        if server:
            server.stop()
    for name, path in (("chroma", "chroma"), ("manifest", "manifest.sqlite3"), ("bm25", "bm25")):
        built[f"{name}_gb"] = size_gb(storage / path)
    rows = {"in-process (embedded)": run_serving(storage, args.queries, None)}
    server = ChromaRun(storage / "chroma").start()
    try:
        rows["through chroma run"] = run_serving(storage, args.queries, server)
    finally:
        server.stop()
    print_table(args.chunks, built, rows)


if __name__ == "__main__":
    main()
