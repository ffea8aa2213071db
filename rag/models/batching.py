"""Length-bucketed batches: texts of similar length share a batch, so little of each batch is padding.

A batch costs what its longest text costs (every row is padded to it). Sorting by length before cutting batches
and putting the rows back afterwards gives the same vectors in the caller's order at a fraction of the padding.
sentence-transformers' ``encode`` already does this for the torch back end; the ONNX back end uses this module.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import numpy as np


def length_buckets(texts: Sequence[str], batch_size: int) -> list[list[int]]:
    """Indices of ``texts`` cut into batches of at most ``batch_size``, longest texts first.

    Args:
        texts: the texts to embed.
        batch_size: the most texts one batch holds (>= 1).

    Returns:
        Batches of indices into ``texts``; every index appears exactly once.

    Raises:
        ValueError: ``batch_size`` is below 1.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size={batch_size}; allowed: an integer >= 1")
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


def embed_in_length_order(
    texts: Sequence[str], batch_size: int, embed_batch: Callable[[list[str]], np.ndarray]
) -> np.ndarray:
    """Embed ``texts`` in length-bucketed batches and return the rows in the order of ``texts``.

    Args:
        texts: the texts to embed (at least one).
        batch_size: the most texts one call of ``embed_batch`` gets.
        embed_batch: embeds a list of texts into one row each.

    Returns:
        One row per text, row ``i`` for ``texts[i]``.
    """
    rows: list[np.ndarray] = []
    positions: list[int] = []
    for bucket in length_buckets(texts, batch_size):
        rows.append(embed_batch([texts[i] for i in bucket]))
        positions.extend(bucket)
    stacked = np.vstack(rows)
    ordered = np.empty_like(stacked)
    ordered[positions] = stacked
    return ordered


def machine_threads() -> int:
    """The cores this process may run on (its CPU affinity, not the machine's total when it is pinned)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
