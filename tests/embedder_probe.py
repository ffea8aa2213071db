"""A real embedding model behind the same ``Embedder`` protocol, recording what it embeds and for how long.

Tests check what an operation embedded (a sync of one new log embeds only that log); benchmarks split a run's
seconds into embedding and the rest. Shared by ``tests/unit/test_sync.py``, ``tests/unit/test_similar.py`` and
``bench/sync.py``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from rag.models.embedding import Embedder


class ProbeEmbedder:
    """Embeds with ``inner``; ``passages`` and ``queries`` list every passage and query embedded, ``seconds`` the
    passages' embedding time (wall clock) and ``cpu_seconds`` the process CPU time it took (all threads)."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.name, self.fingerprint, self.dimension = inner.name, inner.fingerprint, inner.dimension
        self.passages: list[str] = []
        self.queries: list[str] = []
        self.seconds = self.cpu_seconds = 0.0

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        started, cpu_started = time.perf_counter(), time.process_time()
        try:
            return self._inner.embed_passages(texts)
        finally:
            self.seconds += time.perf_counter() - started
            self.cpu_seconds += time.process_time() - cpu_started
            self.passages += texts

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.queries += texts
        return self._inner.embed_queries(texts)

    def reset(self) -> None:
        self.passages, self.queries, self.seconds, self.cpu_seconds = [], [], 0.0, 0.0
