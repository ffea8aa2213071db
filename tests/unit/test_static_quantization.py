"""Static int8 (calibrated ONNX Runtime quantization): how it is chosen, named, and what it calibrates on.

Building the static model itself takes minutes on two busy cores; its speed and quality are measured by
``bench/embed_backends.py`` (``--configs torch-fp32,onnx-int8,onnx-int8-static``), not here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.errors import ConfigError, ModelUnavailableError
from rag.models.e5_rebuild import ensure_e5_model
from rag.models.embedding import Embedder, load_embedder
from rag.models.onnx_export import build_command, converted_folder
from rag.models.static_quantization import (
    CALIBRATION_BATCH,
    TextCalibrationReader,
    indexed_calibration_texts,
    shipped_calibration_texts,
)
from rag.service import RagService
from rag.settings import DEFAULT_EMBEDDING_MODEL, Settings


def _static_settings(models_dir: Path) -> Settings:
    return Settings.from_env(
        {
            "RAG_EMBEDDING_BACKEND": "onnx",
            "RAG_EMBEDDING_PRECISION": "int8",
            "RAG_EMBEDDING_QUANTIZATION": "static",
        },
        model_dir=models_dir,
    )


def test_environment_selects_static_int8_and_dynamic_stays_the_default(tmp_path: Path) -> None:
    assert Settings.from_env({}).embedding_quantization == "dynamic"
    assert _static_settings(tmp_path).embedding_quantization == "static"


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"RAG_EMBEDDING_QUANTIZATION": "smooth"}, "dynamic, static"),
        ({"RAG_EMBEDDING_QUANTIZATION": "static"}, "onnx int8 only"),
        ({"RAG_EMBEDDING_BACKEND": "onnx", "RAG_EMBEDDING_QUANTIZATION": "static"}, "RAG_EMBEDDING_PRECISION=int8"),
    ],
)
def test_static_outside_onnx_int8_is_refused_with_what_to_set(env: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        Settings.from_env(env)


def test_static_model_lives_beside_the_dynamic_one(tmp_path: Path) -> None:
    source = tmp_path / "multilingual-e5-small-offline"
    assert converted_folder(tmp_path, source, "int8").name == "multilingual-e5-small-offline-onnx-int8"
    static = converted_folder(tmp_path, source, "int8", "static")
    assert static.name == "multilingual-e5-small-offline-onnx-int8-static"
    assert build_command(tmp_path, "m", "int8", "static").endswith("--precision int8 --quantization static")


def test_missing_static_model_names_the_command_that_builds_it(tmp_path: Path, models_dir: Path) -> None:
    (tmp_path / "multilingual-e5-small-offline").symlink_to(ensure_e5_model(models_dir))
    with pytest.raises(ModelUnavailableError, match="--precision int8 --quantization static"):
        load_embedder(_static_settings(tmp_path))


def test_shipped_sample_holds_japanese_and_english_paragraphs() -> None:
    texts = shipped_calibration_texts()
    japanese = [t for t in texts if any("\u3040" <= c <= "\u30ff" for c in t)]
    assert len(japanese) >= 6 and len(texts) - len(japanese) >= 6
    assert all(not t.startswith("#") and len(t) >= 150 for t in texts)


def test_calibration_batches_share_one_shape(models_dir: Path) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(ensure_e5_model(models_dir)), local_files_only=True)
    texts = shipped_calibration_texts()[:5]
    reader = TextCalibrationReader(tokenizer, texts, {"passage": "passage: ", "query": "query: "}, max_length=512)
    batches = []
    while (batch := reader.get_next()) is not None:
        batches.append(batch)
    shapes = {b["input_ids"].shape for b in batches}
    assert len(shapes) == 1 and next(iter(shapes))[0] == CALIBRATION_BATCH  # the percentile calibrator stacks them
    first_row = batches[0]["input_ids"][0][batches[0]["attention_mask"][0] == 1]
    assert tokenizer.decode(first_row, skip_special_tokens=True).startswith("passage:")


def test_calibration_can_use_the_users_own_indexed_chunks(
    tmp_path: Path, models_dir: Path, e5_embedder: Embedder
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    notes = ("富士山は日本で最も高い山で、標高は3776メートルである。", "The reset link stays valid for thirty minutes.")
    for number, text in enumerate(notes):
        (docs / f"note{number}.txt").write_text(text, encoding="utf-8")
    settings = Settings(storage_dir=tmp_path / "storage", model_dir=models_dir, embedding_model=DEFAULT_EMBEDDING_MODEL)
    RagService(settings, embedder=e5_embedder).index_paths([docs])
    assert sorted(indexed_calibration_texts(tmp_path / "storage", 10)) == sorted(notes)
    assert len(indexed_calibration_texts(tmp_path / "storage", 1)) == 1
    with pytest.raises(ModelUnavailableError, match="index documents there first"):
        indexed_calibration_texts(tmp_path / "empty", 10)
