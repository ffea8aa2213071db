"""Fusion experiments: which way of combining dense and BM25 ranks best, on both golden sets at once.

Each query's dense and BM25 candidate lists (top ``--depth`` chunks, scores kept) are computed once from the
evaluation indexes that ``python -m rag evaluate`` builds (same ``RAG_STORAGE_DIR``; built here when missing),
then every variant is scored on the same lists, so the table compares fusions and nothing else:

- weighted RRF over a grid of k and semantic weight (the engine's default is k=20, w=0.5);
- convex combination of normalized scores (cosine min-max, BM25 divided by the query's top BM25 score), a
  chunk missing from one list taking that list's floor;
- the same with every candidate scored by both retrievers ("filled": the cosine of a BM25-only chunk from its
  stored embedding, the BM25 score of a dense-only chunk), which is what ``rag.retrieval.hybrid`` does by default;
- RRF with the engine's identifier-aware weight (``rag.retrieval.fusion.adaptive_weight``).

Documents rank at their best chunk, as in ``rag.evaluation.retrieval``. The BM25 parameters are the settings'
(``RAG_BM25_K1``, ``RAG_BM25_B``; see ``bench/bm25_params.py``). Run::

    .venv/bin/python bench/fusion.py                 # SciFact train (809 queries) + JSQuAD (4,420 queries)
    .venv/bin/python bench/fusion.py --limit 300
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from golden_sets import DATA, SETS  # noqa: E402

from rag.evaluation.metrics import evaluate_run  # noqa: E402
from rag.evaluation.retrieval import corpus_service, read_qrels  # noqa: E402
from rag.retrieval.fusion import adaptive_weight, fuse_convex, fuse_rrf  # noqa: E402
from rag.service import RagService  # noqa: E402

Ranked = list[tuple[str, float]]
Fusion = Callable[[Ranked, Ranked, list[str], dict[str, float], dict[str, float]], list[str]]


def candidates(service: RagService, folder: Path, split: str, depth: int, limit: int | None):  # type: ignore[no-untyped-def]
    """Per query: (query tokens, dense list, BM25 list), the chunk -> document map, and the qrels."""
    import json

    qrels = read_qrels(folder / "qrels" / f"{split}.tsv")
    queries = [json.loads(line) for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines()]
    queries = [q for q in queries if q["_id"] in qrels][:limit]
    evaluation = corpus_service(
        service.settings, folder / "corpus.jsonl", lambda s: RagService(s, embedder=service.embedder)
    )
    index = evaluation.index
    keyword = index.keyword_index()
    vectors = evaluation.embedder.embed_queries([q["text"] for q in queries])
    lists = {}
    for query, vector in zip(queries, vectors, strict=True):
        tokens = index.tokenizer.tokenize(query["text"])
        keyword_scores = keyword.score(tokens)
        dense, bm25 = index.vectors.query(vector, depth), keyword_scores.top(depth)
        union = list(dict.fromkeys(cid for cid, _ in [*dense, *bm25]))
        stored = index.vectors.embeddings_of([cid for cid in union if cid not in dict(dense)])
        cosines = dict(dense) | {cid: float(v @ vector) for cid, v in stored.items()}
        lists[query["_id"]] = (tokens, dense, bm25, cosines, keyword_scores.of(union))
    chunk_ids = {cid for _, dense, bm25, _, _ in lists.values() for cid, _ in [*dense, *bm25]}
    to_doc = {cid: str(chunk.extra.get("_id")) for cid, chunk in index.manifest.chunks_by_id(list(chunk_ids)).items()}
    return lists, to_doc, {q["_id"]: qrels[q["_id"]] for q in queries}


def rrf(k: int, weight: float, adaptive: bool = False) -> Fusion:
    def fuse(dense: Ranked, bm25: Ranked, tokens: list[str], *_: dict[str, float]) -> list[str]:
        w = adaptive_weight(weight, tokens, bm25) if adaptive else weight
        return [f.chunk_id for f in fuse_rrf(dense, bm25, semantic_weight=w, k=k)]

    return fuse


def convex(alpha: float, filled: bool = False) -> Fusion:
    def fuse(dense: Ranked, bm25: Ranked, tokens: list[str], cosines: dict[str, float], bm25_all: dict[str, float]):
        extra = {"dense_extra": cosines, "keyword_extra": bm25_all} if filled else {}
        return [f.chunk_id for f in fuse_convex(dense, bm25, semantic_weight=alpha, k=20, **extra)]

    return fuse


def ndcg(lists, to_doc, qrels, fuse: Fusion) -> float:  # type: ignore[no-untyped-def]
    run: dict[str, dict[str, float]] = {}
    for qid, (tokens, dense, bm25, cosines, bm25_all) in lists.items():
        docs: dict[str, float] = {}
        for rank, cid in enumerate(fuse(dense, bm25, tokens, cosines, bm25_all), 1):
            docs.setdefault(to_doc.get(cid, cid), 1.0 / rank)
        run[qid] = docs
    return evaluate_run(run, qrels)["ndcg@10"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=60, help="candidates per retriever (the engine's maximum)")
    parser.add_argument("--limit", type=int, default=None, help="queries per set")
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    args = parser.parse_args()
    service = RagService()
    variants: dict[str, Fusion] = {"bm25 only": rrf(20, 0.0), "dense only": rrf(20, 1.0)}
    for k in (10, 20, 60):
        for w in (0.3, 0.4, 0.5, 0.6, 0.7):
            variants[f"rrf k={k} w={w}"] = rrf(k, w)
    variants["rrf k=20 w=0.5 adaptive"] = rrf(20, 0.5, adaptive=True)
    for alpha in (0.3, 0.4, 0.5, 0.6, 0.7):
        variants[f"convex a={alpha}"] = convex(alpha)
        variants[f"convex filled a={alpha}"] = convex(alpha, filled=True)

    table: dict[str, dict[str, float]] = {name: {} for name in variants}
    for name in args.sets:
        split = SETS[name]
        started = time.perf_counter()
        lists, to_doc, qrels = candidates(service, DATA / name, split, args.depth, args.limit)
        print(f"{name}: {len(lists)} queries' candidates in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        for variant, fuse in variants.items():
            table[variant][name] = ndcg(lists, to_doc, qrels, fuse)
    print(f"{'variant':28s}" + "".join(f"{name:>11s}" for name in args.sets) + f"{'mean':>11s}")
    for variant, scores in table.items():
        mean = sum(scores.values()) / len(scores)
        print(f"{variant:28s}" + "".join(f"{scores[name]:11.4f}" for name in args.sets) + f"{mean:11.4f}")


if __name__ == "__main__":
    main()
