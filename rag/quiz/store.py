"""Quiz sets on disk: one JSON file a quiz, written atomically (temp file + ``os.replace``).

Every read-modify-write (saving, recording a score) holds a lock shared by all ``QuizStore`` objects on the same
directory, so threads of the one Streamlit process never lose each other's updates or see half a file.
"""

from __future__ import annotations

import builtins
import logging
import os
import re
import tempfile
import threading
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from rag.errors import QuizError
from rag.quiz.models import Quiz, ScoreRecord
from rag.records import Citation, Judgement, QuizSummary

__all__ = ["Judgement", "QuizNotFoundError", "QuizStore", "QuizSummary"]

log = logging.getLogger(__name__)

_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_LOCKS: dict[Path, threading.RLock] = {}
_LOCKS_GUARD = threading.Lock()


class QuizNotFoundError(QuizError):
    """No saved quiz (or no item) has the given id."""


class QuizStore:
    """Saved quiz sets under ``directory`` (created on first use).

    Args:
        directory: where ``<quiz id>.json`` files live.
    """

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)
        key = self.directory.resolve()
        with _LOCKS_GUARD:
            self._lock = _LOCKS.setdefault(key, threading.RLock())

    def save(self, quiz: Quiz) -> Quiz:
        """Write (create or replace) a quiz; returns it."""
        with self._lock:
            self._write(quiz)
        return quiz

    create = save

    def list(self) -> builtins.list[QuizSummary]:
        """Every saved quiz, newest first (unreadable files are skipped and logged)."""
        summaries: builtins.list[QuizSummary] = []
        for path in sorted(self.directory.glob("*.json")) if self.directory.is_dir() else []:
            try:
                quiz = Quiz.model_validate_json(path.read_text(encoding="utf-8"))
            except (OSError, ValidationError) as err:
                log.warning("Skipping unreadable quiz file %s: %s", path, err)
                continue
            summaries.append(
                QuizSummary(quiz.id, quiz.source, quiz.level, len(quiz.items), quiz.created_at, quiz.best_score)
            )
        return sorted(summaries, key=lambda s: s.created_at, reverse=True)

    def get(self, quiz_id: str) -> Quiz:
        """The saved quiz.

        Raises:
            ValueError: the id has characters other than letters, digits, ``_`` and ``-``.
            QuizNotFoundError: no quiz has this id.
            QuizError: the file exists but cannot be read.
        """
        path = self._path(quiz_id)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError as err:
            raise QuizNotFoundError(f"No saved quiz {quiz_id!r}; the quiz list shows the saved ones.") from err
        except OSError as err:
            raise QuizError(f"Cannot read quiz file {path}: {err}. Check the storage folder's permissions.") from err
        try:
            return Quiz.model_validate_json(text)
        except ValidationError as err:
            raise QuizError(f"Quiz file {path} is damaged ({err.error_count()} errors); delete it.") from err

    def delete(self, quiz_id: str) -> None:
        """Remove a saved quiz.

        Raises:
            QuizNotFoundError: no quiz has this id.
        """
        with self._lock:
            try:
                self._path(quiz_id).unlink()
            except FileNotFoundError as err:
                raise QuizNotFoundError(f"No saved quiz {quiz_id!r} to delete.") from err

    def export(self, quiz_id: str) -> str:
        """The quiz as pretty-printed JSON text (for download)."""
        return self.get(quiz_id).model_dump_json(indent=2)

    def judge(self, quiz_id: str, item_id: str, answer: bool) -> Judgement:
        """Check an answer to one item.

        Raises:
            QuizNotFoundError: no such quiz or item.
        """
        quiz = self.get(quiz_id)
        for item in quiz.items:
            if item.id == item_id:
                citations = tuple(
                    Citation(n, c.source, c.page, c.quote, c.chunk_id) for n, c in enumerate(item.citations, 1)
                )
                return Judgement(answer == item.answer_bool, item.explanation, citations)
        known = ", ".join(i.id for i in quiz.items)
        raise QuizNotFoundError(f"Quiz {quiz_id!r} has no item {item_id!r}; its items are: {known}.")

    def record_score(self, quiz_id: str, correct: int, total: int) -> ScoreRecord:
        """Append an attempt's score to the quiz's history.

        Raises:
            ValueError: ``total`` < 1 or ``correct`` outside 0..total.
            QuizNotFoundError: no such quiz.
        """
        if total < 1 or not 0 <= correct <= total:
            raise ValueError(f"correct={correct}, total={total}; allowed: total >= 1 and 0 <= correct <= total")
        record = ScoreRecord(correct=correct, total=total, at=datetime.now(UTC).isoformat(timespec="seconds"))
        with self._lock:
            quiz = self.get(quiz_id)
            self._write(quiz.model_copy(update={"scores": [*quiz.scores, record]}))
        return record

    def scores(self, quiz_id: str) -> builtins.list[ScoreRecord]:
        """The quiz's score history, oldest first."""
        return list(self.get(quiz_id).scores)

    def _path(self, quiz_id: str) -> Path:
        if not _ID.match(quiz_id):
            raise ValueError(f"quiz id {quiz_id!r}; allowed: 1-64 letters, digits, '_' or '-'")
        return self.directory / f"{quiz_id}.json"

    def _write(self, quiz: Quiz) -> None:
        path = self._path(quiz.id)
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=f".{quiz.id}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(quiz.model_dump_json(indent=2))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except OSError as err:
            Path(tmp).unlink(missing_ok=True)
            raise QuizError(f"Cannot save quiz {quiz.id} to {path}: {err}. Check free space and permissions.") from err
