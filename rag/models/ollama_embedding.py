"""An ``Embedder`` over Ollama's ``/api/embed`` (``ollama pull bge-m3``, then ``--embedding ollama:bge-m3``).

A knowledge base whose ``embedding_model`` is ``ollama:<model>`` embeds through the Ollama server at
``settings.ollama_host``. The manifest records ``ollama:<model>`` as the model that built the base, so the base
refuses another model instead of mixing two models' vectors (``ModelMismatchError``). The server's failures
become ``ModelUnavailableError`` messages that name the host, the model and what to do.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import httpx
import numpy as np
import ollama

from rag.errors import ModelUnavailableError
from rag.settings import Settings

OLLAMA_PREFIX = "ollama:"
"""How ``embedding_model`` names an Ollama model: ``ollama:bge-m3``."""
_BATCH = 64  # texts per request: large enough to amortize the call, small enough for one request's timeout


def is_ollama_model(name: str) -> bool:
    return name.startswith(OLLAMA_PREFIX)


class OllamaEmbedder:
    """Embeds with an Ollama model; vectors are L2-normalized here (Ollama's are, but a proxy's may not be).

    Args:
        host: the Ollama server, e.g. ``http://127.0.0.1:11434``.
        model: the model as Ollama names it, e.g. ``bge-m3``.
        timeout_s: the longest one request may take.
    """

    def __init__(self, host: str, model: str, *, timeout_s: float = 120.0, batch_size: int = _BATCH) -> None:
        if not model.strip():
            raise ModelUnavailableError(
                f"An Ollama embedding engine needs a model name: {OLLAMA_PREFIX}bge-m3, for example."
            )
        self.host = host
        self.model = model.strip()
        self.name = OLLAMA_PREFIX + self.model
        self.fingerprint = self.name
        self._batch_size = max(1, batch_size)
        self._client = ollama.Client(host=host or None, timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 5.0)))
        self._dimension: int | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> OllamaEmbedder:
        model = settings.embedding_model.strip().removeprefix(OLLAMA_PREFIX)
        return cls(settings.ollama_host, model, timeout_s=settings.llm_timeout_s)

    def __repr__(self) -> str:
        return f"OllamaEmbedder({self.model!r}, host={self.host!r})"

    @property
    def dimension(self) -> int:
        """The model's vector length (asked of the server once, by embedding one word)."""
        with self._lock:
            if self._dimension is None:
                self._dimension = int(self._request(["dimension"]).shape[1])
            return self._dimension

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise ValueError("texts must be a sequence of strings, not one string; wrap it in a list")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts = [self._request(list(texts[i : i + self._batch_size])) for i in range(0, len(texts), self._batch_size)]
        return np.ascontiguousarray(np.vstack(parts), dtype=np.float32)

    def _request(self, texts: list[str]) -> np.ndarray:
        try:
            reply = self._client.embed(model=self.model, input=texts)
        except ollama.ResponseError as err:
            if err.status_code == 404:
                raise ModelUnavailableError(
                    f"Ollama at {self.host} has no model '{self.model}': run `ollama pull {self.model}`, or create "
                    "the knowledge base with another embedding engine."
                ) from err
            raise ModelUnavailableError(
                f"Ollama at {self.host} failed to embed with '{self.model}' (HTTP {err.status_code}: {err.error})."
            ) from err
        except (httpx.HTTPError, ConnectionError) as err:
            raise ModelUnavailableError(
                f"Ollama is not reachable at {self.host} to embed with '{self.model}': start it with `ollama serve` "
                f"(and `ollama pull {self.model}`), or set RAG_OLLAMA_HOST to where it runs. ({err})"
            ) from err
        vectors = np.asarray(reply.embeddings, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(texts):
            raise ModelUnavailableError(
                f"Ollama at {self.host} returned {len(vectors)} embeddings for {len(texts)} texts with "
                f"'{self.model}'; is it an embedding model? (`ollama show {self.model}`)"
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)
