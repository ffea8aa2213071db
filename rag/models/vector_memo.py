"""Vectors of the sentences and questions read at question time, embedded once each for the life of the process.

Reading the evidence by meaning embeds every sentence of the passages a question is answered from (about 26 on the
realdocs golden set), and embedding them was most of the time to the first evidence on screen: 1.7 s of 1.8 s on
a two-core AVX2 CPU. A user asks several questions of one document, and neighbouring passages share the sentences
of their overlap, so most of those sentences were embedded before. ``VectorMemo`` keeps each text's vector (a
bounded number, least recently used dropped first), embeds only the texts it has not seen, each once, and embeds
them in small batches of similar length: a question's sentences range from a word to a table row of 400
characters, and one batch of 32 padded every sentence to the longest (batches of 8 took 0.65x the time).

The vectors are the embedder's own, so every cosine cut-off measured on them holds.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from rag.models.batching import embed_in_length_order

if TYPE_CHECKING:
    from rag.models.embedding import Embedder

QUESTION_TIME_BATCH = 8
"""Texts per batch when embedding at question time (the realdocs golden set's evidence sentences, e5-small on two
cores: 32 a batch 14.2 s in all, 16 11.8 s, 8 10.9 s, 4 10.5 s, 1 14.5 s)."""
MEMO_CAPACITY = 50_000
"""Vectors kept (384 floats each for e5-small: about 77 MB at most)."""


class VectorMemo:
    """An embedder's passage and query vectors, by text, for texts embedded while answering."""

    def __init__(
        self, embedder: Embedder, *, capacity: int = MEMO_CAPACITY, batch_size: int = QUESTION_TIME_BATCH
    ) -> None:
        if capacity < 1 or batch_size < 1:
            raise ValueError(f"capacity={capacity}, batch_size={batch_size}; allowed: integers >= 1")
        self._embedder = embedder
        self._capacity = capacity
        self._batch_size = batch_size
        self._vectors: OrderedDict[tuple[bool, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        """One passage vector per text, in the order of ``texts`` (the embedder's ``embed_passages``)."""
        return self._rows(texts, query=False)

    def query(self, text: str) -> np.ndarray:
        """The query vector of ``text`` (the embedder's ``embed_queries``)."""
        return self._rows([text], query=True)[0]

    def _rows(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        if isinstance(texts, str):
            raise ValueError("texts must be a sequence of strings, not one string; wrap it in a list")
        if not texts:
            return np.zeros((0, self._embedder.dimension), dtype=np.float32)
        known: dict[str, np.ndarray] = {}
        with self._lock:
            for text in texts:
                if (vector := self._vectors.get((query, text))) is not None:
                    known[text] = vector
        missing = list(dict.fromkeys(text for text in texts if text not in known))
        if missing:
            embed = self._embedder.embed_queries if query else self._embedder.embed_passages
            fresh = embed_in_length_order(missing, self._batch_size, embed)
            known.update(zip(missing, fresh, strict=True))
        with self._lock:
            for text, vector in known.items():
                self._vectors[(query, text)] = vector
                self._vectors.move_to_end((query, text))
            while len(self._vectors) > self._capacity:
                self._vectors.popitem(last=False)
        return np.vstack([known[text] for text in texts])  # the caller's own copy: the kept vectors stay as embedded
