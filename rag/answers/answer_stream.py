"""The model's streamed answer: its visible pieces, without the ``FOLLOWUPS:`` section, stopped when it loops.

A small model sometimes falls into a loop and writes the same line until its token cap ("- - - - …", one licence
header forty times): a minute of decoding the reader waits through, then junk in the answer. The stream stops
reading once the reply's tail repeats itself (``loop_start``) and keeps the reply up to the loop's first unit.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence

from rag.answers.citations import Passage
from rag.answers.prompts import FOLLOWUPS_MARKER, answer_messages
from rag.errors import LLMError
from rag.llm.base import LLMBackend

HOLD_BACK = 24
"""Characters kept unshown while streaming, so a "FOLLOWUPS:" marker can be cut off whole."""
LOOP_MIN_REPEATS = 4
"""Times a unit must follow itself at the reply's end to count as a loop (a list of three like items is no loop)."""
LOOP_MIN_CHARS = 120
"""Characters the repeats must span at least: "- - - -" is a loop only once it runs on, not as a short rule."""
LOOP_MAX_UNIT = 300
"""Longest repeating unit looked for (a paragraph of about two sentences)."""

_WORDLESS_TAIL = re.compile(r"(?:\n[^\w\n]*)+$")
"""Trailing lines without a letter or digit ("- ", "---")."""


def loop_start(text: str) -> int | None:
    """Where the loop at the end of ``text`` begins, its first unit kept (None when the end does not repeat).

    A loop: one unit (1..``LOOP_MAX_UNIT`` characters) written ``LOOP_MIN_REPEATS`` times or more in a row at the
    very end, the repeats spanning ``LOOP_MIN_CHARS`` or more. The shortest such unit is taken.
    """
    for size in range(1, min(LOOP_MAX_UNIT, len(text) // LOOP_MIN_REPEATS) + 1):
        unit = text[-size:]
        repeats = 1
        while text.endswith(unit, 0, len(text) - repeats * size):
            repeats += 1
        if repeats >= LOOP_MIN_REPEATS and repeats * size >= LOOP_MIN_CHARS:
            return len(text) - (repeats - 1) * size
    return None


class AnswerStream:
    """The visible pieces of a streamed answer.

    An iterator (``st.write_stream`` consumes it) of the model's answer text without its ``FOLLOWUPS:`` section.
    A backend failure ends the stream instead of raising; ``error`` then holds it. ``raw_text`` is the whole reply
    (up to the first unit of a loop, when the model looped: ``looped`` is then True).
    """

    def __init__(self, backend: LLMBackend, question: str, passages: Sequence[Passage]) -> None:
        self.question = question
        self.raw_text = ""
        self.visible_text = ""
        self.error: LLMError | None = None
        self.looped = False
        self.done = False
        self.first_piece_ms: float | None = None  # from the request to the first text shown
        self.elapsed_ms: float | None = None  # from the request to the reply's end
        self._backend = backend
        self._passages = list(passages)
        self._pieces: Iterator[str] | None = None

    def __iter__(self) -> AnswerStream:
        return self

    def __next__(self) -> str:
        if self._pieces is None:
            self._pieces = self._generate()
        return next(self._pieces)

    def consume(self) -> AnswerStream:
        """Read the whole stream (for callers that do not show it piece by piece)."""
        for _ in self:
            pass
        return self

    def _generate(self) -> Iterator[str]:
        started = time.perf_counter()
        for piece in self._pieces_of_reply():
            if self.first_piece_ms is None:
                self.first_piece_ms = (time.perf_counter() - started) * 1e3
            yield piece
        self.elapsed_ms = (time.perf_counter() - started) * 1e3

    def _pieces_of_reply(self) -> Iterator[str]:
        shown = 0
        cut: int | None = None
        reply = self._backend.stream_chat(answer_messages(self.question, self._passages))
        try:
            for piece in reply:
                self.raw_text += piece
                if (start := loop_start(self.raw_text)) is not None:
                    # the loop's first unit stays, unless it is only markup ("- ", "---"): no words, no value
                    self.raw_text, self.looped = _WORDLESS_TAIL.sub("", self.raw_text[:start]).rstrip(), True
                    break
                if cut is not None:
                    continue
                match = FOLLOWUPS_MARKER.search(self.raw_text, max(shown - HOLD_BACK, 0))
                cut = match.start() if match else None
                end = cut if cut is not None else max(len(self.raw_text) - HOLD_BACK, shown)
                if end > shown:
                    yield self.raw_text[shown:end]
                    shown = end
        except LLMError as err:
            self.error = err
        finally:
            close = getattr(reply, "close", None)
            if callable(close):
                close()  # stops decoding (a generator's backend lets go of the model here)
        end = cut if cut is not None else len(self.raw_text)
        if end > shown:
            yield self.raw_text[shown:end]
        self.visible_text = self.raw_text[:end]
        self.done = True
