"""Backend selection: what ``auto`` falls back to, named backends, and the sidebar statuses."""

from __future__ import annotations

import importlib.util
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.errors import ConfigError, LLMUnavailableError
from rag.llm import gguf_assembly
from rag.llm.base import LLMBackend, Message
from rag.llm.extractive_backend import NO_LLM_MESSAGE, ExtractiveBackend
from rag.llm.gguf_assembly import GGUFVariant
from rag.llm.selection import backend_statuses, build_backend, select_backend
from rag.service import RagService
from rag.settings import Settings
from tests.ollama_api_server import LLMTestServer

MODEL = "qwen2.5:7b-instruct"
HAS_LLAMA_CPP = importlib.util.find_spec("llama_cpp") is not None


@pytest.fixture
def server() -> Iterator[LLMTestServer]:
    with LLMTestServer(models=[MODEL]) as running:
        yield running


@pytest.fixture
def down_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.fixture
def no_embedded(monkeypatch: pytest.MonkeyPatch) -> str:
    """An embedded model whose part packages are not installed (a fresh machine without the model)."""
    absent = GGUFVariant("absent", "absent.gguf", "absent-part{}", "rag_test_sel_absent_part{}", "1.0", 1, 1, "0" * 64)
    monkeypatch.setitem(gguf_assembly.VARIANTS, "absent", absent)
    return "absent"


def test_auto_takes_ollama_when_it_has_the_model(server: LLMTestServer, tmp_path: Path) -> None:
    settings = Settings(storage_dir=tmp_path, ollama_host=server.host, ollama_model=MODEL)

    backend = select_backend(settings)

    assert backend.name == "ollama" and backend.model == MODEL


def test_auto_without_ollama_or_embedded_model_answers_extractively(
    down_url: str, no_embedded: str, tmp_path: Path
) -> None:
    settings = Settings(storage_dir=tmp_path, ollama_host=down_url, embedded_llm=no_embedded)

    started = time.perf_counter()
    backend = select_backend(settings)

    assert isinstance(backend, ExtractiveBackend)
    assert time.perf_counter() - started < 3.0
    with pytest.raises(LLMUnavailableError, match=NO_LLM_MESSAGE):
        backend.chat([Message("user", "hi")])
    with pytest.raises(LLMUnavailableError, match=NO_LLM_MESSAGE):
        list(backend.stream_chat([Message("user", "hi")]))


def test_auto_skips_ollama_lacking_the_model(server: LLMTestServer, no_embedded: str, tmp_path: Path) -> None:
    settings = Settings(
        storage_dir=tmp_path, ollama_host=server.host, ollama_model="gemma3:4b", embedded_llm=no_embedded
    )
    assert select_backend(settings).name == "extractive"


@pytest.mark.skipif(not HAS_LLAMA_CPP, reason="llama-cpp-python is not installed, so auto cannot pick embedded")
def test_auto_without_ollama_takes_the_embedded_model_when_its_parts_are_installed(
    down_url: str, tmp_path: Path
) -> None:
    if not gguf_assembly.parts_installed(gguf_assembly.DEFAULT_VARIANT):
        pytest.skip(f"embedded model parts not installed: {gguf_assembly.VARIANTS['qwen2.5-coder-1.5b'].pip_command()}")
    settings = Settings(storage_dir=tmp_path, ollama_host=down_url)

    backend = select_backend(settings)

    assert backend.name == "embedded" and backend.model == "qwen2.5-coder-1.5b"
    assert "built from the installed parts on first use" in backend.status().detail  # tmp_path has no GGUF yet


def test_auto_takes_a_configured_openai_server_before_the_embedded_model(
    server: LLMTestServer, down_url: str, tmp_path: Path
) -> None:
    settings = Settings(storage_dir=tmp_path, ollama_host=down_url, openai_base_url=server.openai_base_url)
    assert select_backend(settings).name == "openai"


def test_a_named_backend_is_built_without_probing(down_url: str, tmp_path: Path) -> None:
    settings = Settings(storage_dir=tmp_path, ollama_host=down_url, llm_backend="ollama")

    backend = select_backend(settings)

    assert backend.name == "ollama" and isinstance(backend, LLMBackend)
    with pytest.raises(LLMUnavailableError, match="ollama serve"):
        backend.chat([Message("user", "hi")])


def test_bad_backend_names_and_settings_say_what_is_allowed(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="allowed: ollama, openai, embedded, extractive"):
        build_backend("gpt", Settings())
    with pytest.raises(ConfigError, match="RAG_OPENAI_BASE_URL"):
        select_backend(Settings(llm_backend="openai"))
    with pytest.raises(ConfigError, match="RAG_EMBEDDED_LLM"):
        select_backend(Settings(llm_backend="embedded", embedded_llm="qwen3"))


def test_statuses_cover_every_backend_in_preference_order(
    server: LLMTestServer, no_embedded: str, tmp_path: Path
) -> None:
    settings = Settings(storage_dir=tmp_path, ollama_host=server.host, embedded_llm=no_embedded)

    statuses = backend_statuses(settings)

    assert [s.name for s in statuses] == ["ollama", "openai", "embedded", "extractive"]
    assert [s.available for s in statuses] == [True, False, False, True]
    assert server.host in statuses[0].detail
    assert "RAG_OPENAI_BASE_URL" in statuses[1].detail
    assert "pip install" in statuses[2].detail


def test_statuses_never_raise_on_unusable_settings(down_url: str, tmp_path: Path) -> None:
    settings = Settings(storage_dir=tmp_path, ollama_host=down_url, ollama_model="", embedded_llm="qwen3")

    statuses = {s.name: s for s in backend_statuses(settings)}

    assert "RAG_OLLAMA_MODEL" in statuses["ollama"].detail
    assert "qwen3" in statuses["embedded"].detail
    assert statuses["extractive"].available


def test_the_engine_says_which_backend_auto_picked_without_loading_one(
    server: LLMTestServer, down_url: str, no_embedded: str, tmp_path: Path
) -> None:
    up = RagService(Settings(storage_dir=tmp_path / "a", ollama_host=server.host, embedded_llm=no_embedded))
    report = up.llm_backends()
    assert report.configured == "auto" and report.live == "ollama"
    assert report.live_status is not None and report.live_status.model == MODEL
    assert up.llm.name == report.live  # what answers then use

    down = RagService(Settings(storage_dir=tmp_path / "b", ollama_host=down_url, embedded_llm=no_embedded))
    assert down.llm_backends().live == "extractive" == down.llm.name

    named = RagService(Settings(storage_dir=tmp_path / "c", llm_backend="ollama", ollama_host=down_url))
    report = named.llm_backends()
    assert report.live == "ollama" and report.live_status is not None and not report.live_status.available
