"""BM25 parameters: nDCG@10 of keyword search alone over a k1 x b grid, on both golden sets.

Reads the evaluation indexes that ``python -m rag evaluate`` builds (same ``RAG_STORAGE_DIR``; built here when
missing), rebuilds only the BM25 index from the manifest's stored tokens for each (k1, b), and ranks documents at
their best chunk, as ``rag.evaluation.retrieval`` does. ``rag.settings``' ``bm25_k1``/``bm25_b`` take the best
mean. Run::

    .venv/bin/python bench/bm25_params.py
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from golden_sets import DATA, SETS  # noqa: E402

from rag.evaluation.metrics import evaluate_run  # noqa: E402
from rag.evaluation.retrieval import corpus_service, read_qrels  # noqa: E402
from rag.index.keyword_index import KeywordIndex  # noqa: E402
from rag.service import RagService  # noqa: E402


def keyword_ndcg(service: RagService, folder: Path, split: str, grid: list[tuple[float, float]]) -> list[float]:
    """nDCG@10 of BM25 alone for each (k1, b) of ``grid``."""
    qrels = read_qrels(folder / "qrels" / f"{split}.tsv")
    queries = [json.loads(line) for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()]
    index = corpus_service(
        service.settings, folder / "corpus.jsonl", lambda s: RagService(s, embedder=service.embedder)
    ).index
    query_tokens = {q["_id"]: index.tokenizer.tokenize(q["text"]) for q in queries if q["_id"] in qrels}
    ids, tokens = index.manifest.all_tokens()
    to_doc = {cid: str(chunk.extra.get("_id")) for cid, chunk in index.manifest.chunks_by_id(list(ids)).items()}
    results = []
    for k1, b in grid:
        keyword = KeywordIndex.build(ids, tokens, k1=k1, b=b)
        run: dict[str, dict[str, float]] = {}
        for qid, query in query_tokens.items():
            docs: dict[str, float] = {}
            for rank, (chunk_id, _) in enumerate(keyword.query(query, 100), 1):
                docs.setdefault(to_doc[chunk_id], 1.0 / rank)
            run[qid] = docs
        results.append(evaluate_run(run, qrels)["ndcg@10"])
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k1", type=float, nargs="+", default=[0.9, 1.2, 1.5, 2.0])
    parser.add_argument("--b", type=float, nargs="+", default=[0.4, 0.6, 0.75, 0.9])
    args = parser.parse_args()
    grid = [(k1, b) for k1 in args.k1 for b in args.b]
    service = RagService()
    table = {name: keyword_ndcg(service, DATA / name, split, grid) for name, split in SETS.items()}
    print(f"{'k1':>5} {'b':>5}" + "".join(f"{name:>11}" for name in SETS) + f"{'mean':>11}")
    for row, (k1, b) in enumerate(grid):
        scores = [table[name][row] for name in SETS]
        print(f"{k1:5g} {b:5g}" + "".join(f"{s:11.4f}" for s in scores) + f"{sum(scores) / len(scores):11.4f}")


if __name__ == "__main__":
    main()
