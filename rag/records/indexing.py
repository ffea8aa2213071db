"""What an indexing run reports, and what the index holds: outcomes, progress, stats, versions, consistency."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

FileStatus = Literal["indexed", "updated", "unchanged", "failed", "skipped"]

IndexStage = Literal["parsing", "embedding", "finishing"]
INDEX_STAGES: tuple[IndexStage, ...] = get_args(IndexStage)
"""What an indexing run reports it is doing: reading a file, embedding chunks, rebuilding BM25 at the end."""


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """What happened to one file in an indexing run."""

    source: str
    status: FileStatus
    chunks: int = 0
    error: str = ""
    warnings: tuple[str, ...] = ()
    ocr_pages: tuple[int, ...] = ()  # pages read with OCR


@dataclass(frozen=True, slots=True)
class IndexReport:
    """The result of one indexing run."""

    files: tuple[FileOutcome, ...]
    embedded: int
    index_version: str
    removed: tuple[str, ...] = ()  # sources whose files vanished from an indexed folder

    @property
    def failed(self) -> bool:
        return any(f.status == "failed" for f in self.files)


@dataclass(frozen=True, slots=True)
class SourceStats:
    """One indexed (or failed) source as the stats view shows it."""

    source: str
    doc_type: str
    pages: int
    chunks: int
    status: str
    error: str = ""
    date: str = ""
    index_version: str = ""
    language: str = ""
    warnings: tuple[str, ...] = ()
    ocr_pages: tuple[int, ...] = ()  # pages read with OCR


@dataclass(frozen=True, slots=True)
class IndexStats:
    """Totals and per-source rows of the index."""

    sources: int
    chunks: int
    pages: int
    index_version: str
    embedding_model: str
    per_source: tuple[SourceStats, ...] = ()


@dataclass(frozen=True, slots=True)
class IndexProgress:
    """Progress of an indexing run, reported after each file and each embedding batch."""

    done_files: int
    total_files: int
    current: str
    stage: IndexStage
    elapsed_s: float
    eta_s: float | None
    embedded: int = 0


@dataclass(frozen=True, slots=True)
class VersionEntry:
    """One index write: its version, when, and what it did."""

    index_version: str
    at: str
    action: str  # "index", "remove", "repair"
    detail: str


@dataclass(frozen=True, slots=True)
class ConsistencyReport:
    """Whether the manifest, Chroma and BM25 hold the same chunk ids."""

    ok: bool
    manifest_chunks: int
    vector_chunks: int
    keyword_chunks: int
    missing_in_vectors: tuple[str, ...] = ()
    orphans_in_vectors: tuple[str, ...] = ()
    keyword_version: str = ""
    manifest_version: str = ""
    message: str = ""


@dataclass(frozen=True, slots=True)
class LengthBin:
    """One bar of a histogram: how many values lie from ``low`` to ``high`` (inclusive, rounded)."""

    low: int
    high: int
    count: int


@dataclass(frozen=True, slots=True)
class ChunkLengthStats:
    """Characters per indexed chunk, over the whole index.

    Attributes:
        chunks: how many chunks are indexed.
        mean: their mean length (0 when there are none).
        shortest: the shortest chunk's length.
        longest: the longest chunk's length.
        bins: an equal-width histogram from ``shortest`` to ``longest``.
    """

    chunks: int
    mean: float = 0.0
    shortest: int = 0
    longest: int = 0
    bins: tuple[LengthBin, ...] = ()


@dataclass(frozen=True, slots=True)
class SyncReport:
    """One ``sync`` of a conversation-log archive and its live set (``rag.index.sync``).

    Archive files are named as ``index`` names a folder's files (``<archive folder>/<path inside>``).
    """

    archive_indexed: tuple[str, ...]  # new archive files, embedded this time
    archive_unchanged: int  # archive files already indexed, skipped without reading them
    archive_changed: tuple[str, ...]  # indexed archive files whose content changed: reported, old chunks kept
    archive_missing: tuple[str, ...]  # indexed archive files no longer on disk: reported, chunks kept
    live_rebuilt: tuple[str, ...]  # live files read again (new or changed content)
    live_unchanged: int  # live files whose content (hash) is the one indexed
    live_removed: tuple[str, ...]  # live sources gone from the live set: removed from the index
    failed: tuple[FileOutcome, ...]  # files that could not be read, with why
    embedded: int  # chunks embedded
    index_version: str
    phase_seconds: dict[str, float] = field(default_factory=dict)  # "scan", "write", "total"

    @property
    def has_warnings(self) -> bool:
        """Something a person should look at: a changed or missing archive file, or a failed file."""
        return bool(self.archive_changed or self.archive_missing or self.failed)
