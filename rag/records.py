"""Immutable records passed between the engine's stages and to the UI, and the closed sets of values they carry.

Change a record with ``dataclasses.replace``; nothing mutates one in place. Each closed set (quiz levels, search
modes, LLM backend names, indexing stages) is one ``Literal`` here with its values as a tuple beside it: the command
line's ``choices``, the pages' select boxes and the settings' checks all read them, so a new value is added once.
(File kinds have their own home, ``rag.ingest.parsing.kinds``.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict, get_args

ChunkType = Literal["text", "table", "record", "chat"]
BlockKind = Literal["text", "table", "heading"]
FileStatus = Literal["indexed", "updated", "unchanged", "failed", "skipped"]
Scalar = str | int | float | bool

QuizLevel = Literal["beginner", "intermediate", "advanced"]
QUIZ_LEVELS: tuple[QuizLevel, ...] = get_args(QuizLevel)
"""Quiz difficulty levels, easiest first."""

SearchMode = Literal["hybrid", "bm25", "dense"]
SEARCH_MODES: tuple[SearchMode, ...] = get_args(SearchMode)
"""Ways to search: both retrievers fused, keywords only, embeddings only."""
MODE_SEMANTIC_WEIGHTS: dict[SearchMode, float | None] = {"hybrid": None, "bm25": 0.0, "dense": 1.0}
"""The semantic weight each mode searches with; None: the configured (or chosen) hybrid weight."""

BackendName = Literal["ollama", "openai", "embedded", "extractive"]
BACKEND_NAMES: tuple[BackendName, ...] = get_args(BackendName)
"""The LLM backends, in the order ``llm_backend="auto"`` tries them (extractive, which always works, last)."""

IndexStage = Literal["parsing", "embedding", "finishing"]
INDEX_STAGES: tuple[IndexStage, ...] = get_args(IndexStage)
"""What an indexing run reports it is doing: reading a file, embedding chunks, rebuilding BM25 at the end."""


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
        ocr_pages: 1-based numbers of the pages read with OCR.
    """

    blocks: tuple[Block, ...]
    total_pages: int = 1
    title: str = ""
    date: str = ""
    warnings: tuple[str, ...] = ()
    ocr_pages: tuple[int, ...] = ()


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
    base: str = "default"  # the knowledge base it was found in


@dataclass(frozen=True, slots=True)
class Citation:
    """A verified quote from a chunk, cited as [n] in an answer."""

    n: int
    source: str
    page: int | None
    quote: str
    chunk_id: str
    base: str = "default"  # the knowledge base of the quoted chunk


ClaimStatus = Literal["verified", "reattributed", "unsupported", "not_checked"]


