"""Read access to indexed chunks by source and position (quiz pools, neighbours, stats charts)."""

from __future__ import annotations

from rag.manifest import Manifest
from rag.records import Chunk


class ChunkCatalog:
    """Chunks as committed in the manifest; what readers may see."""

    def __init__(self, manifest: Manifest) -> None:
        self._manifest = manifest

    def sources(self) -> list[str]:
        return [row.source for row in self._manifest.all_sources() if row.status == "indexed" and row.chunks]

    def chunks_of(self, source: str) -> list[Chunk]:
        """The source's chunks in reading order (empty when the source is unknown)."""
        return self._manifest.chunks_of(source)

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
