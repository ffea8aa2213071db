"""The one interface every LLM backend implements.

Backends raise ``LLMUnavailableError`` (server down, model missing, timeout) with a message naming the host,
the model and the fix, and ``LLMOutputError`` when the reply is unusable.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from rag.records import BackendStatus

__all__ = ["BackendStatus", "LLMBackend", "Message", "Role"]

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    content: str


@runtime_checkable
class LLMBackend(Protocol):
    name: str
    model: str

    def status(self) -> BackendStatus:
        """Check reachability (cheap; never raises)."""
        ...

    def stream_chat(self, messages: Sequence[Message], *, temperature: float = 0.2) -> Iterator[str]:
        """Yield text pieces of the assistant's reply as they are generated."""
        ...

    def chat(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        temperature: float = 0.2,
        max_tokens: int | None = None,
    ) -> str:
        """Return the whole reply; with ``schema`` the backend constrains output to that JSON schema, and with
        ``max_tokens`` it stops after that many tokens (None: the backend's own cap)."""
        ...
