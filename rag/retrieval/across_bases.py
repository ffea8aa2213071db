"""One ranked list from several knowledge bases' hits (each base searched on its own, then merged here).

``score`` (the default) merges by each base's own final score: its convex fusion divides BM25 by the query's top
BM25 score, so a base with only weak keyword matches keeps weak scores. ``cosine`` merges by the query's raw cosine
to each hit (``rrf`` when the bases' embedding models differ); ``rrf`` by reciprocal rank within each base, which
puts every base's best hit on top however poor. JSQuAD split in two bases, 150 queries (``bench/bases.py``):
nDCG@10 score 0.884, cosine 0.860, rrf 0.775, against 0.864 for one base holding the whole corpus.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from rag.errors import EmptyIndexError
from rag.records import Hit

MERGES = ("score", "cosine", "rrf")
RRF_K = 60


def merge_base_hits(
    per_base: Mapping[str, Sequence[Hit]], top_k: int, *, merge: str = "score", same_embedding: bool = True
) -> list[Hit]:
    """The best ``top_k`` hits over every base, each marked with its base, final ranks renumbered from 1.

    Args:
        per_base: each base's hits, best first.
        top_k: how many to keep.
        merge: ``score`` (each base's own final score), ``cosine`` (the query's cosine to each hit; ``rrf`` when
            the bases' embeddings differ or a hit has none) or ``rrf`` (1 / (60 + rank in its base)).
        same_embedding: whether every base embeds with the same model (cosines are comparable).

    Raises:
        ValueError: an unknown ``merge``.
    """
    if merge not in MERGES:
        raise ValueError(f"merge={merge!r}; allowed: {', '.join(MERGES)}")
    tagged = [
        (base, rank, replace(hit, base=base)) for base, hits in per_base.items() for rank, hit in enumerate(hits, 1)
    ]
    if merge == "cosine" and not (same_embedding and all(h.scores.dense_score is not None for _, _, h in tagged)):
        merge = "rrf"

    def key(item: tuple[str, int, Hit]) -> float:
        _, rank, hit = item
        if merge == "cosine":
            return float(hit.scores.dense_score or 0.0)
        if merge == "score":
            return hit.score
        return 1.0 / (RRF_K + rank)

    ranked = sorted(tagged, key=lambda item: (-key(item), item[1]))[:top_k]
    return [replace(hit, scores=replace(hit.scores, final_rank=i)) for i, (_, _, hit) in enumerate(ranked, 1)]


def search_bases(
    searches: Mapping[str, Callable[[], Sequence[Hit]]], top_k: int, *, same_embedding: bool = True
) -> list[Hit]:
    """Run each base's search and merge the hits (``merge_base_hits``); an empty base adds nothing.

    Args:
        searches: per base name, its search for the query (already bound to the query and options).

    Raises:
        EmptyIndexError: every base is empty.
    """
    per_base: dict[str, Sequence[Hit]] = {}
    for name, search in searches.items():
        try:
            per_base[name] = search()
        except EmptyIndexError:
            continue
    if not per_base:
        raise EmptyIndexError(
            f"Nothing is indexed in {', '.join(searches)} yet. Upload documents into one of them, or run "
            "`python -m rag index PATH --collection NAME`."
        )
    return merge_base_hits(per_base, top_k, same_embedding=same_embedding)
