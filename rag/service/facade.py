"""The facade: the one object the pages and the command line talk to.

``RagService`` owns the index (manifest + Chroma + BM25), the embedding model, the LLM backend and the quiz
store. It is thread-safe: one in-process lock and one cross-process lock file serialize writes; reads run
concurrently. Heavy things (models, Chroma) load lazily on first use so the UI renders at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, cast

from rag.errors import ModelMismatchError, SourceNotFoundError
from rag.records import (
    DEFAULT_BASE,
    Answer,
    AnswerEvaluation,
    Chunk,
    ChunkLengthStats,
    ConsistencyReport,
    FileOutcome,
    Hit,
    IndexProgress,
    IndexReport,
    IndexStats,
    MonitoringSummary,
    QueryKind,
    RetrievalEvaluation,
    SearchFilters,
    SearchMode,
    SimilarRecord,
    SyncReport,
    VersionEntry,
)
from rag.service.answers import AnswerFacade
from rag.service.bases import BasesFacade
from rag.service.quizzes import QuizFacade
from rag.settings import Settings

if TYPE_CHECKING:
    from rag.index.base_engines import BaseEngines
    from rag.index.writer import Index
    from rag.llm.base import LLMBackend
    from rag.models.embedding import Embedder
    from rag.monitoring.query_log import QueryLog
    from rag.monitoring.recording import StageTimings
    from rag.retrieval.hybrid import HybridRetriever

ProgressCallback = Callable[[IndexProgress], None]


class RagService(QuizFacade, BasesFacade, AnswerFacade):
    """Everything the product does, behind one object.

    Args:
        settings: configuration; ``Settings.from_env()`` when omitted.
        embedder: an Embedder to use instead of loading ``settings.embedding_model`` (tests, benchmarks).
        llm: an LLM backend to use instead of selecting one from settings.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        embedder: Embedder | None = None,
        llm: LLMBackend | None = None,
    ) -> None:
        self.settings = settings or Settings.from_env()
        self._embedder = embedder
        self._llm = llm
        self._lock = threading.RLock()
        self.base_name = DEFAULT_BASE  # the knowledge base this engine serves (see ``base``)
        self._root = cast(Self, self)  # the storage's service, which owns the bases' engines and the LLM backend
        self._base_engines: BaseEngines[RagService] | None = None  # the root's, see ``_bases``
        self._bases_lock = threading.Lock()

    # ---- components (lazy) -------------------------------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                from rag.models.embedding import load_embedder

                self._embedder = load_embedder(self.settings)
            return self._embedder

    @cached_property
    def index(self) -> Index:
        from rag.index.writer import Index

        return Index(self.settings, embedder_factory=lambda: self.embedder)

    # ---- indexing ----------------------------------------------------------------------------------------

    def index_paths(self, paths: Sequence[str | Path], *, progress: ProgressCallback | None = None) -> IndexReport:
        """Index files and folders (recursively). Every file gets an outcome; failures do not stop the batch.

        Returns:
            The per-file outcomes, the number of chunks embedded and the new index version.

        Raises:
            IndexBusyError: another process is writing and did not finish within the lock timeout.
            ModelMismatchError: the index was built with another embedding model.
        """
        return self.index.index_paths([Path(p) for p in paths], progress=progress)

    def index_uploads(
        self, files: Sequence[tuple[str, bytes]], *, progress: ProgressCallback | None = None
    ) -> IndexReport:
        """Save uploaded files under ``<storage>/uploads`` (safe names, see ``rag.ingest.uploads``) and index them.

        An upload whose name has nothing usable in it gets a failed outcome in the report; the others go on.
        """
        from rag.ingest.uploads import save_uploads

        saved, refused = save_uploads(self.index.uploads_dir, files)
        report = self.index.index_paths(saved, progress=progress, root=self.index.uploads_dir)
        failed = tuple(FileOutcome(name, "failed", error=message) for name, message in refused)
        return replace(report, files=failed + report.files)

    def sync(self, *, progress: ProgressCallback | None = None) -> SyncReport:
        """Update the index from the configured log archive and live set (``rag.index.sync``): embed only archive
        files not seen before, report changed ones (their old chunks stay), rebuild the live set from its files.

        Raises:
            ConfigError: no archive or live set is configured, or the archive folder does not exist.
            IndexBusyError: another process is writing and did not finish within the lock timeout.
        """
        from rag.index.sync import sync

        return sync(self.index, self.settings, progress=progress)

    def reindex(self, sources: Sequence[str] | None = None, *, progress: ProgressCallback | None = None) -> IndexReport:
        """Re-read sources (all when None) from their recorded paths; unchanged ones cost nothing."""
        return self.index.reindex(sources, progress=progress)

    def remove_sources(self, sources: Sequence[str], *, confirmed_by: str = "") -> int:
        """Delete sources from the manifest, Chroma and BM25. Returns the number of chunks removed.

        Args:
            sources: the source names.
            confirmed_by: how the person confirmed it (``"with --yes"``, ``"in the dashboard"``); the version
                history records it with the deletion.

        Raises:
            SourceNotFoundError: a named source is not indexed (nothing is removed then).
        """
        return self.index.remove_sources(sources, confirmed_by=confirmed_by)

    # ---- inspection --------------------------------------------------------------------------------------

    def stats(self) -> IndexStats:
        return self.index.stats()

    def resolve_source(self, typed: str) -> str:
        """The stored source name for what a person typed (see ``rag.index.source_names`` for the rules).

        Args:
            typed: the name as ``stats`` prints it, the path that was indexed (absolute or relative to the
                current folder), or a file name that only one indexed source has.

        Raises:
            AmbiguousSourceError: a file name several sources share (the message lists them).
            SourceNotFoundError: nothing indexed matches.
        """
        from rag.index.source_names import resolve_source

        return resolve_source(typed, self.index.manifest.all_sources())

    def resolve_sources(self, typed: Sequence[str]) -> list[str]:
        """``resolve_source`` for several names, in order and without duplicates."""
        from rag.index.source_names import resolve_sources

        return resolve_sources(typed, self.index.manifest.all_sources())

    def sources(self) -> list[str]:
        return self.index.catalog.sources()

    def chunk_length_stats(self, bins: int = 20) -> ChunkLengthStats:
        """Characters per chunk over the whole index, with a histogram of at most ``bins`` bars."""
        return self.index.catalog.length_stats(bins)

    @staticmethod
    def supported_extensions() -> tuple[str, ...]:
        """The file name endings the engine reads (``.pdf``, ``.docx`` ...), for upload widgets."""
        from rag.ingest.parsing.kinds import SUPPORTED_EXTENSIONS

        return SUPPORTED_EXTENSIONS

    @staticmethod
    def shows_pages(source: str) -> bool:
        """Whether ``render_page`` can show the pages of ``source`` (a PDF or a scanned image)."""
        from rag.ingest.parsing.kinds import PAGE_IMAGE_EXTENSIONS

        return source.lower().endswith(PAGE_IMAGE_EXTENSIONS)

    @staticmethod
    def chat_provenance(chunk: Chunk, quote: str = "") -> str:
        """For a chunk of a chat log, who said it and when (the speaker of ``quote`` if given); "" otherwise."""
        from rag.ingest.parsing.dialogue import who_and_when

        return who_and_when(chunk, quote)

    def chunks_of(self, source: str) -> list[Chunk]:
        chunks = self.index.catalog.chunks_of(source)
        if not chunks and source not in self.sources():
            raise SourceNotFoundError(f"No indexed source named {source!r}. Run `python -m rag stats` to list them.")
        return chunks

    def neighbours(self, chunk_id: str, window: int = 1, *, base: str | None = None) -> list[Chunk]:
        """The chunk and up to ``window`` chunks before and after it in its source, in order.

        Args:
            base: the knowledge base the chunk is in (a hit's or citation's ``base``); this one when None.
        """
        if base is not None and base != self.base_name:
            return self.base(base).neighbours(chunk_id, window)
        return self.index.catalog.neighbours(chunk_id, window)

    def version_history(self, limit: int = 50) -> list[VersionEntry]:
        return self.index.manifest.history(limit)

    def check_consistency(self) -> ConsistencyReport:
        """Whether the manifest, Chroma and BM25 hold the same chunk ids (read-only)."""
        return self.index.check_consistency()

    def repair_consistency(self) -> ConsistencyReport:
        """Bring Chroma and BM25 back in line with the manifest; returns the consistency afterwards."""
        return self.index.repair()

    def embedding_mismatch(self) -> str:
        """What ``ModelMismatchError`` would say about the configured embedding, or "" when the index matches it."""
        if not self.index.manifest.get_meta("embedding_model"):
            return ""
        try:
            self.index.check_model(self.embedder)
        except ModelMismatchError as err:
            return str(err)
        return ""

    def reembed(self, *, progress: ProgressCallback | None = None) -> int:
        """Re-embed every stored chunk with the configured embedding (model + back end + precision), after a
        switch that ``ModelMismatchError`` refused; returns how many chunks were embedded."""
        from rag.index.reembedding import reembed_index

        return reembed_index(self.index, progress)

    # ---- search ------------------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        top_k: int | None = None,
        semantic_weight: float | None = None,
        filters: SearchFilters | None = None,
        rerank: bool | None = None,
        contextual: bool = False,
        bases: Sequence[str] = (),
    ) -> list[Hit]:
        """Hybrid search (dense + BM25 fused, optional cross-encoder) with per-stage scores on each hit.

        Args:
            bases: the knowledge bases to search (this one when empty); several are searched each on its own
                and merged (``rag.retrieval.across_bases``), every hit naming its base.

        The search's stage times, hit count and top score are recorded for monitoring (never the query).
        """
        options: dict[str, Any] = dict(
            top_k=top_k, semantic_weight=semantic_weight, filters=filters, rerank=rerank, contextual=contextual
        )
        started = time.perf_counter()
        hits = self._search(query, bases, options)
        self._record("search", hits, self._search_stages(), started)
        return hits

    def _search(self, query: str, bases: Sequence[str], options: dict[str, Any]) -> list[Hit]:
        """``search`` without the monitoring record (an answer records its own)."""
        if bases and list(dict.fromkeys(bases)) != [self.base_name]:
            return self._search_bases(query, list(dict.fromkeys(bases)), options)
        hits = self.retriever.search(query, **options)
        return hits if self.base_name == DEFAULT_BASE else [replace(h, base=self.base_name) for h in hits]

    def similar(self, text: str, *, top_k: int | None = None, mode: str = "") -> list[SimilarRecord]:
        """The example-library records nearest ``text``, each once, with score and shown fields (few-shot prompts).

        Args:
            text: the record text to match (e.g. a position's features).
            top_k: how many records (settings' ``top_k`` by default).
            mode: ``passage``, ``query`` or ``hybrid`` (see ``rag.retrieval.similar``); "" for the measured best.

        Raises:
            ValueError: empty text, ``top_k`` < 1 or an unknown mode.
            EmptyIndexError: nothing is indexed.
        """
        from rag.retrieval.similar import DEFAULT_SIMILAR_MODE, similar_records

        chosen = mode or DEFAULT_SIMILAR_MODE
        return similar_records(self.index, self.retriever, self.settings, text, top_k=top_k, mode=chosen)  # type: ignore[arg-type]

    @cached_property
    def retriever(self) -> HybridRetriever:
        from rag.retrieval.hybrid import HybridRetriever

        # the question's vector, embedded once for its search and its evidence (``sentence_relevance``)
        return HybridRetriever(
            self.index, self.settings, query_vector=lambda query: self._question_time_vectors.query(query)
        )

    def evaluate(
        self,
        path: str | Path,
        *,
        split: str = "test",
        modes: Sequence[SearchMode] = ("hybrid",),
        limit: int | None = None,
    ) -> RetrievalEvaluation:
        """Retrieval metrics on a BEIR folder or a golden QA file (see ``rag.evaluation.retrieval``)."""
        from rag.evaluation.retrieval import evaluate_path

        with self.query_log.paused():  # an evaluation's questions are not people's: monitoring leaves them out
            return evaluate_path(
                self,
                path,
                settings=self.settings,
                make_service=lambda settings: RagService(settings, embedder=self.embedder),
                split=split,
                modes=list(modes),
                limit=limit,
            )

    def evaluate_answers(
        self, path: str | Path, *, limit: int | None = None, progress: Callable[[str], None] | None = None
    ) -> AnswerEvaluation:
        """Answer a golden QA file's questions with the current index and score them (``rag.evaluation.answers``)."""
        from rag.evaluation.answers import evaluate_answers

        with self.query_log.paused():
            return evaluate_answers(self, path, limit=limit, progress=progress)

    # ---- monitoring and backups --------------------------------------------------------------------------

    @cached_property
    def query_log(self) -> QueryLog:
        """The monitoring log, ``<storage>/monitoring.sqlite3`` (pages use ``monitoring_summary``)."""
        from rag.monitoring.query_log import FILE_NAME, QueryLog

        return QueryLog(self.settings.storage / FILE_NAME, self.settings.monitoring_keep_days)

    def monitoring_summary(self, *, days: float = 7.0) -> MonitoringSummary:
        """Searches and answers of the last ``days``: p50/p95 per stage, hit and no-basis ratios, questions by hour.

        Raises:
            MonitoringError: the monitoring file exists but cannot be read.
        """
        from rag.monitoring.recording import read_summary

        return read_summary(self.query_log, days=days)

    def _search_stages(self) -> StageTimings:
        """The stages this thread's last search ran, in milliseconds (a stage that did not run is left out)."""
        from rag.monitoring.recording import search_stages

        return search_stages(self.retriever.last_times)

    def _record(
        self, kind: QueryKind, hits: Sequence[Hit], stages: StageTimings, started: float, answer: Answer | None = None
    ) -> None:
        from rag.monitoring.recording import record_query

        record_query(self.query_log, self.settings, kind, hits, stages, started, answer)
