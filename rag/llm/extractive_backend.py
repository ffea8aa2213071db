"""The backend of last resort: no LLM at all.

It is always "available" so the app always starts, but it cannot write prose: ``stream_chat`` and ``chat``
raise ``LLMUnavailableError`` with ``NO_LLM_MESSAGE``. The answering code checks ``name == "extractive"``
(or catches the error) and answers with the cited passages alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from rag.errors import LLMUnavailableError
from rag.llm.base import BackendStatus, Message

NO_LLM_MESSAGE = "no LLM configured: answers show the cited passages only"


class ExtractiveBackend:
    """Stands in for an LLM when none can run; answers are the retrieved passages themselves."""

    name = "extractive"
    model = ""

    def status(self) -> BackendStatus:
        """Always available; the detail tells how to get generated answers."""
        return BackendStatus(
            self.name,
            True,
            "",
            "No LLM: answers show the cited passages only. Start Ollama (`ollama serve`, `ollama pull MODEL`) "
            "or install the embedded model to get written answers.",
        )

    def stream_chat(self, messages: Sequence[Message], *, temperature: float = 0.2) -> Iterator[str]:
        """Raise at once: there is nothing to generate with.

        Raises:
            LLMUnavailableError: always, with ``NO_LLM_MESSAGE``.
        """
        raise LLMUnavailableError(NO_LLM_MESSAGE)
        yield ""  # pragma: no cover - makes this a generator, so it fails on first next() like the others

    def chat(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        temperature: float = 0.2,
        max_tokens: int | None = None,
    ) -> str:
        """Raise at once: there is nothing to generate with.

        Raises:
            LLMUnavailableError: always, with ``NO_LLM_MESSAGE``.
        """
        raise LLMUnavailableError(NO_LLM_MESSAGE)
