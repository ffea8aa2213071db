"""Chroma adapter: the dense half of the index.

Embedded ``PersistentClient`` under storage by default; a ``chroma run`` server when ``settings.chroma_host`` is
set. We always pass our own embeddings and ``embedding_function=None`` (Chroma's default function would try
to download a model). Cosine space, so ``1 - distance`` is the cosine similarity.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import numpy as np

from rag.errors import IndexError_
from rag.records import Chunk
from rag.settings import Settings

log = logging.getLogger(__name__)

_WRITE_BATCH = 2000  # below Chroma's max batch size, large enough to amortize the call


class VectorStore(Protocol):
    def upsert(self, chunks: Sequence[Chunk], embeddings: np.ndarray) -> None: ...

    def delete(self, ids: Iterable[str]) -> None: ...

    def query(self, embedding: np.ndarray, k: int, where: dict[str, Any] | None = None) -> list[tuple[str, float]]: ...

    def embeddings_of(self, ids: Sequence[str]) -> dict[str, np.ndarray]: ...

    def all_ids(self) -> set[str]: ...

    def ids_of_source(self, source: str) -> set[str]: ...

    def count(self) -> int: ...


class ChromaStore:
    """One Chroma collection of chunk embeddings with the chunks' flat metadata."""

    def __init__(self, settings: Settings) -> None:
        import chromadb

        self._settings = settings
        try:
            if settings.chroma_host:
                self._client = chromadb.HttpClient(host=settings.chroma_host, port=settings.chroma_port)
            else:
                path = settings.storage / "chroma"
                path.mkdir(parents=True, exist_ok=True)
                self._client = chromadb.PersistentClient(path=str(path))
            self._collection = self._client.get_or_create_collection(
                settings.collection,
                configuration={"hnsw": {"space": "cosine"}},
                embedding_function=None,
            )
        except Exception as err:  # chromadb raises many unrelated types; all mean "store unusable"
            where = f"{settings.chroma_host}:{settings.chroma_port}" if settings.chroma_host else settings.storage
            raise IndexError_(
                f"Cannot open the vector store at {where}: {err}. "
                "For a server, check that `chroma run` is up; for the embedded store, check the storage folder."
            ) from err

    def upsert(self, chunks: Sequence[Chunk], embeddings: np.ndarray) -> None:
        for start in range(0, len(chunks), _WRITE_BATCH):
            part = chunks[start : start + _WRITE_BATCH]
            self._collection.upsert(
                ids=[c.chunk_id for c in part],
                embeddings=embeddings[start : start + _WRITE_BATCH],
                metadatas=[c.metadata() for c in part],
                documents=[c.text for c in part],
            )

    def delete(self, ids: Iterable[str]) -> None:
        id_list = list(ids)
        for start in range(0, len(id_list), _WRITE_BATCH):
            self._collection.delete(ids=id_list[start : start + _WRITE_BATCH])

    def query(self, embedding: np.ndarray, k: int, where: dict[str, Any] | None = None) -> list[tuple[str, float]]:
        """Nearest chunks as (chunk_id, cosine similarity), best first."""
        if k <= 0:
            return []
        result = self._collection.query(
            query_embeddings=[np.asarray(embedding, dtype=np.float32).tolist()],
            n_results=k,
            where=where or None,
            include=["distances"],
        )
        ids = result["ids"][0]
        distances = result["distances"][0] if result["distances"] else [1.0] * len(ids)
        return [(cid, 1.0 - float(d)) for cid, d in zip(ids, distances)]

    def embeddings_of(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored embeddings of ``ids``; an id Chroma cannot produce right now is left out.

        While another process writes, Chroma can list an id it cannot find yet (or any more) in this process's view
        ("Error finding id"); the ids around it are still returned, found by halving the request. Readers score
        a missing one without its embedding; the writer (holding the lock) never meets this.
        """
        from chromadb.errors import InternalError

        if not ids:
            return {}
        try:
            got = self._collection.get(ids=list(ids), include=["embeddings"])
        except InternalError:
            if len(ids) == 1:
                return {}
            half = len(ids) // 2
            return {**self.embeddings_of(ids[:half]), **self.embeddings_of(ids[half:])}
        vectors = got["embeddings"] if got["embeddings"] is not None else []
        return {cid: np.asarray(vec, dtype=np.float32) for cid, vec in zip(got["ids"], vectors)}

    def all_ids(self) -> set[str]:
        return self.ids_where(None)

    def ids_of_source(self, source: str) -> set[str]:
        """The ids Chroma holds for one source (listed by the manifest or not)."""
        return self.ids_where({"source": source})

    def ids_where(self, where: dict[str, Any] | None) -> set[str]:
        ids: set[str] = set()
        offset = 0
        while True:
            got = self._collection.get(where=where or None, include=[], limit=10_000, offset=offset)
            ids.update(got["ids"])
            if len(got["ids"]) < 10_000:
                return ids
            offset += 10_000

    def count(self) -> int:
        return self._collection.count()

    def drop(self) -> None:
        """Delete the whole collection (a deleted knowledge base's, on a ``chroma run`` server)."""
        self._client.delete_collection(self._settings.collection)

    def close(self) -> None:
        """Let go of the embedded store's files (before its folder is moved or deleted; Chroma caches it per path)."""
        close = getattr(self._client, "close", None)  # chromadb >= 1.1; its ClientAPI type does not list it
        if close is not None:
            close()
