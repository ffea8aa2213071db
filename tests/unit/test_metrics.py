"""Ranking metrics agree with ranx (graded relevance, ties, queries without hits or without results)."""

from __future__ import annotations

import math

import pytest

from rag.evaluation.metrics import evaluate_run, mrr_at_k, ndcg_at_k, precision_at_k, recall_at_k

QRELS = {
    "q1": {"d1": 1, "d2": 1, "d3": 1},
    "q2": {"d4": 3, "d5": 1, "d6": 2},  # graded
    "q3": {"d7": 1},  # nothing relevant retrieved
    "q4": {"d8": 2, "d9": 1},  # missing from the run
    "q5": {"d1": 1, "d0": 0},  # a judged non-relevant document (relevance 0) ranked first
}
RUN = {
    "q1": {"d9": 5.0, "d1": 4.0, "x1": 3.5, "d2": 3.0, "x2": 2.0, "x3": 1.5, "d3": 1.0},
    "q2": {"d6": 2.0, "d5": 2.0, "d4": 1.0, "x1": 0.5},  # a tie between two relevant grades
    "q3": {"x1": 1.0, "x2": 0.9},
    "q5": {"d0": 9.0, "x1": 5.0, "d1": 5.0},  # a tie between a relevant and a non-relevant document
    "q9": {"d1": 1.0},  # not judged: ignored
}
METRICS = {"ndcg": ndcg_at_k, "recall": recall_at_k, "precision": precision_at_k, "mrr": mrr_at_k}
RANX_NAMES = {
    "ndcg@10": "ndcg@10",
    "recall@5": "recall@5",
    "recall@10": "recall@10",
    "recall@100": "recall@100",
    "precision@5": "precision@5",
    "precision@10": "precision@10",
    "mrr@10": "mrr@10",
}


@pytest.mark.slow  # ranx compiles its numba kernels on first use: about a minute on a fresh machine
@pytest.mark.filterwarnings("ignore::numba.core.errors.NumbaTypeSafetyWarning")
def test_every_metric_equals_ranx() -> None:
    ranx = pytest.importorskip("ranx")
    small_k = {f"{name}@{k}": (fn, k) for k in (1, 2, 3) for name, fn in METRICS.items()}
    expected = ranx.evaluate(
        ranx.Qrels(QRELS), ranx.Run(RUN), list(RANX_NAMES.values()) + list(small_k), make_comparable=True
    )
    got = evaluate_run(RUN, QRELS)
    assert list(got) == list(RANX_NAMES)
    for ours, theirs in RANX_NAMES.items():
        assert got[ours] == pytest.approx(expected[theirs], abs=1e-6), ours
    for name, (fn, k) in small_k.items():
        assert fn(RUN, QRELS, k) == pytest.approx(expected[name], abs=1e-6), name


def test_graded_ndcg_with_a_tie_by_hand() -> None:
    # q2 ranks d6 (grade 2) and d5 (grade 1), tied and kept in run order, then d4 (grade 3)
    dcg = 2 / math.log2(2) + 1 / math.log2(3) + 3 / math.log2(4)
    ideal = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k({"q2": RUN["q2"]}, {"q2": QRELS["q2"]}, 10) == pytest.approx(dcg / ideal)
    # over all five judged queries: q3 retrieves nothing relevant, q4 has no results, q9 is not judged
    assert recall_at_k(RUN, QRELS, 100) == pytest.approx((1 + 1 + 0 + 0 + 1) / 5)
    # q5: d0 (relevance 0) is not relevant, and d1 ties with x1 but comes after it in the run: rank 3
    assert mrr_at_k(RUN, QRELS, 10) == pytest.approx((1 / 2 + 1 + 0 + 0 + 1 / 3) / 5)


def test_values_a_person_can_check_by_hand() -> None:
    qrels = {"q": {"a": 1, "b": 1}}
    assert ndcg_at_k({"q": {"a": 2.0, "b": 1.0, "c": 0.5}}, qrels, 10) == pytest.approx(1.0)
    assert mrr_at_k({"q": {"c": 2.0, "b": 1.0}}, qrels, 10) == pytest.approx(0.5)
    assert recall_at_k({"q": {"c": 2.0, "b": 1.0}}, qrels, 1) == 0.0
    assert precision_at_k({"q": {"a": 2.0}}, qrels, 5) == pytest.approx(0.2)  # divides by k, not by 1
    assert evaluate_run({}, qrels)["ndcg@10"] == 0.0
    assert evaluate_run({}, {})["recall@10"] == 0.0


def test_a_bad_cut_off_is_refused() -> None:
    with pytest.raises(ValueError, match="positive integer"):
        ndcg_at_k({}, {"q": {"a": 1}}, 0)
