"""Pydantic models of quiz sets and of the reply the generator asks the LLM for.

``GenerationReply.model_json_schema()`` goes to ``backend.chat(schema=...)``; ``model_validate_json`` checks the
reply. Quizzes are stored as ``Quiz.model_dump_json()``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, StrictBool

from rag.records import QuizLevel


class CitationRef(BaseModel):
    """Where a quiz item's basis is: a verbatim quote of one chunk."""

    source: str
    page: int | None = None
    quote: str
    chunk_id: str = ""


class QuizItem(BaseModel):
    """One true/false statement with its answer, explanation and citations."""

    id: str
    statement: str
    type: Literal["true_false"] = "true_false"
    answer_bool: bool
    explanation: str
    citations: list[CitationRef] = Field(min_length=1)


class ScoreRecord(BaseModel):
    """One finished attempt at a quiz."""

    correct: int = Field(ge=0)
    total: int = Field(ge=1)
    at: str


class Quiz(BaseModel):
    """A saved quiz set."""

    id: str
    source: str
    level: QuizLevel
    created_at: str
    backend: str = ""
    items: list[QuizItem]
    scores: list[ScoreRecord] = Field(default_factory=list)

    @property
    def best_score(self) -> float | None:
        """Best share of correct answers over all attempts (None before the first)."""
        return max((s.correct / s.total for s in self.scores), default=None)


class GeneratedItem(BaseModel):
    """One statement as the LLM writes it about a numbered passage (the verbatim quote is located in code)."""

    passage: int = Field(description="The number of the passage the statement is about.")
    statement: str = Field(description="A declarative statement (not a question) about the passage.")
    answer_bool: StrictBool = Field(
        default=True, description="true if the passage states it, false if the passage contradicts it."
    )
    type: Literal["true_false"] = "true_false"
    explanation: str = Field(default="", description="Optional: why, in one short sentence.")
    quote: str = Field(
        default="", description="Optional: the passage sentence it rests on (found in code when left out)."
    )


class GenerationReply(BaseModel):
    """The whole LLM reply: a list of candidate items."""

    items: list[GeneratedItem]
