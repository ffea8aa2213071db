"""Immutable records passed between the engine's stages and to the UI, and the closed sets of values they carry.

Change a record with ``dataclasses.replace``; nothing mutates one in place. Each closed set (quiz levels, search
modes, LLM backend names, indexing stages) is one ``Literal`` with its values as a tuple beside it: the command
line's ``choices``, the pages' select boxes and the settings' checks all read them, so a new value is added once.
(File kinds have their own home, ``rag.ingest.parsing.kinds``.)

The records live in one module per concept (``documents``, ``indexing``, ``search``, ``answers``, ``quizzes``,
``monitoring``, ``bases``); import them from here, ``rag.records``.
"""

from __future__ import annotations

from rag.records.answers import (
    BACKEND_NAMES,
    Answer,
    AnswerEvaluation,
    BackendName,
    BackendReport,
    BackendStatus,
    Citation,
    ClaimStatus,
    ClaimVerdict,
    Evidence,
)
from rag.records.bases import (
    DEFAULT_BASE,
    BackupReport,
    KnowledgeBase,
)
from rag.records.documents import (
    OCR,
    Block,
    BlockKind,
    Chunk,
    ChunkType,
    ParsedDocument,
    Scalar,
)
from rag.records.indexing import (
    INDEX_STAGES,
    ChunkLengthStats,
    ConsistencyReport,
    FileOutcome,
    FileStatus,
    IndexProgress,
    IndexReport,
    IndexStage,
    IndexStats,
    LengthBin,
    SourceStats,
    SyncReport,
    VersionEntry,
)
from rag.records.monitoring import (
    LATENCY_STAGES,
    QUERY_KINDS,
    HourCount,
    LatencyStage,
    MonitoringSummary,
    QueryEvent,
    QueryKind,
    StageLatency,
)
from rag.records.quizzes import (
    QUIZ_LEVELS,
    Judgement,
    QuizLevel,
    QuizSummary,
)
from rag.records.search import (
    MODE_SEMANTIC_WEIGHTS,
    SEARCH_MODES,
    Hit,
    RetrievalEvaluation,
    SearchFilters,
    SearchMode,
    SimilarRecord,
    StageScores,
)

__all__ = [
    "OCR",
    "Answer",
    "AnswerEvaluation",
    "BACKEND_NAMES",
    "BackendName",
    "BackendReport",
    "BackendStatus",
    "BackupReport",
    "Block",
    "BlockKind",
    "Chunk",
    "ChunkLengthStats",
    "ChunkType",
    "Citation",
    "ClaimStatus",
    "ClaimVerdict",
    "ConsistencyReport",
    "DEFAULT_BASE",
    "Evidence",
    "FileOutcome",
    "FileStatus",
    "Hit",
    "HourCount",
    "INDEX_STAGES",
    "IndexProgress",
    "IndexReport",
    "IndexStage",
    "IndexStats",
    "Judgement",
    "KnowledgeBase",
    "LATENCY_STAGES",
    "LatencyStage",
    "LengthBin",
    "MODE_SEMANTIC_WEIGHTS",
    "MonitoringSummary",
    "ParsedDocument",
    "QUERY_KINDS",
    "QUIZ_LEVELS",
    "QueryEvent",
    "QueryKind",
    "QuizLevel",
    "QuizSummary",
    "RetrievalEvaluation",
    "SEARCH_MODES",
    "Scalar",
    "SearchFilters",
    "SearchMode",
    "SimilarRecord",
    "SourceStats",
    "StageLatency",
    "StageScores",
    "SyncReport",
    "VersionEntry",
]
