"""Chroma adapter: the dense half of the index.

Embedded ``PersistentClient`` under storage by default; a ``chroma run`` server when ``settings.chroma_server``
is set (``RAG_CHROMA_URL``). We always pass our own embeddings and ``embedding_function=None`` (Chroma's default
function would try to download a model). Cosine space, so ``1 - distance`` is the cosine similarity.

A server that is down or stops answering is a ``VectorStoreUnavailableError`` naming it and how to start it,
from every call (``rag.index.chroma_server``); the writer's order (vectors before the manifest switch-over) means
nothing is lost and the next run completes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import numpy as np

from rag.errors import IndexError_, VectorStoreUnavailableError
from rag.index.chroma_server import connect, reaching
from rag.records import Chunk
from rag.settings import Settings

log = logging.getLogger(__name__)

_QUERY_TRIES = 3
_WRITE_BATCH = 2000  # below Chroma's max batch size, large enough to amortize the call
OWNER_KEY = "rag_index_id"  # collection metadata: the id of the index (manifest meta ``index_id``) that owns it


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

    def __init__(self, settings: Settings, owner: str = "") -> None:
        """Open (or create) the collection ``settings.collection``.

        Args:
            settings: where the store is (embedded under storage, or ``settings.chroma_server``).
            owner: the id of the index (manifest) this collection belongs to; a collection another index claimed is
                refused, because each index deletes the vectors its own manifest does not list.

        Raises:
            VectorStoreUnavailableError: the server cannot be reached.
            IndexError_: the store cannot be opened, or the collection belongs to another index.
        """
        import chromadb

        self._settings = settings
        self._server = settings.chroma_server
        try:
            if self._server:
                self._client = connect(self._server, settings.chroma_timeout_s)
            else:
                path = settings.storage / "chroma"
                path.mkdir(parents=True, exist_ok=True)
                self._client = chromadb.PersistentClient(path=str(path))
            with reaching(self._server):
                self._collection = self._client.get_or_create_collection(
                    settings.collection,
                    configuration={"hnsw": {"space": "cosine"}},
                    embedding_function=None,
                )
        except VectorStoreUnavailableError:
            raise
        except Exception as err:  # chromadb raises many unrelated types; all mean "store unusable"
            where = self._server.url if self._server else settings.storage
            raise IndexError_(
                f"Cannot open the vector store at {where}: {err}. "
                "For a server, check that `chroma run` is up; for the embedded store, check the storage folder."
            ) from err
        if owner:
            self._claim(owner)

    def _claim(self, owner: str) -> None:
        """Mark the collection as ``owner``'s, or refuse it when another index's manifest already did."""
        claimed = (self._collection.metadata or {}).get(OWNER_KEY)
        if claimed == owner:
            return
        where = self._server.url if self._server else self._settings.storage / "chroma"
        if claimed:
            raise IndexError_(
                f"The collection {self._settings.collection!r} at {where} holds another index's vectors (index "
                f"{claimed}; this one is {owner}), and each index deletes vectors its own manifest does not list. "
                "Set RAG_COLLECTION to a name of this index's own, or point RAG_STORAGE_DIR at that index's folder."
            )
        with reaching(self._server):
            self._collection.modify(metadata={**(self._collection.metadata or {}), OWNER_KEY: owner})

    def upsert(self, chunks: Sequence[Chunk], embeddings: np.ndarray) -> None:
        for start in range(0, len(chunks), _WRITE_BATCH):
            part = chunks[start : start + _WRITE_BATCH]
            with reaching(self._server):
                self._collection.upsert(
                    ids=[c.chunk_id for c in part],
                    embeddings=embeddings[start : start + _WRITE_BATCH],
                    metadatas=[c.metadata() for c in part],
                    documents=[c.text for c in part],
                )

    def delete(self, ids: Iterable[str]) -> None:
        id_list = list(ids)
        for start in range(0, len(id_list), _WRITE_BATCH):
            with reaching(self._server):
                self._collection.delete(ids=id_list[start : start + _WRITE_BATCH])

    def query(self, embedding: np.ndarray, k: int, where: dict[str, Any] | None = None) -> list[tuple[str, float]]:
        """Nearest chunks as (chunk_id, cosine similarity), best first.

        Raises:
            IndexError_: a filtered query kept meeting ids another process was writing ("Error finding id", as in
                ``embeddings_of``) after ``_QUERY_TRIES`` tries.
        """
        from chromadb.errors import InternalError

        if k <= 0:
            return []
        for attempt in range(_QUERY_TRIES):
            try:
                with reaching(self._server):
                    result = self._collection.query(
                        query_embeddings=[np.asarray(embedding, dtype=np.float32).tolist()],
                        n_results=k,
                        where=where or None,
                        include=["distances"],
                    )
                break
            except InternalError as err:  # a writer in another process is between its upsert and delete
                if attempt == _QUERY_TRIES - 1:
                    raise IndexError_(f"The vector store is busy with a write ({err}); search again.") from err
                time.sleep(0.05 * (attempt + 1))
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
            with reaching(self._server):
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
            with reaching(self._server):
                got = self._collection.get(where=where or None, include=[], limit=10_000, offset=offset)
            ids.update(got["ids"])
            if len(got["ids"]) < 10_000:
                return ids
            offset += 10_000

    def count(self) -> int:
        with reaching(self._server):
            return self._collection.count()

    def drop(self) -> None:
        """Delete the whole collection (a deleted knowledge base's, on a ``chroma run`` server)."""
        with reaching(self._server):
            self._client.delete_collection(self._settings.collection)

    def close(self) -> None:
        """Let go of the embedded store's files (before its folder is moved or deleted; Chroma caches it per path)."""
        close = getattr(self._client, "close", None)  # chromadb >= 1.1; its ClientAPI type does not list it
        if close is not None:
            close()
