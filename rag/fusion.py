"""Rank fusion and the score shaping that follows it (pure functions over ranked id lists)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Fused:
    chunk_id: str
    rrf: float
    dense_rank: int | None
    dense_score: float | None
    bm25_rank: int | None
    bm25_score: float | None


def fuse_rrf(
    dense: Sequence[tuple[str, float]],
    keyword: Sequence[tuple[str, float]],
    *,
    semantic_weight: float,
    k: int,
) -> list[Fused]:
    """Weighted reciprocal-rank fusion: ``w / (k + dense_rank) + (1 - w) / (k + bm25_rank)`` (ranks from 1).

    Args:
        dense: (id, cosine) best first.
        keyword: (id, bm25 score) best first.
        semantic_weight: 0 keeps BM25 only, 1 dense only.
        k: the RRF constant (small k favours the top ranks).

    Returns:
        Every candidate of either list, best fused score first (ties: better best rank first).
    """
    if not 0.0 <= semantic_weight <= 1.0:
        raise ValueError(f"semantic_weight must be within [0, 1], got {semantic_weight}")
    dense_at = {cid: (rank, score) for rank, (cid, score) in enumerate(dense, 1)}
    keyword_at = {cid: (rank, score) for rank, (cid, score) in enumerate(keyword, 1)}
    fused = []
    for cid in dict.fromkeys([*dense_at, *keyword_at]):
        d_rank, d_score = dense_at.get(cid, (None, None))
        b_rank, b_score = keyword_at.get(cid, (None, None))
        score = 0.0
        if d_rank is not None:
            score += semantic_weight / (k + d_rank)
        if b_rank is not None:
            score += (1.0 - semantic_weight) / (k + b_rank)
        fused.append(Fused(cid, score, d_rank, d_score, b_rank, b_score))
    best_rank = lambda f: min(r for r in (f.dense_rank, f.bm25_rank) if r is not None)  # noqa: E731
    fused.sort(key=lambda f: (-f.rrf, best_rank(f)))
    return fused


def adaptive_weight(base: float, query_tokens: Sequence[str], keyword_hits: Sequence[tuple[str, float]]) -> float:
    """Lean towards BM25 for identifier-like queries (exact API names, codes), which keyword search nails."""
    if not keyword_hits or base in (0.0, 1.0):
        return base
    identifiers = sum(1 for t in query_tokens if "_" in t or any(ch.isdigit() for ch in t))
    if identifiers and identifiers >= len(query_tokens) / 2:
        return max(0.0, base - 0.2)
    return base


def apply_rerank_thresholds(scores: Mapping[str, float], *, absolute: float, gap: float) -> set[str]:
    """Ids whose cross-encoder score passes both the absolute floor and the gap from the top score."""
    if not scores:
        return set()
    top = max(scores.values())
    return {cid for cid, s in scores.items() if s >= absolute and top - s <= gap}
