"""Rank fusion and the score shaping that follows it (pure functions over ranked id lists)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class Fused:
    """One candidate after fusion: ``score`` orders the list; ``rrf`` is its weighted RRF score either way."""

    chunk_id: str
    score: float
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
        fused.append(Fused(cid, score, score, d_rank, d_score, b_rank, b_score))
    fused.sort(key=lambda f: (-f.score, _best_rank(f)))
    return fused


def fuse_convex(
    dense: Sequence[tuple[str, float]],
    keyword: Sequence[tuple[str, float]],
    *,
    semantic_weight: float,
    k: int,
    dense_extra: Mapping[str, float] | None = None,
    keyword_extra: Mapping[str, float] | None = None,
    dense_only: Collection[str] = (),
    quoted_in_their_script: bool = False,
) -> list[Fused]:
    """Convex combination of normalized scores: ``w * dense_norm + (1 - w) * bm25_norm``.

    Cosines are min-max scaled over the candidates; BM25 scores are divided by the query's top BM25 score (BM25
    has a natural zero, so a weak best match stays weak). Unlike RRF, this keeps how far apart the scores are,
    not only their order. A candidate that only one retriever returned is scored by the other too when the
    caller passes that score (``dense_extra``, ``keyword_extra``); otherwise it takes that retriever's floor.
    Figures for every variant on both golden sets: ``bench/fusion.py``.

    Args:
        dense: (id, cosine) best first.
        keyword: (id, bm25 score) best first.
        semantic_weight: 0 keeps BM25 only, 1 dense only.
        k: the RRF constant, for the ``rrf`` score each candidate also carries.
        dense_extra: cosines of keyword candidates missing from ``dense``.
        keyword_extra: BM25 scores of dense candidates missing from ``keyword``.
        dense_only: candidates keyword search cannot judge (written in another language than the query): scored
            by the dense part alone, not pulled down by a BM25 zero that means nothing, nor by the weak match of the
            one word they share with it (文節 of "who first used the term bunsetsu (文節)?"), which put a section
            below those that share none; a strong match still counts.
        quoted_in_their_script: the query writes words in the script of the ``dense_only`` candidates (文節 in an
            English question): those words are all they can match, so their BM25 is measured against the best of
            them, not against passages of the query's language that match its other words.

    Returns:
        Every candidate of either list, best combined score first (ties: better best rank first).
    """
    dense_extra, keyword_extra = dense_extra or {}, keyword_extra or {}
    fused = []
    for f in fuse_rrf(dense, keyword, semantic_weight=semantic_weight, k=k):
        cosine = f.dense_score if f.dense_score is not None else dense_extra.get(f.chunk_id)
        bm25 = f.bm25_score if f.bm25_score is not None else keyword_extra.get(f.chunk_id)
        fused.append(replace(f, dense_score=cosine, bm25_score=bm25))
    cosines = [f.dense_score for f in fused if f.dense_score is not None]
    low, high = (min(cosines), max(cosines)) if cosines else (0.0, 1.0)
    span = (high - low) or 1.0
    top_bm25 = max((f.bm25_score for f in fused if f.bm25_score is not None), default=0.0) or 1.0
    top_theirs = max((f.bm25_score or 0.0 for f in fused if f.chunk_id in dense_only), default=0.0) or 1.0
    for i, f in enumerate(fused):
        dense_part = (f.dense_score - low) / span if f.dense_score is not None else 0.0
        bm25_part = (f.bm25_score or 0.0) / top_bm25
        if f.chunk_id in dense_only:
            own_scale = (f.bm25_score or 0.0) / top_theirs if quoted_in_their_script else 0.0
            bm25_part = max(bm25_part, own_scale, dense_part)
        fused[i] = replace(f, score=semantic_weight * dense_part + (1.0 - semantic_weight) * bm25_part)
    fused.sort(key=lambda f: (-f.score, _best_rank(f)))
    return fused


def _best_rank(f: Fused) -> int:
    return min(r for r in (f.dense_rank, f.bm25_rank) if r is not None)


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
