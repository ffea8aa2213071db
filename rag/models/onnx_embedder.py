"""The ONNX Runtime back end of ``Embedder``: a model converted by ``rag.models.onnx_export``, one warm session.

The session is made once per process and folder (``load_onnx_model``) and warmed with one text, so the first
question does not pay for graph optimization; queries and passages share it. Texts go through the model in
length-bucketed batches (``rag.models.batching``); the token vectors are mean- (or CLS-) pooled and L2-normalized
as the source folder's sentence-transformers modules did.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rag.errors import ModelUnavailableError
from rag.models.batching import embed_in_length_order, machine_threads
from rag.models.onnx_export import INFO_FILE


@dataclass(frozen=True, slots=True)
class OnnxModel:
    """A loaded, warmed ONNX Runtime session with its tokenizer and the source folder's pooling and prompts."""

    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # a transformers fast tokenizer
    info: dict[str, Any]
    dimension: int
    threads: int
    lock: threading.Lock = field(default_factory=threading.Lock)  # one run at a time: it already uses every core

    @property
    def quantization(self) -> str:
        return str(self.info.get("quantization") or "")

    def embed_batch(self, texts: list[str]) -> np.ndarray:
        """L2-normalized float32 rows for ``texts`` (prompts already applied)."""
        encoded = self.tokenizer(
            texts,
            padding=True,
            truncation=True,
            max_length=int(self.info.get("max_seq_length", 512)),
            return_tensors="np",
        )
        mask = encoded["attention_mask"].astype(np.int64)
        with self.lock:
            (hidden,) = self.session.run(
                ["last_hidden_state"], {"input_ids": encoded["input_ids"].astype(np.int64), "attention_mask": mask}
            )
        if self.info.get("pooling") == "cls":
            pooled = hidden[:, 0, :]
        else:
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return np.ascontiguousarray(pooled / norms, dtype=np.float32)


def load_onnx_model(folder: Path, build_hint: str) -> OnnxModel:
    """Open the converted model in ``folder`` with one thread per core this process may use, and warm it.

    Raises:
        ModelUnavailableError: the folder is missing or unreadable; the message quotes ``build_hint``.
    """
    info_path = folder / INFO_FILE
    if not info_path.is_file() or not (folder / "model.onnx").is_file():
        raise ModelUnavailableError(
            f"The ONNX embedding model {folder} has not been built. Build it once: {build_hint}"
        )
    try:
        import onnxruntime as ort
        from transformers import AutoTokenizer

        options = ort.SessionOptions()
        threads = machine_threads()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Idle worker threads spin by default; on cores shared with other jobs that burns their time for nothing.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
        tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        info = json.loads(info_path.read_text(encoding="utf-8"))
    except ImportError as err:
        raise ModelUnavailableError("onnxruntime is not installed: run `pip install -r requirements.txt`.") from err
    except (OSError, ValueError, RuntimeError) as err:  # ort raises RuntimeError subclasses for bad files
        raise ModelUnavailableError(f"Cannot load the ONNX model in {folder}: {err}. Rebuild it: {build_hint}") from err
    probe = OnnxModel(session, tokenizer, info, dimension=0, threads=threads)
    dimension = int(probe.embed_batch(["warm-up"]).shape[1])  # also the warm-up run
    return OnnxModel(session, tokenizer, info, dimension=dimension, threads=threads)


class OnnxEmbedder:
    """An ``Embedder`` over an ``OnnxModel``; build one with ``rag.models.embedding.load_embedder``."""

    def __init__(self, name: str, fingerprint: str, model: OnnxModel, batch_size: int = 32) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size={batch_size}; allowed: an integer >= 1")
        self.name = name
        self.fingerprint = fingerprint
        self.dimension = model.dimension
        self._model = model
        self._batch_size = batch_size
        prompts = model.info.get("prompts") or {}
        self._query_prompt = str(prompts.get("query") or "")
        self._passage_prompt = str(prompts.get("passage") or prompts.get("document") or "")

    def __repr__(self) -> str:
        return f"OnnxEmbedder({self.fingerprint!r}, dimension={self.dimension}, threads={self._model.threads})"

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Embed documents with the model's passage prompt (``passage: `` for e5)."""
        return self._embed(texts, self._passage_prompt)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries with the model's query prompt (``query: `` for e5)."""
        return self._embed(texts, self._query_prompt)

    def _embed(self, texts: Sequence[str], prompt: str) -> np.ndarray:
        if isinstance(texts, str):
            raise ValueError("texts must be a sequence of strings, not one string; wrap it in a list")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        prompted = [prompt + text for text in texts]
        return embed_in_length_order(prompted, self._batch_size, self._model.embed_batch)
