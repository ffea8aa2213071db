"""KeywordIndex: BM25 scores against rank-bm25, masks, persistence, empty and bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path
from threading import Thread

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from rag.errors import EmptyIndexError, IndexError_
from rag.index.keyword_index import KeywordIndex

# No term is in more than half of the documents: there Robertson's idf is positive and rank-bm25 needs no epsilon.
CORPUS = [
    ["secure", "world", "memory", "alloc"],
    ["memory", "memory", "pool", "size", "limit"],
    ["trusted", "app", "session", "open"],
    ["session", "close", "memory"],
    ["tee", "malloc", "alloc", "size", "size", "size"],
    ["client", "api", "context"],
    [],
    ["world", "switch", "monitor", "smc", "call", "fast"],
]
IDS = [f"c{i}" for i in range(len(CORPUS))]
QUERIES = [["memory", "size"], ["session", "open", "api"], ["alloc", "alloc", "world"], ["tee"], ["unknown"]]
K1, B = 1.2, 0.6


class _LuceneIdfOkapi(BM25Okapi):
    """rank-bm25's Okapi scoring with Lucene's idf, ln(1 + (N - df + 0.5) / (df + 0.5))."""

    def _calc_idf(self, nd: dict[str, int]) -> None:
        self.idf = {word: math.log(1 + (self.corpus_size - df + 0.5) / (df + 0.5)) for word, df in nd.items()}


def _as_dict(hits: list[tuple[str, float]]) -> dict[str, float]:
    return dict(hits)


@pytest.mark.parametrize("method, reference", [("robertson", BM25Okapi), ("lucene", _LuceneIdfOkapi)])
def test_scores_equal_rank_bm25_up_to_its_constant_factor(method: str, reference: type[BM25Okapi]) -> None:
    # rank-bm25 multiplies each term by (k1 + 1); bm25s leaves that constant out (it does not change any ranking).
    # BM25Okapi's idf is Robertson's: method="robertson" matches it as is. bm25s' default, "lucene", only differs
    # in the idf, so rank-bm25 with that idf swapped in must match it too.
    index = KeywordIndex.build(IDS, CORPUS, k1=K1, b=B, method=method)
    okapi = reference(CORPUS, k1=K1, b=B)
    for query in QUERIES:
        expected = {IDS[i]: s / (K1 + 1) for i, s in enumerate(okapi.get_scores(query)) if s > 0}
        got = _as_dict(index.query(query, 100))
        assert got.keys() == expected.keys(), query
        for doc_id, score in expected.items():
            assert got[doc_id] == pytest.approx(score, rel=1e-5), (query, doc_id)


def test_results_are_best_first_positive_and_at_most_k() -> None:
    index = KeywordIndex.build(IDS, CORPUS)
    hits = index.query(["memory", "size"], 2)
    assert len(hits) == 2 and hits[0][1] >= hits[1][1] > 0
    everything = index.query(["memory", "size"], 1000)  # more than the corpus: fine
    assert [doc for doc, _ in everything] == ["c1", "c4", "c3", "c0"]  # c3 is shorter than c0: higher
    assert index.query(["memory"], 0) == []
    assert index.query([], 5) == [] and index.query(["unknown"], 5) == []


def test_a_boolean_mask_excludes_documents() -> None:
    index = KeywordIndex.build(IDS, CORPUS)
    allowed = np.ones(len(IDS), dtype=bool)
    allowed[[1, 4]] = False
    hits = index.query(["memory", "size"], 10, allowed=allowed)
    assert [doc for doc, _ in hits] == ["c3", "c0"]
    unmasked = _as_dict(index.query(["memory", "size"], 10))
    assert _as_dict(hits) == {doc: unmasked[doc] for doc in ("c3", "c0")}


def test_a_weight_mask_scales_scores_and_zero_excludes() -> None:
    index = KeywordIndex.build(IDS, CORPUS)
    plain = _as_dict(index.query(["memory", "size"], 10))
    weights = np.ones(len(IDS), dtype=np.float32)
    weights[1], weights[0], weights[4] = 0.0, 10.0, 0.5
    weighted = _as_dict(index.query(["memory", "size"], 10, allowed=weights))
    assert "c1" not in weighted
    assert weighted["c0"] == pytest.approx(10 * plain["c0"], rel=1e-6)
    assert weighted["c4"] == pytest.approx(0.5 * plain["c4"], rel=1e-6)
    assert next(iter(weighted)) == "c0"


def test_a_mask_of_the_wrong_length_is_refused() -> None:
    index = KeywordIndex.build(IDS, CORPUS)
    with pytest.raises(ValueError, match="one entry per document"):
        index.query(["memory"], 5, allowed=np.ones(3, dtype=bool))


@pytest.mark.parametrize("mmap", [True, False])
def test_save_and_load_give_back_the_same_index(tmp_path: Path, mmap: bool) -> None:
    index = KeywordIndex.build(IDS, CORPUS)
    index.save(tmp_path / "bm25", version="sudachi/42")
    loaded = KeywordIndex.load(tmp_path / "bm25", mmap=mmap)
    assert loaded.version == "sudachi/42" and index.version == "sudachi/42"
    assert loaded.ids == tuple(IDS) and len(loaded) == len(IDS)
    for query in QUERIES:
        assert loaded.query(query, 10) == index.query(query, 10)


def test_save_replaces_the_previous_index_and_leaves_nothing_behind(tmp_path: Path) -> None:
    KeywordIndex.build(IDS, CORPUS).save(tmp_path / "bm25", version="old")
    old = KeywordIndex.load(tmp_path / "bm25")  # memory-mapped: must keep working after the replacement
    KeywordIndex.build(["n1", "n2"], [["fresh", "words"], ["memory"]]).save(tmp_path / "bm25", version="new")
    new = KeywordIndex.load(tmp_path / "bm25")
    assert new.version == "new" and new.ids == ("n1", "n2")
    assert [p.name for p in tmp_path.iterdir()] == ["bm25"]
    assert old.query(["memory"], 1)[0][0] == "c1"


def test_readers_never_see_a_half_written_index(tmp_path: Path) -> None:
    big = KeywordIndex.build([f"d{i}" for i in range(2000)], [["memory", f"w{i}"] for i in range(2000)])
    small = KeywordIndex.build(IDS, CORPUS)
    small.save(tmp_path / "bm25", version="0")
    errors: list[Exception] = []

    def read() -> None:
        for _ in range(200):
            try:
                loaded = KeywordIndex.load(tmp_path / "bm25")
                assert len(loaded) in (len(IDS), 2000) and loaded.query(["memory"], 1)
            except Exception as err:  # noqa: BLE001 - any other failure is what this test looks for
                errors.append(err)

    reader = Thread(target=read)
    reader.start()
    for i in range(20):
        (big if i % 2 else small).save(tmp_path / "bm25", version=str(i))
    reader.join()
    assert errors == []


def test_an_empty_corpus_gives_an_empty_index_that_persists(tmp_path: Path) -> None:
    for index in (KeywordIndex.build([], []), KeywordIndex.build(["a", "b"], [[], []])):
        assert index.query(["memory"], 5) == []
        index.save(tmp_path / "empty", version="v")
        loaded = KeywordIndex.load(tmp_path / "empty")
        assert len(loaded) == len(index) and loaded.query(["memory"], 5) == [] and loaded.version == "v"


def test_bad_build_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="one id per document"):
        KeywordIndex.build(["a"], [["x"], ["y"]])
    with pytest.raises(ValueError, match="unique"):
        KeywordIndex.build(["a", "a"], [["x"], ["y"]])
    with pytest.raises(ValueError, match="allowed: lucene, robertson"):
        KeywordIndex.build(["a"], [["x"]], method="bm42")


def test_loading_a_missing_or_damaged_index_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(EmptyIndexError, match="index some documents first"):
        KeywordIndex.load(tmp_path / "nothing")
    KeywordIndex.build(IDS, CORPUS).save(tmp_path / "bm25", version="v")
    (tmp_path / "bm25" / "ids.json").write_text(json.dumps(IDS[:-1]), encoding="utf-8")
    with pytest.raises(IndexError_, match="re-index"):
        KeywordIndex.load(tmp_path / "bm25")
