"""Cross-encoder reranking behind the ``Reranker`` protocol.

No cross-encoder weights ship on PyPI, npm or Debian, so the offline default is no reranker; a user who has a
model (``RAG_RERANKER_MODEL``: a sentence-transformers CrossEncoder name or local path) gets one.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

from rag.errors import ModelUnavailableError


class Reranker(Protocol):
    name: str

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """One relevance score (logit) per passage; higher is more relevant."""
        ...


class CrossEncoderReranker:
    """``sentence_transformers.CrossEncoder`` on the CPU, loaded once, scored under a lock."""

    def __init__(self, model: str) -> None:
        from sentence_transformers import CrossEncoder

        self.name = model
        self._lock = threading.Lock()
        try:
            self._model = CrossEncoder(model, device="cpu", local_files_only=True)
        except (OSError, ValueError) as err:
            raise ModelUnavailableError(
                f"Cannot load the reranker model {model!r}: {err}. Set RAG_RERANKER_MODEL to a local "
                "CrossEncoder folder, or unset it to search without a reranker."
            ) from err

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        with self._lock:
            scores = self._model.predict([(query, p) for p in passages], convert_to_numpy=True)
        return [float(s) for s in scores]


_cache: dict[str, CrossEncoderReranker] = {}
_cache_lock = threading.Lock()


def load_reranker(model: str) -> Reranker | None:
    """The configured reranker (cached per process), or None when no model is configured."""
    if not model:
        return None
    with _cache_lock:
        if model not in _cache:
            _cache[model] = CrossEncoderReranker(model)
        return _cache[model]
