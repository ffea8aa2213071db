"""The house rules a tool can check: ruff-clean code, mypy-clean engine, pages that only talk to the facade."""

from __future__ import annotations

import ast
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rag.service import RagService

REPO = Path(__file__).resolve().parents[2]
UI_FILES = sorted([*(REPO / "app_pages").glob("*.py"), *(REPO / "ui").glob("*.py"), REPO / "streamlit_app.py"])
FACADE_AND_RECORDS = {"rag.service", "rag.records", "rag.errors", "rag.settings", "rag.quiz.models"}
"""What pages and ui/ may import from the engine: the facade, its records (``rag.quiz.models``: the quiz records,
pydantic because they are parsed from LLM output), its errors and its settings."""
FACADE_NAMES = {"svc", "service"}
"""How pages and ui/ name the ``RagService`` they hold."""


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


def _engine_imports(tree: ast.AST) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
    return {m for m in modules if m == "rag" or m.startswith("rag.")}


def test_pages_and_ui_import_only_the_facade_its_records_errors_and_settings() -> None:
    wrong = {
        f"{path.relative_to(REPO)}: {module}"
        for path in UI_FILES
        for module in _engine_imports(ast.parse(path.read_text(encoding="utf-8")))
        if module not in FACADE_AND_RECORDS
    }
    assert not wrong, f"pages and ui/ reach past the facade: {sorted(wrong)}"


def _public_methods() -> set[str]:
    return {
        name
        for name, member in vars(RagService).items()
        if not name.startswith("_") and inspect.isfunction(getattr(member, "__func__", member))
    }


def test_pages_and_ui_use_only_the_facades_methods_and_its_settings() -> None:
    allowed = _public_methods() | {"settings"}
    assert {"search", "resolve_source", "quiz_sets", "llm_backends", "chunk_length_stats"} <= allowed
    assert not {"index", "llm", "quizzes", "embedder", "retriever", "quiz_pool"} & allowed  # attributes, not methods
    wrong = {
        f"{path.relative_to(REPO)}:{node.lineno} {node.value.id}.{node.attr}"  # type: ignore[attr-defined]
        for path in UI_FILES
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in FACADE_NAMES
        and node.attr not in allowed
    }
    assert not wrong, f"pages and ui/ reach into the facade's attributes: {sorted(wrong)}"
