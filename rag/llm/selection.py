"""Pick the LLM backend the settings ask for, and report on all of them for the sidebar.

``llm_backend="auto"`` takes the first that works, each probe bounded (Ollama's by 1.5 s):

1. Ollama, when the server answers and has the configured model;
2. the OpenAI-compatible server, only when ``openai_base_url`` is set and it answers;
3. the embedded llama.cpp model, when ``llama_cpp`` is installed and its GGUF is built or buildable;
4. extractive (no LLM: answers are the cited passages), which always works.

``auto`` never raises; a named backend is built as asked and reports its own failures when used.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag.errors import ConfigError
from rag.llm.base import LLMBackend
from rag.llm.embedded_backend import EmbeddedBackend
from rag.llm.extractive_backend import ExtractiveBackend
from rag.llm.ollama_backend import OllamaBackend
from rag.llm.openai_backend import OpenAICompatibleBackend
from rag.records import BACKEND_NAMES, BackendStatus
from rag.settings import Settings


def build_backend(name: str, settings: Settings) -> LLMBackend:
    """Build one named backend without probing it.

    Args:
        name: ``"ollama"``, ``"openai"``, ``"embedded"`` or ``"extractive"``.
        settings: the engine settings.

    Raises:
        ValueError: ``name`` is not one of those.
        ConfigError: the backend's settings are unusable (e.g. ``openai`` without ``openai_base_url``).
    """
    if name == "ollama":
        return OllamaBackend.from_settings(settings)
    if name == "openai":
        if not settings.openai_base_url:
            raise ConfigError(
                "llm_backend=openai needs RAG_OPENAI_BASE_URL (e.g. http://127.0.0.1:8080/v1 for llama-server)."
            )
        return OpenAICompatibleBackend.from_settings(settings)
    if name == "embedded":
        try:
            return EmbeddedBackend.from_settings(settings)
        except ValueError as err:
            raise ConfigError(f"RAG_EMBEDDED_LLM: {err}") from err
    if name == "extractive":
        return ExtractiveBackend()
    allowed = ", ".join(BACKEND_NAMES)
    raise ValueError(f"Unknown LLM backend {name!r}; allowed: {allowed}")


def select_backend(settings: Settings) -> LLMBackend:
    """The backend ``settings.llm_backend`` names, or for ``"auto"`` the first available one.

    Raises:
        ConfigError: a named (not ``auto``) backend's settings are unusable.
    """
    if settings.llm_backend != "auto":
        return build_backend(settings.llm_backend, settings)
    for backend in _auto_candidates(settings):
        if backend.status().available:
            return backend
    return ExtractiveBackend()


def live_backend_name(settings: Settings, statuses: Sequence[BackendStatus]) -> str:
    """The backend answers use, told from ``statuses`` without building one: the configured backend, or under
    ``auto`` the first available in ``BACKEND_NAMES`` order (what ``select_backend`` picks from the same probes)."""
    if settings.llm_backend != "auto":
        return settings.llm_backend
    return next((s.name for s in statuses if s.available), "extractive")


def backend_statuses(settings: Settings) -> list[BackendStatus]:
    """One status per backend, in ``auto``'s order of preference; never raises (bounded probes)."""
    statuses: list[BackendStatus] = []
    for name in BACKEND_NAMES:
        if name == "openai" and not settings.openai_base_url:
            statuses.append(BackendStatus("openai", False, settings.openai_model, "RAG_OPENAI_BASE_URL is not set."))
            continue
        try:
            statuses.append(build_backend(name, settings).status())
        except ConfigError as err:
            statuses.append(BackendStatus(name, False, "", str(err)))
    return statuses


def _auto_candidates(settings: Settings) -> list[LLMBackend]:
    candidates: list[LLMBackend] = []
    names = [n for n in BACKEND_NAMES if n != "extractive" and (n != "openai" or settings.openai_base_url)]
    for name in names:
        try:
            candidates.append(build_backend(name, settings))
        except ConfigError:
            continue  # auto skips a misconfigured backend; backend_statuses shows why
    return candidates
