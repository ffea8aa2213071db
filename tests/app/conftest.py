"""AppTest fixtures: the real app over a storage folder in ``tmp_path`` and the fast packaged MiniLM embedder.

Every test gets a fresh ``st.cache_resource`` (so a fresh ``RagService`` over its own storage) and an environment
with no ``RAG_*`` variable but the ones set here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st
from app_driver import APP, RUN_TIMEOUT, ok
from docmaker import JA_PARAGRAPHS, PdfPage, make_pdf
from streamlit.testing.v1 import AppTest

from rag.models.embedding import MINILM_OFFLINE

EN_TEXT = (
    "The secure world keeps trusted applications isolated from the rich operating system. "
    "Session handles are opened with TEEC_OpenSession and closed with TEEC_CloseSession. "
    "Shared memory must be registered before a command is invoked."
)


@pytest.fixture
def storage(tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point the app at a fresh storage folder with MiniLM and the extractive backend; clear the service cache."""
    for name in list(os.environ):
        if name.startswith("RAG_") or name == "OLLAMA_HOST":
            monkeypatch.delenv(name)
    path = tmp_path / "storage"
    monkeypatch.setenv("RAG_STORAGE_DIR", str(path))
    monkeypatch.setenv("RAG_MODEL_DIR", str(models_dir))
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", MINILM_OFFLINE)
    monkeypatch.setenv("RAG_LLM_BACKEND", "extractive")
    st.cache_resource.clear()
    yield path
    st.cache_resource.clear()


@pytest.fixture
def app(storage: Path) -> AppTest:
    """The whole app (entry script, sidebar, navigation), run once: the upload page is showing."""
    at = AppTest.from_file(str(APP), default_timeout=RUN_TIMEOUT)
    return ok(at.run())


@pytest.fixture
def spec_pdf(tmp_path: Path) -> Path:
    """A two-page Japanese/English PDF named in Japanese, alone in ``tmp_path/docs``."""
    folder = tmp_path / "docs"
    folder.mkdir()
    return make_pdf(
        folder / "メモリ仕様.pdf",
        [
            PdfPage(JA_PARAGRAPHS[:2], heading="メモリ管理"),
            PdfPage((EN_TEXT, JA_PARAGRAPHS[2]), heading="Sessions"),
        ],
    )
