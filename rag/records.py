"""Immutable records passed between the engine's stages and to the UI.

Change a record with ``dataclasses.replace``; nothing mutates one in place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ChunkType = Literal["text", "table", "record"]
BlockKind = Literal["text", "table", "heading"]
FileStatus = Literal["indexed", "updated", "unchanged", "failed"]
Scalar = str | int | float | bool


@dataclass(frozen=True, slots=True)
class Block:
    """One piece of a parsed document, before chunking.

    Attributes:
        text: normalized text (a markdown table for ``kind="table"``).
        kind: ``text``, ``table`` or ``heading``.
        page: 1-based page number, or None for formats without pages.
        section: nearest heading above this block ("" when none).
        metadata: extra flat fields (JSON record fields mapped to metadata).
    """

    text: str
    kind: BlockKind = "text"
    page: int | None = None
    section: str = ""
    metadata: dict[str, Scalar] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """What a parser read from one file.

    Attributes:
        blocks: the document's content in reading order.
        total_pages: page count (1 for formats without pages).
        title: document title when the format carries one.
        date: ISO date (document metadata, else file mtime).
        warnings: things a person should know (repaired PDF, garbage pages skipped, ...).
    """

    blocks: tuple[Block, ...]
    total_pages: int = 1
    title: str = ""
    date: str = ""
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrievable unit of text with flat, Chroma-safe metadata."""

    chunk_id: str
    text: str
    source: str
    rel_path: str = ""
    doc_type: str = "general"
    section: str = ""
    page: int | None = None
    total_pages: int = 1
    date: str = ""
    content_hash: str = ""
    chunk_index: int = 0
    chunk_type: ChunkType = "text"
    language: str = ""
    extra: dict[str, Scalar] = field(default_factory=dict)

    def metadata(self) -> dict[str, Scalar]:
        """Flat metadata for the vector store (no None values: Chroma rejects them)."""
        meta: dict[str, Scalar] = {
            "source": self.source,
            "rel_path": self.rel_path,
            "doc_type": self.doc_type,
            "section": self.section,
            "page": self.page if self.page is not None else 0,
            "total_pages": self.total_pages,
            "date": self.date,
            "date_num": _date_number(self.date),
            "content_hash": self.content_hash,
            "chunk_index": self.chunk_index,
            "chunk_type": self.chunk_type,
            "language": self.language,
        }
        meta.update(self.extra)
        return meta


def _date_number(iso_date: str) -> int:
    """YYYYMMDD as an int (0 when unknown): Chroma compares numbers, not strings, in range filters."""
    digits = iso_date.replace("-", "")[:8]
    return int(digits) if len(digits) == 8 and digits.isdigit() else 0


@dataclass(frozen=True, slots=True)
class StageScores:
    """Per-stage ranks and scores of one hit; a stage that did not run is None."""

    dense_rank: int | None = None
    dense_score: float | None = None
    bm25_rank: int | None = None
    bm25_score: float | None = None
    rrf_score: float | None = None
    rerank_score: float | None = None
    final_rank: int | None = None
    fused_score: float | None = None  # what fusion ranked by: the RRF score, or the convex combination


@dataclass(frozen=True, slots=True)
class Hit:
    """A search result: the chunk, its per-stage scores and anything collapsed into it."""

    chunk: Chunk
    score: float
    scores: StageScores = StageScores()
    also_sources: tuple[str, ...] = ()
    matched_terms: tuple[str, ...] = ()
    context_before: str = ""
    context_after: str = ""


@dataclass(frozen=True, slots=True)
class Citation:
    """A verified quote from a chunk, cited as [n] in an answer."""

    n: int
    source: str
    page: int | None
    quote: str
    chunk_id: str


@dataclass(frozen=True, slots=True)
class Answer:
    """A grounded answer with verified citations."""

    answer: str
    citations: tuple[Citation, ...] = ()
    followups: tuple[str, ...] = ()
    no_basis: bool = False
    backend: str = ""
    unsupported_sentences: tuple[str, ...] = ()
    message: str = ""
    llm_error: str = ""  # the backend failed (the citations are then the evidence found, with no answer)


@dataclass(frozen=True, slots=True)
class FileOutcome:
    """What happened to one file in an indexing run."""

    source: str
    status: FileStatus
    chunks: int = 0
    error: str = ""
    warnings: tuple[str, ...] = ()


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
class SearchFilters:
    """Metadata filters applied to both retrievers; empty fields do not filter."""

    sources: tuple[str, ...] = ()
    doc_types: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    date_from: str = ""  # ISO date, inclusive
    date_to: str = ""  # ISO date, inclusive
    entities: tuple[tuple[str, str], ...] = ()  # (field, value): chunks whose field lists value

    def is_empty(self) -> bool:
        return not (self.sources or self.doc_types or self.languages or self.date_from or self.date_to or self.entities)


@dataclass(frozen=True, slots=True)
class IndexProgress:
    """Progress of an indexing run, reported after each file and each embedding batch."""

    done_files: int
    total_files: int
    current: str
    stage: str  # "parsing", "embedding", "writing", "finishing"
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
