"""A backend for any OpenAI-compatible server: llama.cpp's ``llama-server``, LM Studio, vLLM, Ollama's ``/v1``.

Plain ``httpx`` against ``/v1/chat/completions`` (streamed as server-sent events) and ``/v1/models``;
JSON-schema output through ``response_format={"type": "json_schema", ...}``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import httpx

from rag.errors import ConfigError, LLMOutputError, LLMUnavailableError
from rag.llm.base import BackendStatus, Message
from rag.llm.deadline import WholeRequestTimeout
from rag.settings import Settings

PROBE_TIMEOUT_S = 1.5


class OpenAICompatibleBackend:
    """Chat with one model behind an OpenAI-compatible base URL.

    Args:
        base_url: e.g. ``http://127.0.0.1:8080`` or ``http://127.0.0.1:1234/v1`` (``/v1`` is added if absent).
        model: the model id; empty means the first one ``/v1/models`` lists (llama-server serves just one).
        timeout_s: longest a request may take, from connecting to the last streamed piece.
        api_key: sent as a bearer token when not empty (local servers need none).
        probe_timeout_s: timeout of ``status()`` / ``list_models()``.

    Raises:
        ConfigError: ``base_url`` is empty or not http(s).
    """

    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str = "",
        *,
        timeout_s: float = 120.0,
        api_key: str = "",
        probe_timeout_s: float = PROBE_TIMEOUT_S,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ConfigError(
                f"RAG_OPENAI_BASE_URL={base_url!r} is not an http(s) URL; set it to the server, "
                "e.g. http://127.0.0.1:8080/v1 for llama-server."
            )
        root = base_url.rstrip("/")
        self.base_url = root if root.endswith("/v1") else f"{root}/v1"
        self.model = model.strip()
        self.timeout_s = timeout_s
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 5.0)),
            transport=WholeRequestTimeout(),  # the timeout bounds the whole request, not each read
        )
        self._probe_timeout = httpx.Timeout(probe_timeout_s)

    @classmethod
    def from_settings(cls, settings: Settings) -> OpenAICompatibleBackend:
        """Build from ``openai_base_url``, ``openai_model`` and ``llm_timeout_s``."""
        return cls(settings.openai_base_url, settings.openai_model, timeout_s=settings.llm_timeout_s)

    def list_models(self) -> list[str]:
        """The model ids the server offers.

        Raises:
            LLMUnavailableError: unreachable, or the reply is not a model list.
        """
        try:
            response = self._http.get("/models", timeout=self._probe_timeout)
            response.raise_for_status()
            return [str(entry["id"]) for entry in response.json()["data"]]
        except httpx.HTTPError as err:
            raise self._translate(err) from err
        except (ValueError, KeyError, TypeError) as err:
            raise LLMUnavailableError(
                f"{self.base_url}/models did not return an OpenAI model list; is RAG_OPENAI_BASE_URL right?"
            ) from err

    def status(self) -> BackendStatus:
        """Probe ``/v1/models`` (at most ``probe_timeout_s``): available when the model is served."""
        try:
            models = self.list_models()
        except LLMUnavailableError as err:
            return BackendStatus(self.name, False, self.model, str(err))
        if self.model and self.model not in models:
            return BackendStatus(
                self.name,
                False,
                self.model,
                f"{self.base_url} does not serve '{self.model}' (it serves: {', '.join(models) or 'nothing'}); "
                "set RAG_OPENAI_MODEL to one of those.",
            )
        if not models:
            return BackendStatus(self.name, False, "", f"{self.base_url} serves no model; load one in the server.")
        return BackendStatus(self.name, True, self.model or models[0], self.base_url)

    def stream_chat(self, messages: Sequence[Message], *, temperature: float = 0.2) -> Iterator[str]:
        """Yield the reply's text pieces from the server-sent event stream.

        Raises:
            LLMUnavailableError: unreachable, model unknown, timeout, server error.
            LLMOutputError: an event is not a chat-completion chunk.
        """
        body = self._body(messages, temperature, stream=True)
        try:
            with self._http.stream("POST", "/chat/completions", json=body) as response:
                if response.is_error:
                    response.read()
                    response.raise_for_status()
                for line in response.iter_lines():
                    if not line.startswith("data:"):
                        continue  # blank separators, ": keep-alive" comments, "event:" lines
                    payload = line[len("data:") :].strip()
                    if payload == "[DONE]":
                        return
                    if piece := _delta_text(payload, self.base_url):
                        yield piece
        except httpx.HTTPError as err:
            raise self._translate(err) from err
        raise LLMOutputError(
            f"{self.base_url} ended the reply before it was complete (no [DONE]); ask again, and check the "
            "server's log if it keeps happening."
        )

    def chat(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        temperature: float = 0.2,
        max_tokens: int | None = None,
    ) -> str:
        """Return the whole reply; with ``schema`` it is constrained by ``response_format`` json_schema.

        Raises:
            LLMUnavailableError: unreachable, model unknown, timeout, server error.
            LLMOutputError: the reply is not a chat completion.
        """
        body = self._body(messages, temperature, stream=False)
        if max_tokens:
            body["max_tokens"] = max_tokens
        if schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": str(schema.get("title", "reply")), "schema": schema, "strict": True},
            }
        try:
            response = self._http.post("/chat/completions", json=body)
            response.raise_for_status()
            content = response.json()["choices"][0]["message"]["content"]
        except httpx.HTTPError as err:
            raise self._translate(err) from err
        except (ValueError, KeyError, IndexError, TypeError) as err:
            raise LLMOutputError(f"{self.base_url} sent a reply that is not a chat completion: {err!r}") from err
        return str(content or "")

    def _body(self, messages: Sequence[Message], temperature: float, *, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "temperature": temperature,
            "stream": stream,
        }
        if self.model:
            body["model"] = self.model
        return body

    def _translate(self, err: httpx.HTTPError) -> LLMUnavailableError:
        model = f"'{self.model}'" if self.model else "(server default)"
        if isinstance(err, httpx.HTTPStatusError):
            code = err.response.status_code
            detail = _error_text(err.response)
            if code == 404:
                return LLMUnavailableError(
                    f"{self.base_url} has no model {model} or no chat endpoint (HTTP 404: {detail}); "
                    "check RAG_OPENAI_MODEL against the server's /v1/models and RAG_OPENAI_BASE_URL."
                )
            return LLMUnavailableError(
                f"{self.base_url} failed with model {model} (HTTP {code}: {detail}); check the server's log."
            )
        if isinstance(err, httpx.TimeoutException):
            return LLMUnavailableError(
                f"{self.base_url} did not answer within {self.timeout_s:g} s (model {model}; the limit covers the "
                "whole reply); raise RAG_LLM_TIMEOUT_S or use a smaller model."
            )
        if isinstance(err, httpx.RemoteProtocolError):
            return LLMUnavailableError(
                f"{self.base_url} broke off the reply (model {model}: {err}). The server may have crashed or "
                "restarted: check its log and ask again."
            )
        return LLMUnavailableError(
            f"No OpenAI-compatible server is reachable at {self.base_url} (model {model}): start it "
            "(e.g. `llama-server -m model.gguf --port 8080`) or fix RAG_OPENAI_BASE_URL. "
            f"({type(err).__name__}: {err})"
        )


def _delta_text(payload: str, where: str) -> str:
    try:
        event = json.loads(payload)
        if "error" in event:
            raise LLMOutputError(f"{where} reported an error mid-answer: {event['error']}")
        choices = event.get("choices") or []
        return str((choices[0].get("delta") or {}).get("content") or "") if choices else ""
    except (ValueError, AttributeError, TypeError) as err:
        raise LLMOutputError(
            f"{where} streamed an event that is not a chat-completion chunk: {payload[:200]!r}"
        ) from err


def _error_text(response: httpx.Response) -> str:
    try:
        error = response.json().get("error", response.text)
        return str(error.get("message", error) if isinstance(error, dict) else error)[:300]
    except (ValueError, AttributeError):
        return response.text[:300]
