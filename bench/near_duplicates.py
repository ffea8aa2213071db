"""Near-duplicate removal: seconds per document size, the previous all-pairs loop as the baseline in the same run.

Run: .venv/bin/python bench/near_duplicates.py [--sizes 1000,2000,4000,16000,64000] [--baseline-max 4000]
Vectors are synthetic unit vectors shaped like e5 passages (a shared offset makes unrelated ones ~0.8 similar),
half of them planted near-duplicates; embedding 64,000 real chunks would take the machine most of an hour.
Prints one line per size; no thresholds are asserted here.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.index.near_duplicates import EXACT_LIMIT, drop_near_duplicates  # noqa: E402
from rag.records import Chunk  # noqa: E402

THRESHOLD = 0.95


def document(n: int, rng: np.random.Generator) -> tuple[list[Chunk], dict[str, np.ndarray]]:
    originals = rng.normal(size=(n // 2, 384)).astype(np.float32) + 2.0
    copies = originals[rng.integers(0, n // 2, n - n // 2)]
    copies += rng.normal(size=copies.shape).astype(np.float32) * rng.choice([0.05, 0.5], size=(len(copies), 1))
    vectors = np.vstack([originals, copies])[rng.permutation(n)]
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    chunks = [Chunk(chunk_id=f"c{i}", text=f"text {i}", source="big.txt", page=1, chunk_index=i) for i in range(n)]
    return chunks, {c.chunk_id: vectors[i] for i, c in enumerate(chunks)}


def all_pairs(chunks: list[Chunk], vectors: dict[str, np.ndarray]) -> int:
    """The loop this replaced: each chunk against every kept one, re-stacked each time."""
    kept: list[np.ndarray] = []
    for chunk in chunks:
        vector = vectors[chunk.chunk_id]
        if kept and float(np.max(np.stack(kept) @ vector)) >= THRESHOLD:
            continue
        kept.append(vector)
    return len(chunks) - len(kept)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,2000,4000,16000,64000")
    parser.add_argument("--baseline-max", type=int, default=4000, help="largest size the all-pairs loop is timed at")
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    for n in (int(s) for s in args.sizes.split(",")):
        chunks, vectors = document(n, rng)
        started = time.perf_counter()
        _, _, dropped = drop_near_duplicates(chunks, [[] for _ in chunks], vectors, THRESHOLD)
        now_s = time.perf_counter() - started
        mode = "all pairs in blocks" if n <= EXACT_LIMIT else "inverted file"
        line = f"{n:>7} chunks: {now_s:7.2f} s ({mode}, {dropped} dropped)"
        if n <= args.baseline_max:
            started = time.perf_counter()
            same = all_pairs(chunks, vectors) == dropped
            before_s = time.perf_counter() - started
            line += f"; all-pairs loop {before_s:7.2f} s ({before_s / now_s:.0f}x), same count: {same}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
