"""Search latency at scale: hybrid p50/p95 with the per-stage split, filtered queries, RSS.

Builds a 100k-chunk index from the SciFact evaluation index (``python -m rag evaluate ../shared/data/scifact
--split train`` must have run with the same storage and model, so its chunks and embeddings exist), repeated
with variations: each copy is its own source with a distinct doc_type, a variant word in its text and its
embeddings jittered (Gaussian noise, renormalized), so neither retriever sees exact duplicates.

Run: .venv/bin/python bench/search.py [--copies 10] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from rag.manifest import ChunkRow, SourceRow  # noqa: E402
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
    target.index._rebuild_keyword()
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    settings = Settings.from_env()
    base = RagService(replace(settings, storage_dir=find_eval_storage(settings), model_dir=settings.models))
    queries = [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").read_text().splitlines()][
        : args.queries
    ]
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        big = RagService(replace(settings, storage_dir=Path(tmp), model_dir=settings.models), embedder=base.embedder)
        started = time.perf_counter()
        total = build_big_index(base, big, args.copies, np.random.default_rng(0))
        print(f"built {total} chunks in {time.perf_counter() - started:.0f} s")
        big.search(queries[0])  # warm: model, Chroma segment, BM25 mmap, metadata table
        hybrid = measure(big, queries, None)
        one_source = measure(big, queries, SearchFilters(sources=("scifact-copy03",)))
        doc_type = measure(big, queries, SearchFilters(doc_types=("type1", "type2")))
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for label, figures in (("hybrid, no filter", hybrid), ("filter: 1 source of 10", one_source),
                           ("filter: 2 doc types of 5", doc_type)):  # fmt: skip
        split = ", ".join(f"{k[:-4]} {v:.1f}" for k, v in figures.items() if k.endswith("_p50"))
        print(f"{label:<26} p50 {figures['p50']:.1f} ms  p95 {figures['p95']:.1f} ms   stage p50 ms: {split}")
    print(f"chunks {total}, queries {len(queries)}, peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
