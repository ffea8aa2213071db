"""Fusion of the dense and BM25 rankings: weighted RRF and the convex combination of normalized scores."""

from __future__ import annotations

import pytest

from rag.retrieval.fusion import fuse_convex, fuse_rrf

DENSE = [("a", 0.90), ("b", 0.89), ("c", 0.20)]
KEYWORD = [("c", 10.0), ("b", 9.9), ("a", 1.0)]


@pytest.mark.parametrize("fuse", [fuse_rrf, fuse_convex])
def test_the_weight_ends_select_one_retriever(fuse) -> None:  # type: ignore[no-untyped-def]
    assert [f.chunk_id for f in fuse(DENSE, KEYWORD, semantic_weight=1.0, k=20)][:2] == ["a", "b"]
    assert [f.chunk_id for f in fuse(DENSE, KEYWORD, semantic_weight=0.0, k=20)][:2] == ["c", "b"]


def test_convex_keeps_score_gaps_that_rrf_throws_away() -> None:
    # b is a hair behind the top of both lists; a and c each top one list and are far behind on the other.
    rrf = fuse_rrf(DENSE, KEYWORD, semantic_weight=0.5, k=20)
    convex = fuse_convex(DENSE, KEYWORD, semantic_weight=0.5, k=20)
    assert rrf[0].chunk_id != "b"
    assert convex[0].chunk_id == "b"
    assert convex[0].score == pytest.approx(0.5 * (0.89 - 0.20) / 0.70 + 0.5 * 0.99)
    assert {f.chunk_id: f.rrf for f in convex} == pytest.approx({f.chunk_id: f.rrf for f in rrf})


def test_convex_gives_nothing_for_a_retriever_that_missed_the_candidate() -> None:
    fused = {f.chunk_id: f for f in fuse_convex([("a", 0.8), ("b", 0.6)], [("z", 4.0)], semantic_weight=0.5, k=20)}
    assert fused["z"].score == pytest.approx(0.5) and fused["z"].dense_rank is None
    assert fused["a"].score == pytest.approx(0.5) and fused["a"].bm25_rank is None
    assert fused["b"].score == pytest.approx(0.0)


def test_empty_lists_fuse_to_nothing() -> None:
    assert fuse_convex([], [], semantic_weight=0.5, k=20) == []


def test_convex_scores_a_one_sided_candidate_with_the_other_retrievers_score_when_given() -> None:
    # z is BM25's best but missing from the dense list; its real cosine (0.85) puts it above a and b.
    dense, keyword = [("a", 0.9), ("b", 0.5)], [("z", 4.0), ("a", 1.0)]
    without = fuse_convex(dense, keyword, semantic_weight=0.5, k=20)
    filled = fuse_convex(dense, keyword, semantic_weight=0.5, k=20, dense_extra={"z": 0.85}, keyword_extra={"b": 0.0})
    assert [f.chunk_id for f in without] == ["a", "z", "b"]
    assert [f.chunk_id for f in filled] == ["z", "a", "b"]
    z = next(f for f in filled if f.chunk_id == "z")
    assert z.dense_score == 0.85 and z.dense_rank is None  # the score is shown, the rank stays "not returned"
    assert z.score == pytest.approx(0.5 * (0.85 - 0.5) / 0.4 + 0.5 * 1.0)


def test_a_word_shared_with_the_question_never_sinks_a_passage_in_the_other_language() -> None:
    """Asked in English who first used the term bunsetsu (文節), the Japanese section defining 文節 shares that one
    word with the question: its weak keyword match (4.35 against the best 40) counted against it, while Japanese
    sections sharing no word are judged by meaning alone, and it fell below sections its cosine is level with."""
    dense = [("english", 0.85), ("notes", 0.80), ("bunsetsu", 0.80), ("margins", 0.78), ("legal", 0.70)]
    keyword = [("english", 40.0), ("bunsetsu", 4.35)]
    japanese = {"notes", "bunsetsu", "margins"}  # keyword search cannot judge them: no other word in common

    fused = {f.chunk_id: f for f in fuse_convex(dense, keyword, semantic_weight=0.5, k=20, dense_only=japanese)}

    assert fused["bunsetsu"].score == pytest.approx(fused["notes"].score)
    assert fused["bunsetsu"].score > fused["margins"].score
    # the question writes 文節 in their script: its match is the best a Japanese section can have, and counts
    quoted = fuse_convex(dense, keyword, semantic_weight=0.5, k=20, dense_only=japanese, quoted_in_their_script=True)
    assert [f.chunk_id for f in quoted].index("bunsetsu") < [f.chunk_id for f in quoted].index("notes")
