"""Re-embed every stored chunk with the configured embedding model (``python -m rag check --reembed``).

An index records the embedding it was built with (model + back end + precision, the embedder's fingerprint) and
refuses to add vectors from another (``ModelMismatchError``). Switching on purpose (say to the ONNX int8 back
end) means re-embedding what is stored: the chunk texts are in the manifest, so no file is read again and the
chunk ids, BM25 and version history stay as they are; only Chroma's vectors are replaced, slice by slice.

While it runs the manifest names the new model as unfinished, so a crash leaves an index that refuses other
writes with a message to run the command again (which starts over) rather than one that silently mixes models.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rag.errors import IndexError_
from rag.index.writer import Index
from rag.ingest.chunking import embedded_text
from rag.records import IndexProgress

REEMBED_COMMAND = "python -m rag check --reembed"
UNFINISHED = " (re-embedding unfinished: run `" + REEMBED_COMMAND + "` again)"


def reembed_index(index: Index, progress: Callable[[IndexProgress], None] | None = None) -> int:
    """Replace every stored vector by one from ``index.embedder``; returns how many chunks were embedded.

    Raises:
        IndexBusyError: another process is writing and did not finish within the lock timeout.
        IndexError_: the new model's vectors have another dimension than the stored ones (Chroma cannot mix them).
    """
    embedder = index.embedder
    started = time.perf_counter()
    with index.writer():
        ids = sorted(index.manifest.all_chunk_ids())
        _check_dimension(index, ids, embedder.dimension)
        with index.manifest.transaction() as db:
            index.manifest.set_meta(db, "embedding_model", embedder.fingerprint + UNFINISHED)
        size = max(1, index.settings.index_slice_chunks)
        for start in range(0, len(ids), size):
            chunks = list(index.manifest.chunks_by_id(ids[start : start + size]).values())
            index.vectors.upsert(chunks, embedder.embed_passages([embedded_text(c) for c in chunks]))
            if progress is not None:
                done = start + len(chunks)
                elapsed = time.perf_counter() - started
                eta = elapsed / done * (len(ids) - done) if done else None
                progress(IndexProgress(done, len(ids), "chunks", "embedding", elapsed, eta, done))
        with index.manifest.transaction() as db:
            index.manifest.set_meta(db, "embedding_model", embedder.fingerprint)
    return len(ids)


def _check_dimension(index: Index, ids: list[str], dimension: int) -> None:
    stored = index.vectors.embeddings_of(ids[:1])
    for vector in stored.values():
        if len(vector) != dimension:
            raise IndexError_(
                f"The index in {index.settings.storage} holds {len(vector)}-dimensional vectors and the configured "
                f"embedding model makes {dimension}-dimensional ones; Chroma cannot hold both. Point "
                "RAG_STORAGE_DIR at a new folder and index the documents there with this model."
            )
