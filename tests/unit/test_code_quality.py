"""The house rules a tool can check: ruff-clean code, mypy-clean engine, pages that only talk to the facade."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_code_is_ruff_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


@pytest.mark.slow
def test_engine_is_mypy_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "mypy", "rag"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_engine_never_imports_streamlit_and_pages_only_use_the_facade() -> None:
    engine = [
        p for p in (REPO / "rag").rglob("*.py") if re.search(r"^\s*(import|from)\s+streamlit", p.read_text(), re.M)
    ]
    assert engine == []
    libraries = "chromadb|ollama|sentence_transformers|bm25s|rank_bm25|pymupdf|fitz|llama_cpp"
    outside = re.compile(rf"^\s*(import|from)\s+({libraries})", re.M)
    pages = [
        p for p in [*(REPO / "app_pages").glob("*.py"), REPO / "streamlit_app.py"] if outside.search(p.read_text())
    ]
    assert pages == []
