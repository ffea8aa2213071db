"""What a search takes and returns: modes, filters, hits with their per-stage scores, example-library records."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypedDict, get_args

from rag.records.documents import Chunk, Scalar

SearchMode = Literal["hybrid", "bm25", "dense"]
SEARCH_MODES: tuple[SearchMode, ...] = get_args(SearchMode)
"""Ways to search: both retrievers fused, keywords only, embeddings only."""
MODE_SEMANTIC_WEIGHTS: dict[SearchMode, float | None] = {"hybrid": None, "bm25": 0.0, "dense": 1.0}
"""The semantic weight each mode searches with; None: the configured (or chosen) hybrid weight."""


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
    following: Chunk | None = None  # the source's next chunk (whose text is context_after), when it was looked up
    preceding: Chunk | None = None  # the source's chunk before (whose text is context_before), when it was looked up


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


class RetrievalEvaluation(TypedDict):
    """Retrieval metrics (``evaluate``): per mode ``ndcg@10``, ``recall@5`` ..., ``queries``, ``latency_ms_p50`` and
    ``latency_ms_p95``; per query ``query_id``, ``query``, ``mode``, ``ndcg@10``, ``top`` and ``relevant``."""

    modes: dict[str, dict[str, float]]
    per_query: list[dict[str, Any]]
