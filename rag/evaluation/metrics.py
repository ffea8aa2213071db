"""Ranking metrics (nDCG, recall, precision, MRR at k) over a run and its relevance judgements.

Pure Python and numpy, so the engine does not need ranx at run time; ``tests/unit/test_metrics.py`` checks every
value against ranx 0.3.21. The conventions are ranx's (and trec_eval's):

- A run is ``{query_id: {doc_id: score}}``; within a query, higher scores rank first and ties keep the run's
  insertion order.
- Qrels are ``{query_id: {doc_id: relevance}}``; a document is relevant when its relevance is at least 1, and
  nDCG's gain is the relevance itself (Järvelin & Kekäläinen, the formula pytrec_eval and BEIR report).
- Each metric is a mean over the queries in ``qrels``: a query missing from the run scores 0, a query with no
  relevant document scores 0, and run queries absent from ``qrels`` are ignored.
- precision@k divides by k even when fewer than k documents were returned.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping

Run = Mapping[str, Mapping[str, float]]
Qrels = Mapping[str, Mapping[str, int]]
_QueryMetric = Callable[[list[str], Mapping[str, int], int], float]


def ndcg_at_k(run: Run, qrels: Qrels, k: int) -> float:
    """Mean normalized discounted cumulative gain of the top ``k`` (gain = relevance, log2 discount)."""
    return _mean(run, qrels, k, _ndcg)


def recall_at_k(run: Run, qrels: Qrels, k: int) -> float:
    """Mean share of each query's relevant documents found in its top ``k``."""
    return _mean(run, qrels, k, _recall)


def precision_at_k(run: Run, qrels: Qrels, k: int) -> float:
    """Mean share of relevant documents among the top ``k`` (divided by ``k`` even for shorter lists)."""
    return _mean(run, qrels, k, _precision)


def mrr_at_k(run: Run, qrels: Qrels, k: int) -> float:
    """Mean reciprocal rank of the first relevant document within the top ``k`` (0 when none is)."""
    return _mean(run, qrels, k, _reciprocal_rank)


def evaluate_run(run: Run, qrels: Qrels, ks: Iterable[int] = (5, 10, 100)) -> dict[str, float]:
    """All the metrics the evaluation page shows, by name.

    Args:
        run: retrieved documents and their scores, per query.
        qrels: relevance judgements per query; their queries are the ones averaged over.
        ks: the cut-offs for recall (and for precision where k <= 10).

    Returns:
        ``"ndcg@10"``, ``"mrr@10"``, ``"recall@K"`` for each K in ``ks``, ``"precision@K"`` for each K <= 10.

    Raises:
        ValueError: a cut-off is not a positive integer.
    """
    ks = tuple(ks)
    result = {"ndcg@10": ndcg_at_k(run, qrels, 10)}
    for k in ks:
        result[f"recall@{k}"] = recall_at_k(run, qrels, k)
    for k in ks:
        if k <= 10:
            result[f"precision@{k}"] = precision_at_k(run, qrels, k)
    result["mrr@10"] = mrr_at_k(run, qrels, 10)
    return result


def ranked(scores: Mapping[str, float]) -> list[str]:
    """Document ids by descending score; ties keep their insertion order (``sorted`` is stable)."""
    return [doc for doc, _ in sorted(scores.items(), key=lambda item: -item[1])]


def _mean(run: Run, qrels: Qrels, k: int, metric: _QueryMetric) -> float:
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k={k!r}; allowed: a positive integer")
    if not qrels:
        return 0.0
    total = 0.0
    for query_id, judged in qrels.items():
        relevant = {doc: rel for doc, rel in judged.items() if rel >= 1}
        if relevant:
            total += metric(ranked(run.get(query_id, {})), relevant, k)
    return total / len(qrels)


def _ndcg(docs: list[str], relevant: Mapping[str, int], k: int) -> float:
    dcg = sum(relevant.get(doc, 0) / math.log2(rank + 2) for rank, doc in enumerate(docs[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(rel / math.log2(rank + 2) for rank, rel in enumerate(ideal))
    return dcg / idcg


def _recall(docs: list[str], relevant: Mapping[str, int], k: int) -> float:
    return sum(doc in relevant for doc in docs[:k]) / len(relevant)


def _precision(docs: list[str], relevant: Mapping[str, int], k: int) -> float:
    return sum(doc in relevant for doc in docs[:k]) / k


def _reciprocal_rank(docs: list[str], relevant: Mapping[str, int], k: int) -> float:
    return next((1.0 / (rank + 1) for rank, doc in enumerate(docs[:k]) if doc in relevant), 0.0)
