"""Read access to indexed chunks by source and position (quiz pools, neighbours) and their length statistics."""

from __future__ import annotations

from rag.index.manifest import Manifest
from rag.ingest.chunking import document_title
from rag.records import Chunk, ChunkLengthStats, LengthBin


class ChunkCatalog:
    """Chunks as committed in the manifest; what readers may see."""

    def __init__(self, manifest: Manifest) -> None:
        self._manifest = manifest

    def sources(self) -> list[str]:
        return [row.source for row in self._manifest.all_sources() if row.status == "indexed" and row.chunks]

    def titles(self) -> dict[str, str]:
        """Each indexed source's document title, where it has one (``rag.ingest.chunking.DOC_TITLE``)."""
        return {chunk.source: title for chunk in self._manifest.first_chunks() if (title := document_title(chunk))}

    def chunks_of(self, source: str) -> list[Chunk]:
        """The source's chunks in reading order (empty when the source is unknown)."""
        return self._manifest.chunks_of(source)

    def version(self) -> str:
        """The committed index version (one small read: what caches of chunks are keyed by)."""
        return self._manifest.index_version

    def neighbours(self, chunk_id: str, window: int = 1) -> list[Chunk]:
        """The chunk with up to ``window`` chunks on each side, in reading order."""
        found = self._manifest.chunks_by_id([chunk_id]).get(chunk_id)
        if found is None:
            return []
        around = []
        for index in range(found.chunk_index - window, found.chunk_index + window + 1):
            chunk = found if index == found.chunk_index else self._manifest.chunk_at(found.source, index)
            if chunk is not None:
                around.append(chunk)
        return around

    def length_stats(self, bins: int = 20) -> ChunkLengthStats:
        """Characters per chunk over the index: count, mean, extremes and an equal-width histogram.

        Args:
            bins: the most bars the histogram has (fewer when there are fewer distinct lengths).

        Raises:
            ValueError: ``bins`` is below 1.
        """
        if bins < 1:
            raise ValueError(f"bins={bins}; allowed: 1 or more")
        lengths = self._manifest.chunk_lengths()
        if not lengths:
            return ChunkLengthStats(0)
        shortest, longest = min(lengths), max(lengths)
        n = min(bins, len(set(lengths)))
        width = (longest - shortest) / n or 1.0
        counts = [0] * n
        for length in lengths:
            counts[min(int((length - shortest) / width), n - 1)] += 1
        edges = [round(shortest + i * width) for i in range(n)] + [longest]
        histogram = tuple(LengthBin(edges[i], edges[i + 1], counts[i]) for i in range(n))
        return ChunkLengthStats(len(lengths), sum(lengths) / len(lengths), shortest, longest, histogram)
