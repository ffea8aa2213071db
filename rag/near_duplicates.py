"""Near-duplicate passages inside one document are stored once (cosine ≥ threshold on their embeddings)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rag.records import Chunk


def drop_near_duplicates(
    chunks: Sequence[Chunk],
    tokens: Sequence[Sequence[str]],
    vectors: Mapping[str, np.ndarray],
    threshold: float,
) -> tuple[tuple[Chunk, ...], tuple[tuple[str, ...], ...], int]:
    """Keep the first of each group of near-identical text chunks, in reading order.

    Tables and records are never dropped: rows that differ only in a number embed almost identically, yet the
    number is the point.

    Returns:
        The kept chunks, their tokens, and how many were dropped.
    """
    kept: list[int] = []
    kept_text_vectors: list[np.ndarray] = []
    for i, chunk in enumerate(chunks):
        vector = vectors.get(chunk.chunk_id)
        if chunk.chunk_type != "text" or vector is None:
            kept.append(i)
            continue
        if kept_text_vectors and float(np.max(np.stack(kept_text_vectors) @ vector)) >= threshold:
            continue
        kept.append(i)
        kept_text_vectors.append(vector)
    return (
        tuple(chunks[i] for i in kept),
        tuple(tuple(tokens[i]) for i in kept),
        len(chunks) - len(kept),
    )
