"""A scripted ``LLMBackend`` for unit tests: replies come from a queue, every request is recorded.

It stands in for the only component that cannot run in unit tests (a chat model), behind the same Protocol.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from rag.llm.base import BackendStatus, Message

Reply = str | Exception


class ScriptedLLM:
    """Answers each ``chat``/``stream_chat`` call with the next scripted reply.

    Args:
        replies: texts to return in order; an Exception instance is raised instead of returned.
        name: the backend name the engine sees (``"extractive"`` makes the engine skip the LLM).
        default: the reply once the script is used up; None makes an extra call fail the test.
        piece_chars: size of the pieces ``stream_chat`` yields.
    """

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        name: str = "scripted",
        model: str = "scripted-1",
        default: Reply | None = None,
        piece_chars: int = 7,
    ) -> None:
        self.name = name
        self.model = model
        self._replies: deque[Reply] = deque(replies)
        self._default = default
        self._piece_chars = piece_chars
        self.calls: list[list[Message]] = []
        self.schemas: list[dict[str, Any] | None] = []
        self.max_tokens: list[int | None] = []

    @property
    def remaining(self) -> int:
        return len(self._replies)

    def status(self) -> BackendStatus:
        return BackendStatus(self.name, True, self.model, "scripted replies for tests")

    def _next(self, messages: Sequence[Message], schema: dict[str, Any] | None) -> str:
        self.calls.append(list(messages))
        self.schemas.append(schema)
        return self.respond(messages, schema)

    def respond(self, messages: Sequence[Message], schema: dict[str, Any] | None) -> str:
        """The reply to a recorded request: the next scripted one (a subclass may answer from the messages)."""
        if self._replies:
            reply = self._replies.popleft()
        elif self._default is not None:
            reply = self._default
        else:
            raise AssertionError(f"ScriptedLLM got call #{len(self.calls)} but its script is used up")
        if isinstance(reply, Exception):
            raise reply
        return reply

    def chat(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        temperature: float = 0.2,
        max_tokens: int | None = None,
    ) -> str:
        self.max_tokens.append(max_tokens)
        return self._next(messages, schema)

    def stream_chat(self, messages: Sequence[Message], *, temperature: float = 0.2) -> Iterator[str]:
        reply = self._next(messages, None)
        for start in range(0, len(reply), self._piece_chars):
            yield reply[start : start + self._piece_chars]
