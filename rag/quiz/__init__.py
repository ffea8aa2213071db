"""True/false quizzes made from one indexed source, with verified citations (see ``generation``)."""

from rag.quiz.generation import QuizShortfallError, generate_quiz
from rag.quiz.models import CitationRef, Quiz, QuizItem
from rag.quiz.pool import ChunkCatalog, ChunkPool
from rag.quiz.store import Judgement, QuizStore, QuizSummary

__all__ = [
    "ChunkCatalog",
    "ChunkPool",
    "CitationRef",
    "Judgement",
    "Quiz",
    "QuizItem",
    "QuizShortfallError",
    "QuizStore",
    "QuizSummary",
    "generate_quiz",
]
