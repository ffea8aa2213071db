"""The facade's quizzes: generate a true/false quiz from one source, keep quiz sets, judge answers, keep scores."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cached_property
from typing import TYPE_CHECKING

from rag.records import Chunk, Judgement, QuizLevel, QuizSummary
from rag.service.part import FacadePart

if TYPE_CHECKING:
    from rag.llm.base import LLMBackend
    from rag.quiz.models import Quiz, ScoreRecord
    from rag.quiz.pool import ChunkPool
    from rag.quiz.store import QuizStore


class QuizFacade(FacadePart):
    """``RagService``'s quiz methods (the pages use these, never the store)."""

    if TYPE_CHECKING:  # provided by RagService

        @property
        def llm(self) -> LLMBackend: ...

        def chunks_of(self, source: str) -> list[Chunk]: ...

    @cached_property
    def quizzes(self) -> QuizStore:
        """The quiz-set store under ``<storage>/quizzes`` (pages use the quiz methods below)."""
        from rag.quiz.store import QuizStore

        return QuizStore(self.settings.storage / "quizzes")

    @cached_property
    def quiz_pool(self) -> ChunkPool:
        """Per-source chunk pools for quiz sampling, kept between quizzes and dropped when the index changes."""
        from rag.quiz.pool import ChunkPool

        return ChunkPool(self.index.catalog)

    def quiz_sets(self) -> list[QuizSummary]:
        """Every saved quiz set, newest first."""
        return self.quizzes.list()

    def quiz(self, quiz_id: str) -> Quiz:
        """A saved quiz set. Raises ``QuizNotFoundError`` (a ``QuizError``) when there is none by that id."""
        return self.quizzes.get(quiz_id)

    def judge_answer(self, quiz_id: str, item_id: str, answer: bool) -> Judgement:
        """Whether ``answer`` (True: the statement is true) is right for one item, with why and the citations."""
        judgement = self.quizzes.judge(quiz_id, item_id, answer)
        cited = tuple(replace(c, base=self.base_name) for c in judgement.citations)  # the quiz's base is this one
        return replace(judgement, citations=cited)

    def record_quiz_score(self, quiz_id: str, correct: int, total: int) -> ScoreRecord:
        """Add a finished attempt's score to the quiz set's history."""
        return self.quizzes.record_score(quiz_id, correct, total)

    def quiz_scores(self, quiz_id: str) -> list[ScoreRecord]:
        """The quiz set's scores, oldest first."""
        return self.quizzes.scores(quiz_id)

    def export_quiz(self, quiz_id: str) -> str:
        """The quiz set as JSON text, for download."""
        return self.quizzes.export(quiz_id)

    def delete_quiz(self, quiz_id: str) -> None:
        """Delete a saved quiz set."""
        self.quizzes.delete(quiz_id)

    def generate_quiz(
        self,
        source: str,
        *,
        count: int = 5,
        level: QuizLevel = "beginner",
        progress: Callable[[str], None] | None = None,
    ) -> Quiz:
        """Generate a true/false quiz from one source and save it; returns the saved quiz.

        Raises:
            SourceNotFoundError: the source is not indexed.
            QuizError: the count could not be met (the message lists the shortfall and why items were rejected).
        """
        from rag.quiz.generation import generate_quiz

        self.chunks_of(source)  # raises SourceNotFoundError early with a clear message
        quiz = generate_quiz(
            self.llm, self.quiz_pool, source, count=count, level=level, settings=self.settings, progress=progress
        )
        return self.quizzes.save(quiz)
