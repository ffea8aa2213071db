"""The quiz records the facade hands out besides ``rag.quiz.models``: the saved-quiz list and a judged answer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from rag.records.answers import Citation

QuizLevel = Literal["beginner", "intermediate", "advanced"]
QUIZ_LEVELS: tuple[QuizLevel, ...] = get_args(QuizLevel)
"""Quiz difficulty levels, easiest first."""


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