@dataclass(frozen=True, slots=True)
class Evidence:
    """A passage shown before the answer, with its sentence that best answers the question.

    Attributes:
        n: the passage number the answer cites it by.
        source: the source it comes from.
        page: 1-based page, or None for formats without pages.
        chunk_id: the chunk it is read from.
        text: the chunk's text.
        sentence: the verbatim sentence (or table row) of ``text`` that best answers the question ("" when none).
        score: the hit's score.
    """

    n: int
    source: str
    page: int | None
    chunk_id: str
    text: str
    sentence: str
    score: float = 0.0
    base: str = "default"  # the knowledge base of its passage


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """How one answer sentence fared against the passage it cites.

    Attributes:
        sentence: the sentence, markers removed.
        status: ``verified`` (its cited passage supports it), ``reattributed`` (another passage does, and now carries
            its marker), ``unsupported`` (no passage does), ``not_checked`` (no claim: "I don't know", a heading).
        cited: the passage numbers it cites after checking.
        reason: why it is unsupported ("" otherwise): the missing number or name, or the flipped polarity.
    """

    sentence: str
    status: ClaimStatus
    cited: tuple[int, ...] = ()
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Answer:
    """A grounded answer with verified citations.

    Attributes:
        answer: the text shown (markers ``[n]`` refer to ``citations``).
        citations: one verified quote per cited passage.
        followups: follow-up questions to offer.
        no_basis: nothing relevant was found; the LLM was not asked.
        backend: the LLM backend that answered.
        unsupported_sentences: answer sentences no passage supports (shown as such, never as verified).
        message: notes for the user (how the answer was checked, an LLM failure and its fix).
        evidence: the passages the answer was written from, each with its best sentence (shown first).
        claims: the verdict on every answer sentence.
        query: the question as searched (a follow-up rewritten with the conversation), when it differs.
        model_answer: the model's own text when it was replaced by the evidence because its main claim failed.
        llm_error: why the LLM failed ("" when it did not); the evidence's citations are shown instead.
    """

    answer: str
    citations: tuple[Citation, ...] = ()
    followups: tuple[str, ...] = ()
    no_basis: bool = False
    backend: str = ""
    unsupported_sentences: tuple[str, ...] = ()
    message: str = ""
    evidence: tuple[Evidence, ...] = ()
    claims: tuple[ClaimVerdict, ...] = ()
    query: str = ""
    model_answer: str = ""
    llm_error: str = ""


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
class BackendStatus:
    """What the sidebar shows about one LLM backend.

    Attributes:
        name: the backend (one of ``BACKEND_NAMES`` for the engine's own).
        available: whether it answers now.
        model: the model it would use ("" when unknown).
        detail: host, file path, or the reason it is unavailable (with the fix).
    """

    name: str
    available: bool
    model: str = ""
    detail: str = ""


@dataclass(frozen=True, slots=True)
class BackendReport:
    """Every LLM backend's status, and which one answers.

    Attributes:
        statuses: one per backend, in ``auto``'s order of preference.
        configured: the ``llm_backend`` setting (``auto`` or a backend name).
        live: the name of the backend answers use: the configured one, or the one ``auto`` picked (None: a named
            backend that is not among the statuses).
    """

    statuses: tuple[BackendStatus, ...]
    configured: str
    live: str | None

    @property
    def live_status(self) -> BackendStatus | None:
        return next((s for s in self.statuses if s.name == self.live), None)


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


class RetrievalEvaluation(TypedDict):
    """Retrieval metrics (``evaluate``): per mode ``ndcg@10``, ``recall@5`` ..., ``queries``, ``latency_ms_p50`` and
    ``latency_ms_p95``; per query ``query_id``, ``query``, ``mode``, ``ndcg@10``, ``top`` and ``relevant``."""

    modes: dict[str, dict[str, float]]
    per_query: list[dict[str, Any]]


class AnswerEvaluation(TypedDict):
    """Answer metrics (``evaluate --answers``): the summary (``accuracy``, ``no_answer_accuracy``, ...) and one row
    per question (format in ``rag.evaluation.answers``)."""

    summary: dict[str, Any]
    per_query: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class QuizSummary:
    """One row of the saved-quiz list."""

    id: str
    source: str
    level: str
    count: int
    created_at: str
    best_score: float | None


@dataclass(frozen=True, slots=True)
class Judgement:
    """Whether a quiz answer was right, with the explanation and the citations that show why."""

    correct: bool
    explanation: str
    citations: tuple[Citation, ...]


# ---- monitoring and backups ----------------------------------------------------------------------------------

QueryKind = Literal["search", "answer"]
QUERY_KINDS: tuple[QueryKind, ...] = get_args(QueryKind)
"""What a monitored question was: a search alone, or a search and an answer."""

LatencyStage = Literal[
    "embed", "dense", "bm25", "fusion", "rerank", "context", "first_token", "generate", "check", "total"
]
LATENCY_STAGES: tuple[LatencyStage, ...] = get_args(LatencyStage)
"""The stages a question's time is measured in, in the order they run: the query embedding, Chroma's search, BM25,
fusion (with the manifest read and entity boost), the cross-encoder; for an answer the passages and evidence
(``context``), the wait for the first streamed word, the whole reply, the claim checks; ``total`` is the whole."""


