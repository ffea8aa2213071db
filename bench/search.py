"""Search latency at scale: hybrid p50/p95 with the per-stage split, filtered queries, RSS.

Builds a 100k-chunk index from the SciFact evaluation index (``python -m rag evaluate ../shared/data/scifact
--split train`` must have run with the same storage and model, so its chunks and embeddings exist), repeated
with variations: each copy is its own source with a distinct doc_type, a variant word in its text and its
embeddings jittered (Gaussian noise, renormalized), so neither retriever sees exact duplicates. The big index is
kept under ``<storage>/bench/search-<copies>`` and reused by later runs.

The queries run in a fresh process that only opens the built index, as the app would, so the peak RSS printed
is that of serving searches, not of building the index.

Run: .venv/bin/python bench/search.py [--copies 10] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from rag.index.manifest import ChunkRow, SourceRow  # noqa: E402
from rag.records import SearchFilters  # noqa: E402
from rag.service import RagService  # noqa: E402
from rag.settings import Settings  # noqa: E402

SCIFACT = ROOT.parent / "shared" / "data" / "scifact"


def find_eval_storage(settings: Settings) -> Path:
    candidates = sorted((settings.storage / "eval").glob("scifact-*"))
    if not candidates:
        sys.exit(
            f"No SciFact evaluation index under {settings.storage / 'eval'}: run "
            "`python -m rag evaluate ../shared/data/scifact --split train` first (same RAG_STORAGE_DIR)."
        )
    return candidates[-1]


def build_big_index(base: RagService, target: RagService, copies: int, rng: np.random.Generator) -> int:
    source = base.sources()[0]
    chunks = base.chunks_of(source)
    vectors = base.index.vectors.embeddings_of([c.chunk_id for c in chunks])
    tokenizer = target.index.tokenizer
    total = 0
    for n in range(copies):
        name, variant = f"scifact-copy{n:02d}", f"variant{n:02d}"
        copied = [replace(c, chunk_id=f"{n:02d}-{c.chunk_id}", source=name, doc_type=f"type{n % 5}",
                          text=f"{c.text} {variant}") for c in chunks]  # fmt: skip
        matrix = np.stack([vectors[c.chunk_id] for c in chunks])
        matrix = matrix + rng.normal(0, 0.01, matrix.shape).astype(np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        target.index.vectors.upsert(copied, matrix)
        rows = [ChunkRow(c, tuple(tokenizer.tokenize(c.text))) for c in copied]
        with target.index.manifest.transaction() as db:
            version = target.index.manifest.bump_version(db, "index", name)
            target.index.manifest.replace_chunks(db, name, rows)
            target.index.manifest.put_source(db, SourceRow(name, str(SCIFACT / "corpus.jsonl"), name, f"type{n % 5}",
                                                           0, 0.0, "", 1, len(rows), "indexed", "", (), "", "en",
                                                           version))  # fmt: skip
            target.index.manifest.set_meta(db, "embedding_model", base.embedder.fingerprint)
        total += len(copied)
        print(f"  copy {n + 1}/{copies}: {total} chunks", file=sys.stderr)
    target.index.keyword_index()  # the manifest changed: this rebuilds and saves BM25
    return total


def measure(service: RagService, queries: list[str], filters: SearchFilters | None) -> dict[str, float]:
    totals, stages = [], {"embed": [], "dense": [], "bm25": [], "fuse": []}
    for query in queries:
        started = time.perf_counter()
        service.search(query, top_k=5, filters=filters, rerank=False)
        totals.append((time.perf_counter() - started) * 1e3)
        times = service.retriever.last_times
        for key, value in (("embed", times.embed_ms), ("dense", times.dense_ms), ("bm25", times.bm25_ms),
                           ("fuse", times.fuse_ms)):  # fmt: skip
            stages[key].append(value)
    ordered = sorted(totals)
    result = {"p50": statistics.median(ordered), "p95": ordered[int(0.95 * (len(ordered) - 1))]}
    result.update({f"{k}_p50": statistics.median(v) for k, v in stages.items()})
    return result


def serve(storage: Path, queries: list[str]) -> None:
    """Open the built index as the app would and time the queries (run in a process of its own)."""
    settings = Settings.from_env()
    service = RagService(replace(settings, storage_dir=storage, model_dir=settings.models))
    for query in queries[:5]:  # warm: model, Chroma segment, BM25 mmap, torch's thread pool
        service.search(query)
    hybrid = measure(service, queries, None)
    one_source = measure(service, queries, SearchFilters(sources=("scifact-copy03",)))
    doc_type = measure(service, queries, SearchFilters(doc_types=("type1", "type2")))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for label, figures in (("hybrid, no filter", hybrid), ("filter: 1 source of 10", one_source),
                           ("filter: 2 doc types of 5", doc_type)):  # fmt: skip
        split = ", ".join(f"{k[:-4]} {v:.1f}" for k, v in figures.items() if k.endswith("_p50"))
        print(f"{label:<26} p50 {figures['p50']:.1f} ms  p95 {figures['p95']:.1f} ms   stage p50 ms: {split}")
    print(f"chunks {service.stats().chunks}, queries {len(queries)}, peak RSS of the searching process {rss:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)  # internal: the measuring child process
    args = parser.parse_args()
    queries = [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").read_text().splitlines()]
    queries = queries[: args.queries]
    if args.serve:
        serve(args.serve, queries)
        return
    settings = Settings.from_env()
    storage = settings.storage / "bench" / f"search-{args.copies}"
    big = RagService(replace(settings, storage_dir=storage, model_dir=settings.models))
    if big.index.manifest.chunk_count() == 0:
        base = RagService(replace(settings, storage_dir=find_eval_storage(settings), model_dir=settings.models))
        started = time.perf_counter()
        total = build_big_index(base, big, args.copies, np.random.default_rng(0))
        print(f"built {total} chunks in {time.perf_counter() - started:.0f} s into {storage}")
    del big
    command = [sys.executable, __file__, "--serve", str(storage), "--queries", str(args.queries)]
    subprocess.run(command, check=True)


if __name__ == "__main__":
    main()
