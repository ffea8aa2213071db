"""Near-duplicate passages inside one document are stored once (cosine ≥ threshold on their embeddings).

The rule: reading in order, a text chunk is dropped when an earlier chunk that was kept is at least ``threshold``
similar to it. Only near neighbours can be that similar, so chunks are compared within neighbourhoods, not all
pairs: up to ``EXACT_LIMIT`` text chunks the whole document is one neighbourhood (exact; one matrix product per
block of rows), above it an inverted file: k-means cells over the embeddings (about 2√n of them), each chunk filed
under its ``PROBES`` nearest cells, and chunks compared only with those sharing a cell. That grows like n·√n
instead of n² (a 150 MB text file has ~256,000 chunks), at the price of rarely keeping a near-duplicate whose
nearest cells differ from its twin's: nothing is ever lost, a passage may be stored twice.
Identical texts are matched by their text first, so a paragraph repeated 1,000 times costs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rag.records import Chunk

EXACT_LIMIT = 8192
"""Up to this many text chunks, every pair is compared (well under a second on two cores)."""
PROBES = 3
"""How many nearest cells each chunk is filed under above ``EXACT_LIMIT``."""
KMEANS_ROUNDS = 4
CELLS_PER_SQRT = 2.0
"""Cells per √n: more cells make fewer comparisons but a longer k-means; 2 balances them at 10⁴-10⁶ chunks."""
_BLOCK = 1024  # rows per matrix product: bounds the memory of one similarity block to _BLOCK × cell size


def drop_near_duplicates(
    chunks: Sequence[Chunk],
    tokens: Sequence[Sequence[str]],
    vectors: Mapping[str, np.ndarray],
    threshold: float,
) -> tuple[tuple[Chunk, ...], tuple[tuple[str, ...], ...], int]:
    """Keep the first of each group of near-identical text chunks, in reading order.

    Tables and records are never dropped: rows that differ only in a number embed almost identically, yet the
    number is the point.

    Args:
        chunks: one document's chunks in reading order.
        tokens: their BM25 tokens, row for row.
        vectors: unit embeddings by chunk id (chunks without one are kept).
        threshold: cosine at or above which a later chunk repeats an earlier one.

    Returns:
        The kept chunks, their tokens, and how many were dropped.
    """
    rows = [i for i, c in enumerate(chunks) if c.chunk_type == "text" and c.chunk_id in vectors]
    dropped: set[int] = set()
    if len(rows) > 1:
        matrix = np.stack([np.asarray(vectors[chunks[i].chunk_id], dtype=np.float32) for i in rows])
        first_of_text: dict[str, int] = {}
        kept = np.array([first_of_text.setdefault(chunks[i].text, r) == r for r, i in enumerate(rows)])
        earlier, later = similar_pairs(matrix, threshold)
        _keep_first(kept, earlier, later)
        dropped = {rows[r] for r in np.flatnonzero(~kept)}
    kept_rows = [i for i in range(len(chunks)) if i not in dropped]
    return (
        tuple(chunks[i] for i in kept_rows),
        tuple(tuple(tokens[i]) for i in kept_rows),
        len(dropped),
    )


def similar_pairs(matrix: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Row pairs ``(i, j)``, ``i < j``, with cosine ≥ ``threshold``: all of them up to ``EXACT_LIMIT`` rows, those
    sharing one of their ``PROBES`` nearest k-means cells above it.

    Returns:
        Two arrays, the earlier and the later row of each pair (each pair once).
    """
    if len(matrix) <= EXACT_LIMIT:
        cells = [np.arange(len(matrix))]
    else:
        cells = _cells(matrix)
    found = [_pairs_within(matrix, members, threshold) for members in cells if len(members) > 1]
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    packed = np.unique(np.concatenate([i * len(matrix) + j for i, j in found]))
    return packed // len(matrix), packed % len(matrix)


def _pairs_within(matrix: np.ndarray, members: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
    members = np.sort(members)
    inside = matrix[members]
    firsts: list[np.ndarray] = []
    seconds: list[np.ndarray] = []
    for start in range(0, len(members), _BLOCK):
        block = inside[start : start + _BLOCK] @ inside.T
        a, b = np.nonzero(block >= threshold)
        a = a + start
        earlier = a < b
        firsts.append(members[a[earlier]])
        seconds.append(members[b[earlier]])
    return np.concatenate(firsts), np.concatenate(seconds)


def _cells(matrix: np.ndarray) -> list[np.ndarray]:
    """The members of each k-means cell, every row filed under its ``PROBES`` nearest cells (deterministic)."""
    count = max(2, int(CELLS_PER_SQRT * np.sqrt(len(matrix))))
    centroids = matrix[np.linspace(0, len(matrix) - 1, count).astype(np.int64)].copy()
    for _ in range(KMEANS_ROUNDS):
        nearest = _nearest_cells(matrix, centroids, 1)[:, 0]
        order = np.argsort(nearest, kind="stable")
        filled, starts = np.unique(nearest[order], return_index=True)
        sums = np.add.reduceat(matrix[order], starts, axis=0)
        centroids[filled] = sums / np.linalg.norm(sums, axis=1, keepdims=True)
    probed = _nearest_cells(matrix, centroids, PROBES)
    order = np.argsort(probed.ravel(), kind="stable")
    rows = np.repeat(np.arange(len(matrix)), PROBES)[order]
    bounds = np.searchsorted(probed.ravel()[order], np.arange(count + 1))
    return [rows[bounds[c] : bounds[c + 1]] for c in range(count)]


def _nearest_cells(matrix: np.ndarray, centroids: np.ndarray, probes: int) -> np.ndarray:
    out = np.empty((len(matrix), probes), dtype=np.int64)
    for start in range(0, len(matrix), _BLOCK * 8):
        scores = matrix[start : start + _BLOCK * 8] @ centroids.T
        out[start : start + _BLOCK * 8] = np.argpartition(-scores, probes - 1, axis=1)[:, :probes]
    return out


def _keep_first(kept: np.ndarray, earlier: np.ndarray, later: np.ndarray) -> None:
    """In reading order, drop a row that an earlier kept row is similar to (``kept`` is updated in place)."""
    order = np.argsort(later, kind="stable")
    earlier, later = earlier[order], later[order]
    starts = np.flatnonzero(np.r_[True, later[1:] != later[:-1]]) if len(later) else np.zeros(0, dtype=np.int64)
    for start, stop in zip(starts, np.r_[starts[1:], len(later)]):
        row = later[start]
        if kept[row] and kept[earlier[start:stop]].any():
            kept[row] = False
