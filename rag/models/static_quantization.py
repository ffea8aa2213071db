"""Static int8: ONNX Runtime's ``quantize_static`` with activation ranges calibrated on sample texts.

Dynamic int8 (``rag.models.onnx_export``) measures each activation's range on every batch; static int8 measures
them once, here, by running the fp32 model over calibration texts, and stores them in the graph (QDQ format, the
one ONNX Runtime's CPU kernels fuse into integer MatMuls). Only the MatMuls are quantized (the Optimum preset for
this CPU: uint8 activations and, on AVX2, uint8 weights per channel); LayerNorm, softmax and GELU stay fp32,
where int8 hurts a small encoder's vectors most.

The calibration texts are either the user's own indexed chunks (``--calibrate-from STORAGE``: a spread sample
from its manifest) or the sample shipped beside this module (``calibration_sample.txt``: paragraphs written for
this project in Japanese and English, no third-party text). Ranges are taken with the 99.999th percentile of
each tensor's values rather than its min/max, so one outlier token does not stretch a range for every text.
"""

from __future__ import annotations

import contextlib
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from rag.errors import ModelUnavailableError

SHIPPED_SAMPLE = Path(__file__).with_name("calibration_sample.txt")
CALIBRATION_BATCH = 8


def shipped_calibration_texts() -> list[str]:
    """The paragraphs of ``calibration_sample.txt`` (comment lines left out)."""
    lines = SHIPPED_SAMPLE.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def indexed_calibration_texts(storage: Path, count: int, seed: int = 0) -> list[str]:
    """Up to ``count`` chunk texts spread over the index in ``storage`` (the user's own documents).

    Reads the manifest's ``chunks`` table read-only with sqlite3: the index layer imports this package (for its
    embedder), so this package does not import the index layer.

    Raises:
        ModelUnavailableError: ``storage`` holds no manifest or no chunks.
    """
    path = storage / "manifest.sqlite3"
    if not path.is_file():
        raise ModelUnavailableError(
            f"{storage} holds no index (no manifest.sqlite3); index documents there first, or leave out "
            "--calibrate-from to calibrate on the shipped sample."
        )
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        ids = sorted(row[0] for row in db.execute("SELECT chunk_id FROM chunks"))
        if not ids:
            raise ModelUnavailableError(
                f"The index in {storage} holds no chunks to calibrate on; index documents first."
            )
        chosen = random.Random(seed).sample(ids, min(count, len(ids)))
        texts = [db.execute("SELECT text FROM chunks WHERE chunk_id = ?", (i,)).fetchone()[0] for i in chosen]
    return [text for text in texts if text.strip()]


class TextCalibrationReader:
    """ONNX Runtime's ``CalibrationDataReader`` over texts: tokenized batches, passages and queries both."""

    def __init__(self, tokenizer: Any, texts: list[str], prompts: dict[str, str], max_length: int) -> None:
        passage = prompts.get("passage") or prompts.get("document") or ""
        query = prompts.get("query") or ""
        # Queries are short and the passages long: both shapes of input the model meets at run time.
        prompted = [passage + text for text in texts] + [query + text[:60] for text in texts[::4]]
        self._batches = iter(list(self._encode(tokenizer, prompted, max_length)))

    @staticmethod
    def _encode(tokenizer: Any, texts: list[str], max_length: int) -> Iterator[dict[str, np.ndarray]]:
        # Every batch of one shape (full, padded to one length): the percentile calibrator stacks their tensors.
        texts = texts + texts[: -len(texts) % CALIBRATION_BATCH]
        longest = max(len(ids) for ids in tokenizer(texts, truncation=True, max_length=max_length)["input_ids"])
        for start in range(0, len(texts), CALIBRATION_BATCH):
            encoded = tokenizer(
                texts[start : start + CALIBRATION_BATCH],
                padding="max_length",
                truncation=True,
                max_length=longest,
                return_tensors="np",
            )
            yield {
                "input_ids": encoded["input_ids"].astype(np.int64),
                "attention_mask": encoded["attention_mask"].astype(np.int64),
            }

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._batches, None)

    def rewind(self) -> None:  # part of the reader interface; one pass is all calibration needs here
        return None


def quantize_static_int8(
    fp32_path: Path, int8_path: Path, source: Path, texts: list[str], target: str, prompts: dict[str, str]
) -> None:
    """Write the static int8 model of ``fp32_path`` to ``int8_path``, calibrated on ``texts``.

    Args:
        fp32_path: the exported fp32 ONNX model.
        int8_path: where to write the quantized model.
        source: the sentence-transformers folder (its tokenizer encodes the calibration texts).
        texts: calibration texts (a few dozen to a few hundred).
        target: the CPU preset (``avx2`` gets uint8 weights, the others int8).
        prompts: the model's prompts (``passage``/``query``), applied as at run time.

    Raises:
        ModelUnavailableError: no calibration texts.
    """
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process
    from transformers import AutoTokenizer

    if not texts:
        raise ModelUnavailableError("Static int8 needs calibration texts; none were given.")
    tokenizer = AutoTokenizer.from_pretrained(str(source), local_files_only=True)
    prepared = fp32_path.with_name("prepared.onnx")
    quant_pre_process(str(fp32_path), str(prepared), skip_symbolic_shape=True)
    quantize_static(
        str(prepared),
        str(int8_path),
        TextCalibrationReader(tokenizer, texts, prompts, max_length=512),
        quant_format=QuantFormat.QDQ,
        op_types_to_quantize=["MatMul"],
        per_channel=True,
        reduce_range=False,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QUInt8 if target == "avx2" else QuantType.QInt8,
        calibrate_method=CalibrationMethod.Percentile,
        extra_options={"WeightSymmetric": True, "ActivationSymmetric": False, "CalibPercentile": 99.999},
    )
    prepared.unlink()
