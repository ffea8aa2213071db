"""Per-source pools of chunks to write quiz items from, sampled by how well they fit a difficulty level.

Source names are NFC-normalized (macOS file names arrive decomposed). The pool keeps at most
``MAX_IDS_PER_SOURCE`` chunks a source, spread evenly over the document, in a cache shared by threads.
"""

from __future__ import annotations

import random
import threading
import unicodedata
from collections.abc import Collection
from typing import Protocol

from rag.errors import SourceNotFoundError
from rag.records import QUIZ_LEVELS, Chunk

MAX_IDS_PER_SOURCE = 3000
MIN_SAMPLE = 20
SAMPLE_FACTOR = 4
MIN_CHUNK_CHARS = 40

LEVEL_KEYWORDS: dict[str, tuple[str, ...]] = {
    "beginner": ("概要", "定義", "目的", "基本", "ルール", "overview", "definition", "purpose", "basic", "rule"),
    "intermediate": ("手順", "方法", "対応", "フロー", "操作", "procedure", "method", "steps", "flow", "operation"),
    "advanced": (
        "例外",
        "禁止",
        "注意",
        "判断",
        "リスク",
        "exception",
        "prohibited",
        "caution",
        "judgement",
        "judgment",
        "risk",
    ),
}


class ChunkCatalog(Protocol):
    """Read access to indexed chunks by source (the index implements it over SQLite)."""

    def sources(self) -> list[str]:
        """Every indexed source name."""
        ...

    def chunks_of(self, source: str) -> list[Chunk]:
        """The source's chunks ordered by ``chunk_index``."""
        ...

    def version(self) -> str:
        """The index version: it changes with every write, from this process or any other."""
        ...


def nfc(name: str) -> str:
    """The NFC form of a source name (the form every lookup uses)."""
    return unicodedata.normalize("NFC", name)


def difficulty_score(chunk: Chunk, level: str) -> float:
    """How well a chunk suits ``level``: keyword hits, a heading, and a 200-800 character length."""
    haystack = f"{chunk.section}\n{chunk.text}".lower()
    score = 2.0 * sum(1 for word in LEVEL_KEYWORDS[level] if word in haystack)
    score += 1.0 if chunk.section.strip() else 0.0
    score += 1.0 if 200 <= len(chunk.text) <= 800 else 0.0
    score -= 1.0 if chunk.chunk_type == "table" else 0.0
    return score


class ChunkPool:
    """Thread-safe cache of each source's chunks, and sampling from it.

    The cache is keyed by the index version, so a write by anyone (this dashboard, the CLI in another process)
    is seen at the next look-up without being told.

    Args:
        catalog: where chunks come from.
    """

    def __init__(self, catalog: ChunkCatalog) -> None:
        self._catalog = catalog
        self._cache: dict[str, tuple[Chunk, ...]] = {}
        self._cached_version = ""
        self._lock = threading.Lock()

    def chunks(self, source: str) -> tuple[Chunk, ...]:
        """The source's usable chunks (at most ``MAX_IDS_PER_SOURCE``, evenly spread).

        Raises:
            SourceNotFoundError: the catalog has no chunks for the source.
        """
        key = nfc(source)
        version = self._catalog.version()
        with self._lock:
            if version != self._cached_version:
                self._cache.clear()
                self._cached_version = version
            cached = self._cache.get(key)
        if cached is not None:
            return cached
        chunks = self._catalog.chunks_of(key) or (self._catalog.chunks_of(source) if key != source else [])
        usable = [c for c in chunks if len(c.text.strip()) >= MIN_CHUNK_CHARS]
        if not usable:
            known = ", ".join(sorted(self._catalog.sources())[:10]) or "none"
            why = f"none of its chunks has {MIN_CHUNK_CHARS} characters" if chunks else "it has no indexed text"
            raise SourceNotFoundError(f"No quiz material for source {source!r}: {why}. Indexed sources: {known}.")
        if len(usable) > MAX_IDS_PER_SOURCE:
            step = len(usable) / MAX_IDS_PER_SOURCE
            usable = [usable[int(i * step)] for i in range(MAX_IDS_PER_SOURCE)]
        with self._lock:
            self._cache[key] = tuple(usable)
        return tuple(usable)

    def sample(
        self,
        source: str,
        count: int,
        level: str,
        rng: random.Random,
        exclude: Collection[str] = (),
    ) -> list[Chunk]:
        """Up to ``max(count * 4, 20)`` chunks that suit ``level``, best first, in a random mix.

        Args:
            source: the source to sample.
            count: the number of quiz items wanted.
            level: beginner, intermediate or advanced.
            rng: randomness (seeded in tests).
            exclude: chunk ids already used (a re-sample draws fresh chunks first).

        Raises:
            ValueError: ``level`` is not one of the allowed levels.
        """
        if level not in QUIZ_LEVELS:
            raise ValueError(f"level={level!r}; allowed: {', '.join(QUIZ_LEVELS)}")
        size = max(count * SAMPLE_FACTOR, MIN_SAMPLE)
        chunks = self.chunks(source)
        fresh = [c for c in chunks if c.chunk_id not in exclude] or list(chunks)
        scored = sorted(fresh, key=lambda c: difficulty_score(c, level) + 2.0 * rng.random(), reverse=True)
        return scored[:size]
