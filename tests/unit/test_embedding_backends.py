"""Embedding back ends and precisions: settings, the ONNX int8 conversion's quality, and the index's guard.

The int8 model is converted once per machine from the offline e5 folder into the shared test models folder (about
a minute on two busy cores), like the e5 rebuild itself.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rag.errors import ConfigError, ModelMismatchError, ModelUnavailableError
from rag.models.batching import embed_in_length_order, length_buckets
from rag.models.e5_rebuild import SAMPLE_PASSAGES, SAMPLE_QUERIES, ensure_e5_model
from rag.models.embedding import Embedder, load_embedder
from rag.models.onnx_export import build_onnx_model, converted_folder, cpu_quantization_target
from rag.service import RagService
from rag.settings import DEFAULT_EMBEDDING_MODEL, Settings

# Lowest cosine of int8 to fp32 measured: 0.9865 over 1,186 chunks of real documents (README "Embedding back ends");
# the short samples below stay above 0.99, which leaves room for another CPU's quantization preset.
INT8_COSINE_FLOOR = 0.99

JA_PASSAGES = (
    "富士山は静岡県と山梨県にまたがる活火山で、標高は3776メートルと日本で最も高い。",
    "新幹線は1964年の東京オリンピックに合わせて東京と新大阪の間で開業した高速鉄道だ。",
    "確定申告では、1年間の所得と税額を計算して翌年の3月15日までに税務署へ申告する。",
)
JA_QUERIES = ("日本一高い山の高さは？", "高速列車が最初に走り始めたのはいつ", "所得税の申告期限はいつまで")


def _int8_settings(models_dir: Path, **overrides: object) -> Settings:
    return Settings(
        model_dir=models_dir, embedding_model=DEFAULT_EMBEDDING_MODEL, embedding_backend="onnx",
        embedding_precision="int8", **overrides,  # type: ignore[arg-type]
    )  # fmt: skip


@pytest.fixture(scope="session")
def int8_embedder(models_dir: Path, e5_embedder: Embedder) -> Embedder:
    source = ensure_e5_model(models_dir)
    if not (converted_folder(models_dir, source, "int8") / "model.onnx").is_file():
        build_onnx_model(source, converted_folder(models_dir, source, "int8"), "int8")
    return load_embedder(_int8_settings(models_dir))


def test_defaults_are_torch_fp32() -> None:
    settings = Settings.from_env({})
    assert (settings.embedding_backend, settings.embedding_precision) == ("torch", "fp32")


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"RAG_EMBEDDING_BACKEND": "tensorrt"}, "torch, onnx, openvino"),
        ({"RAG_EMBEDDING_PRECISION": "fp16"}, "fp32, bf16, int8"),
        ({"RAG_EMBEDDING_BACKEND": "onnx", "RAG_EMBEDDING_PRECISION": "bf16"}, "fp32 or int8"),
    ],
)
def test_unknown_backend_or_precision_names_the_allowed_values(env: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        Settings.from_env(env)


def test_environment_selects_onnx_int8() -> None:
    settings = Settings.from_env({"RAG_EMBEDDING_BACKEND": "onnx", "RAG_EMBEDDING_PRECISION": "int8"})
    assert (settings.embedding_backend, settings.embedding_precision) == ("onnx", "int8")


def test_length_buckets_cover_every_text_once_longest_first() -> None:
    texts = ["a" * n for n in (5, 50, 1, 30, 30, 7, 100)]
    buckets = length_buckets(texts, 3)
    assert sorted(i for bucket in buckets for i in bucket) == list(range(len(texts)))
    lengths = [len(texts[i]) for bucket in buckets for i in bucket]
    assert lengths == sorted(lengths, reverse=True)
    assert [len(b) for b in buckets] == [3, 3, 1]


def test_bucketed_embedding_returns_rows_in_the_callers_order() -> None:
    texts = ["short", "a much longer text than the others", "mid length", "x"]
    calls: list[list[str]] = []

    def embed(batch: list[str]) -> np.ndarray:
        calls.append(batch)
        return np.array([[len(t), ord(t[0])] for t in batch], dtype=np.float32)

    rows = embed_in_length_order(texts, 2, embed)
    assert rows.tolist() == [[len(t), ord(t[0])] for t in texts]
    assert calls == [["a much longer text than the others", "mid length"], ["short", "x"]]


def test_cpu_flags_choose_the_quantization_preset() -> None:
    assert cpu_quantization_target("flags\t: fpu avx2 avx512f avx512bw avx512_vnni") == "avx512_vnni"
    assert cpu_quantization_target("flags\t: fpu avx2 avx512f avx512bw") == "avx512"
    assert cpu_quantization_target("flags\t: fpu sse4_2 avx avx2 fma") == "avx2"


def test_int8_vectors_stay_close_to_fp32(int8_embedder: Embedder, e5_embedder: Embedder) -> None:
    for embed in ("embed_queries", "embed_passages"):
        for texts in (SAMPLE_QUERIES, SAMPLE_PASSAGES, JA_PASSAGES):
            cosines = (getattr(int8_embedder, embed)(texts) * getattr(e5_embedder, embed)(texts)).sum(axis=1)
            assert cosines.min() >= INT8_COSINE_FLOOR, (embed, cosines)


def test_int8_retrieves_the_matching_passage(int8_embedder: Embedder) -> None:
    for queries, passages in ((JA_QUERIES, JA_PASSAGES), (SAMPLE_QUERIES, SAMPLE_PASSAGES)):
        scores = int8_embedder.embed_queries(queries) @ int8_embedder.embed_passages(passages).T
        assert scores.argmax(axis=1).tolist() == list(range(len(queries)))


def test_batched_rows_come_back_in_the_callers_order(int8_embedder: Embedder) -> None:
    texts = [*JA_PASSAGES, *SAMPLE_PASSAGES]
    together = int8_embedder.embed_passages(texts)
    alone = np.vstack([int8_embedder.embed_passages([t]) for t in texts])
    similarity = together @ alone.T
    assert similarity.argmax(axis=1).tolist() == list(range(len(texts)))
    # Dynamic int8 scales activations per batch, so a text's vector moves a little with its batch neighbours.
    assert np.diag(similarity).min() >= INT8_COSINE_FLOOR


def test_int8_is_another_fingerprint(int8_embedder: Embedder, e5_embedder: Embedder) -> None:
    assert int8_embedder.fingerprint != e5_embedder.fingerprint
    assert int8_embedder.fingerprint.startswith(e5_embedder.fingerprint + "+onnx-int8-dynamic-")


def test_missing_conversion_names_the_command_that_builds_it(tmp_path: Path, models_dir: Path) -> None:
    (tmp_path / "multilingual-e5-small-offline").symlink_to(ensure_e5_model(models_dir))
    with pytest.raises(ModelUnavailableError, match="python -m rag.models.onnx_export .*--precision int8"):
        load_embedder(_int8_settings(tmp_path))


def test_openvino_says_why_it_is_not_available(models_dir: Path) -> None:
    with pytest.raises(ModelUnavailableError, match="optimum-intel"):
        load_embedder(Settings(model_dir=models_dir, embedding_backend="openvino"))


def test_index_refuses_a_backend_switch_until_reembedded(
    tmp_path: Path, models_dir: Path, e5_embedder: Embedder, int8_embedder: Embedder
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for number, text in enumerate(JA_PASSAGES):
        (docs / f"note{number}.txt").write_text(text, encoding="utf-8")
    storage = Settings(storage_dir=tmp_path / "storage", model_dir=models_dir)
    RagService(storage, embedder=e5_embedder).index_paths([docs])

    switched = RagService(_int8_settings(models_dir, storage_dir=tmp_path / "storage"), embedder=int8_embedder)
    assert "check --reembed" in switched.embedding_mismatch()
    with pytest.raises(ModelMismatchError, match="python -m rag check --reembed"):
        switched.search("日本一高い山の高さは？")
    with pytest.raises(ModelMismatchError, match="RAG_EMBEDDING_BACKEND"):
        switched.index_paths([docs])

    assert switched.reembed() == len(JA_PASSAGES)
    assert switched.embedding_mismatch() == ""
    assert switched.stats().embedding_model == int8_embedder.fingerprint
    assert switched.check_consistency().ok
    hits = switched.search("日本一高い山の高さは？", semantic_weight=1.0)
    assert "富士山" in hits[0].chunk.text