@dataclass(frozen=True, slots=True)
class QueryEvent:
    """One search or answer as monitoring recorded it. No question text is kept: it is private.

    Attributes:
        at: when it finished, seconds since the epoch (UTC).
        kind: search or answer.
        stages_ms: milliseconds per stage that ran, in ``LATENCY_STAGES`` order.
        hits: how many hits the search returned.
        top_score: the best hit's score (None without hits).
        no_basis: the hits were no basis to answer from (for an answer: it said "no basis in the documents").
        backend: the LLM backend that answered ("" for a search).
    """

    at: float
    kind: QueryKind
    stages_ms: tuple[tuple[LatencyStage, float], ...]
    hits: int
    top_score: float | None
    no_basis: bool
    backend: str = ""


@dataclass(frozen=True, slots=True)
class StageLatency:
    """Median and 95th percentile of one stage over the questions in which it ran."""

    stage: LatencyStage
    count: int
    p50_ms: float
    p95_ms: float


@dataclass(frozen=True, slots=True)
class HourCount:
    """Questions in one clock hour (UTC), by kind; ``hour`` is its start, ``2026-11-23T20:00Z``."""

    hour: str
    searches: int
    answers: int


@dataclass(frozen=True, slots=True)
class MonitoringSummary:
    """Searches and answers over a window of time, from the monitoring log.

    Attributes:
        since: the window's start (ISO 8601, UTC).
        searches: searches in the window.
        answers: answers in the window.
        stages: p50/p95 per stage that ran at least once, in ``LATENCY_STAGES`` order.
        hit_ratio: share of questions with at least one hit (None without questions).
        no_basis_ratio: share of questions without a basis to answer from (None without questions).
        by_hour: every clock hour from the first question in the window to now, oldest first.
        backends: answers per LLM backend.
    """

    since: str
    searches: int
    answers: int
    stages: tuple[StageLatency, ...]
    hit_ratio: float | None
    no_basis_ratio: float | None
    by_hour: tuple[HourCount, ...]
    backends: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class BackupReport:
    """What an export wrote or an import restored.

    Attributes:
        path: the archive.
        sources: sources (manifest rows) in it.
        chunks: chunks (with their vectors and BM25 tokens) in it.
        quizzes: quiz sets in it.
        embedding_model: the model its vectors were made with.
        dimension: the vectors' length.
        index_version: the index version it holds.
        bytes: the archive's size.
        seconds: how long the export or import took.
        warnings: what a person should know (settings that differ from the importing machine's).
    """

    path: str
    sources: int
    chunks: int
    quizzes: int
    embedding_model: str
    dimension: int
    index_version: str
    bytes: int
    seconds: float
    warnings: tuple[str, ...] = ()


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


@dataclass(frozen=True, slots=True)
class SimilarRecord:
    """A record of an example library near a given text (``python -m rag similar``), to put in a prompt."""

    rank: int
    score: float  # cosine (dense modes) or the fused score (hybrid)
    source: str
    record_no: int  # its line in the JSONL file (1-based)
    text: str  # what was embedded: the text fields, compacted
    shown: dict[str, Any]  # the record's ``json_shown_fields``, whole
    metadata: dict[str, Scalar]  # the record's ``json_metadata_fields``
    chunk_id: str


DEFAULT_BASE = "default"
"""The knowledge base that is the storage folder itself (what existed before there were several)."""


@dataclass(frozen=True, slots=True)
class KnowledgeBase:
    """One knowledge base: its own manifest, Chroma collection, BM25 index, uploads, quiz sets and settings.

    Attributes:
        name: what people call it (``default`` is the storage folder itself).
        storage: the folder that holds it.
        embedding_model: the embedding engine its vectors come from (``ollama:<model>`` or a local model).
        overrides: the settings it sets differently from the storage's (chunk size, OCR language ...).
        sources: how many sources are indexed in it.
        chunks: how many chunks.
    """

    name: str
    storage: str
    embedding_model: str
    overrides: dict[str, Any] = field(default_factory=dict)
    sources: int = 0
    chunks: int = 0
