"""The Ollama backend, through the official ``ollama`` client.

Every request carries a timeout that bounds the whole request, streamed reply included (the client's default is
none, and httpx's own timeout is per read, so a stuck or trickling server would hang the app), the configured
``keep_alive`` (how long Ollama keeps the model loaded between questions), and its failures are
turned into ``LLMUnavailableError`` / ``LLMOutputError`` messages that name the host, the model and the fix.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import httpx
import ollama
import pydantic

from rag.errors import ConfigError, LLMOutputError, LLMUnavailableError
from rag.llm.base import BackendStatus, Message
from rag.llm.deadline import WholeRequestTimeout
from rag.settings import Settings

PROBE_TIMEOUT_S = 1.5
"""Upper bound for ``status()``: the sidebar and ``auto`` selection must not wait on a dead host."""


class OllamaBackend:
    """Chat with one model on one Ollama server.

    Args:
        host: the server, e.g. ``http://127.0.0.1:11434`` (``ollama``'s host parsing: ``:11434`` works too).
        model: the model tag, e.g. ``qwen2.5:7b-instruct``; ``llama3`` matches ``llama3:latest``.
        keep_alive: how long Ollama keeps the model in memory after a request (``"10m"``, ``"-1"``, ``"0"``).
        timeout_s: longest a request may take, from connecting to the last streamed piece.
        probe_timeout_s: timeout of ``status()`` / ``list_models()``.

    Raises:
        ConfigError: ``model`` is empty or a timeout is not positive.
    """

    name = "ollama"

    def __init__(
        self,
        host: str,
        model: str,
        *,
        keep_alive: str = "10m",
        timeout_s: float = 120.0,
        probe_timeout_s: float = PROBE_TIMEOUT_S,
    ) -> None:
        if not model.strip():
            raise ConfigError("No Ollama model is configured: set RAG_OLLAMA_MODEL (e.g. qwen2.5:7b-instruct).")
        if timeout_s <= 0 or probe_timeout_s <= 0:
            raise ConfigError(f"LLM timeouts must be positive, got {timeout_s} and {probe_timeout_s}.")
        self.host = host
        self.model = model.strip()
        self.keep_alive = _keep_alive(keep_alive)
        self.timeout_s = timeout_s
        connect = min(timeout_s, 5.0)
        self._client = ollama.Client(
            host=host or None, timeout=httpx.Timeout(timeout_s, connect=connect), transport=WholeRequestTimeout()
        )
        self._probe = ollama.Client(
            host=host or None, timeout=httpx.Timeout(probe_timeout_s), transport=WholeRequestTimeout()
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> OllamaBackend:
        """Build from ``ollama_host``, ``ollama_model``, ``ollama_keep_alive`` and ``llm_timeout_s``."""
        return cls(
            settings.ollama_host,
            settings.ollama_model,
            keep_alive=settings.ollama_keep_alive,
            timeout_s=settings.llm_timeout_s,
        )

    def list_models(self) -> list[str]:
        """The model tags the server has pulled, sorted.

        Raises:
            LLMUnavailableError: the server cannot be reached in ``probe_timeout_s``.
        """
        try:
            listing = self._probe.list()
        except (ConnectionError, httpx.TransportError, ollama.ResponseError) as err:
            raise self._translate(err, "list models") from err
        return sorted(entry.model for entry in listing.models if entry.model)

    def status(self) -> BackendStatus:
        """Probe ``/api/tags`` (at most ``probe_timeout_s``): available when the configured model is pulled."""
        try:
            models = self.list_models()
        except LLMUnavailableError as err:
            return BackendStatus(self.name, False, self.model, str(err))
        if not _has_model(models, self.model):
            return BackendStatus(
                self.name,
                False,
                self.model,
                f"Ollama at {self.host} is running but has no model '{self.model}': run `ollama pull {self.model}`"
                f" (pulled: {', '.join(models) or 'none'}).",
            )
        return BackendStatus(self.name, True, self.model, f"Ollama at {self.host}")

    def stream_chat(self, messages: Sequence[Message], *, temperature: float = 0.2) -> Iterator[str]:
        """Yield the reply's text pieces as Ollama streams them.

        Raises:
            LLMUnavailableError: server down, model missing, timeout, server error.
            LLMOutputError: the server sent something that is not an Ollama chat reply.
        """
        try:
            stream = self._client.chat(
                model=self.model,
                messages=_wire(messages),
                stream=True,
                options={"temperature": temperature},
                keep_alive=self.keep_alive,
            )
            done = False
            for part in stream:
                done = done or bool(part.done)
                if part.message.content:
                    yield part.message.content
        except (ConnectionError, httpx.TransportError, ollama.ResponseError) as err:
            raise self._translate(err, "chat") from err
        except (pydantic.ValidationError, json.JSONDecodeError) as err:
            raise LLMOutputError(f"Ollama at {self.host} sent a malformed reply for {self.model}: {err}") from err
        if not done:
            raise LLMOutputError(
                f"Ollama at {self.host} ended the reply of {self.model} before it was complete; ask again, "
                "and check the server log if it keeps happening."
            )

    def chat(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        temperature: float = 0.2,
        max_tokens: int | None = None,
    ) -> str:
        """Return the whole reply; with ``schema`` Ollama constrains it to that JSON schema (``format=``).

        Raises:
            LLMUnavailableError: server down, model missing, timeout, server error.
            LLMOutputError: the server sent something that is not an Ollama chat reply.
        """
        try:
            reply = self._client.chat(
                model=self.model,
                messages=_wire(messages),
                stream=False,
                format=schema,
                options={"temperature": temperature} | ({"num_predict": max_tokens} if max_tokens else {}),
                keep_alive=self.keep_alive,
            )
        except (ConnectionError, httpx.TransportError, ollama.ResponseError) as err:
            raise self._translate(err, "chat") from err
        except (pydantic.ValidationError, json.JSONDecodeError) as err:
            raise LLMOutputError(f"Ollama at {self.host} sent a malformed reply for {self.model}: {err}") from err
        return reply.message.content or ""

    def _translate(self, err: Exception, action: str) -> LLMUnavailableError:
        """One message per failure kind, each naming host, model and what to do."""
        if isinstance(err, ollama.ResponseError):
            if err.status_code == 404 or "not found" in str(err.error).lower():
                return LLMUnavailableError(
                    f"Ollama at {self.host} has no model '{self.model}': run `ollama pull {self.model}`, "
                    f"or set RAG_OLLAMA_MODEL to a model it has."
                )
            return LLMUnavailableError(
                f"Ollama at {self.host} failed to {action} with model '{self.model}' "
                f"(HTTP {err.status_code}: {err.error}). Check the server log (`ollama serve` output); "
                f"a model too large for memory fails this way."
            )
        if isinstance(err, httpx.TimeoutException):
            return LLMUnavailableError(
                f"Ollama at {self.host} did not answer within {self.timeout_s:g} s ({action}, model '{self.model}'; "
                f"the limit covers the whole reply). Raise RAG_LLM_TIMEOUT_S, or use a smaller model; the first "
                f"request also loads the model."
            )
        if isinstance(err, httpx.RemoteProtocolError):
            return LLMUnavailableError(
                f"Ollama at {self.host} broke off the reply ({action}, model '{self.model}': {err}). The server may "
                f"have crashed or restarted: check its log (`ollama serve` output) and ask again."
            )
        return LLMUnavailableError(
            f"Ollama is not reachable at {self.host} (model '{self.model}'): start it with `ollama serve`, "
            f"or set OLLAMA_HOST to where it runs, or choose another LLM backend. ({type(err).__name__}: {err})"
        )


def _wire(messages: Sequence[Message]) -> list[dict[str, str]]:
    return [{"role": message.role, "content": message.content} for message in messages]


def _keep_alive(value: str) -> str | float:
    # Ollama reads a JSON number as seconds but a string only as a Go duration ("10m"), so "-1" must be a number.
    try:
        return float(value)
    except ValueError:
        return value


def _has_model(pulled: Sequence[str], wanted: str) -> bool:
    return wanted in pulled or (":" not in wanted and f"{wanted}:latest" in pulled)
