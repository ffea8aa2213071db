"""The facade's answers: the LLM backend in use, an answer's draft (hits, basis, passages, evidence) and the
finished answer, the embedding model's reading of evidence sentences, and a cited page rendered with its quote."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, Self

from rag.records import Answer, BackendReport, Hit, QueryKind, SearchFilters
from rag.service.part import FacadePart

if TYPE_CHECKING:
    from rag.answers.draft import AnswerDraft
    from rag.llm.base import LLMBackend
    from rag.models.embedding import Embedder
    from rag.models.vector_memo import VectorMemo
    from rag.monitoring.recording import StageTimings


class AnswerFacade(FacadePart):
    """``RagService``'s answer methods (the QA page, ``ask`` and the answer evaluation use these)."""

    if TYPE_CHECKING:  # provided by RagService

        @property
        def embedder(self) -> Embedder: ...

        _root: Self
        _lock: threading.RLock
        _llm: LLMBackend | None

        def base(self, name: str = ...) -> Self: ...

        def _search(self, query: str, bases: Sequence[str], options: dict[str, Any]) -> list[Hit]: ...

        def _search_stages(self) -> StageTimings: ...

        def _record(
            self,
            kind: QueryKind,
            hits: Sequence[Hit],
            stages: StageTimings,
            started: float,
            answer: Answer | None = None,
        ) -> None: ...

    @property
    def llm(self) -> LLMBackend:
        with self._lock:
            if self._llm is None:
                from rag.llm.selection import select_backend

                self._llm = self._root.llm if self._root is not self else select_backend(self.settings)
            return self._llm

    def llm_backends(self, *, refresh: bool = False) -> BackendReport:
        """Every backend's reachability and the one answers use, without loading a model (bounded probes).

        Args:
            refresh: forget the backend in use, so the next answer selects one again (the sidebar's "re-check").

        Returns:
            The statuses, and as ``live`` the backend in use, or the one the settings pick (``auto``: the first
            available) when none has been used yet.
        """
        from rag.llm.selection import backend_statuses, live_backend_name

        with self._lock:
            if refresh:
                self._llm = None
            in_use = self._llm
        statuses = backend_statuses(self.settings)
        live = in_use.name if in_use is not None else live_backend_name(self.settings, statuses)
        return BackendReport(tuple(statuses), self.settings.llm_backend, live)

    def prepare_answer(
        self,
        question: str,
        *,
        filters: SearchFilters | None = None,
        history: Sequence[tuple[str, str]] = (),
        bases: Sequence[str] = (),
    ) -> AnswerDraft:
        """Search for ``question`` and get its answer ready: hits, basis, passages and evidence, no LLM call yet.

        Args:
            question: what the user asked.
            filters: metadata filters for the search.
            history: earlier ``(question, answer)`` turns of the conversation, oldest first; a follow-up that leans
                on them ("それは何年？") is searched and answered as rewritten with the previous question.
            bases: the knowledge bases to answer from (this one when empty); citations name their base.

        Returns:
            The draft: show ``draft.evidence`` at once, stream ``draft.stream()``, then ``draft.finish()``.
        """
        from rag.answers.draft import AnswerDraft
        from rag.answers.followup import rewrite_followup

        if len(set(bases)) == 1 and bases[0] != self.base_name:
            return self.base(bases[0]).prepare_answer(question, filters=filters, history=history)
        started = time.perf_counter()
        query = rewrite_followup(question, history)
        hits = self._search(query, bases, dict(filters=filters, contextual=True))
        searched = self._search_stages()
        record = lambda answer, timings: self._record("answer", hits, searched + timings, started, answer)
        return AnswerDraft(
            self.llm, question, hits, self.settings, query=query, relevance=self.sentence_relevance, on_finish=record
        )

    def sentence_relevance(self, question: str, sentences: Sequence[str]) -> list[float]:
        """Cosine of each sentence to ``question`` by the embedding model (how the evidence is read by meaning);
        a sentence or question read before is not embedded again."""
        memo = self._question_time_vectors
        return [float(v) for v in memo.passages(list(sentences)) @ memo.query(question)]

    @cached_property
    def _question_time_vectors(self) -> VectorMemo:
        from rag.models.vector_memo import VectorMemo

        return VectorMemo(self.embedder)

    def ask(
        self,
        question: str,
        *,
        filters: SearchFilters | None = None,
        history: Sequence[tuple[str, str]] = (),
        bases: Sequence[str] = (),
    ) -> Answer:
        """Search, then answer from the hits with every claim checked (no LLM call when nothing is relevant)."""
        return self.prepare_answer(question, filters=filters, history=history, bases=bases).finish()

    def render_page(
        self, source: str, page: int, highlight: str = "", zoom: float = 1.5, *, base: str | None = None
    ) -> bytes:
        """PNG of a PDF source's page (or a scanned image's) with ``highlight`` (a verified quote) marked.

        Args:
            base: the knowledge base of the source (a citation's ``base``); this one when None.
        """
        from rag.answers.page_render import render_pdf_page

        if base is not None and base != self.base_name:
            return self.base(base).render_page(source, page, highlight, zoom)
        return render_pdf_page(self.index.manifest.path_of(source), page, highlight, zoom)
