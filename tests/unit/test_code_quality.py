"""The house rules a tool can check: ruff-clean code, mypy-clean engine, pages that only talk to the facade,
engine imports that run only downward and never in a circle."""

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
        for facade in RagService.__mro__[:-1]  # the facade and the classes it is split into, not ``object``
        for name, member in vars(facade).items()
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


# ---- the engine's layering ---------------------------------------------------------------------------------

TOP = {"rag.service", "rag.cli", "rag.__main__"}
"""The facade and the command line (with the modules of the ``rag.cli`` package): they use the stages; no stage
uses them."""
FOUNDATION = {"rag", "rag.records", "rag.errors", "rag.settings"}
"""What every module may import (with the modules of the ``rag.records`` package); it imports nothing but itself."""


def _within(module: str, group: set[str]) -> bool:
    """Whether ``module`` is one of ``group`` or a module of one of its packages (``rag`` itself holds only itself)."""
    return module in group or any(module.startswith(f"{name}.") for name in group - {"rag"})


def _module_names() -> dict[Path, str]:
    names = {}
    for path in sorted((REPO / "rag").rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        names[path] = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return names


def _imported_modules(tree: ast.AST, name: str, is_package: bool, known: set[str]) -> set[str]:
    """Every engine module ``tree`` imports, at any depth (in functions, under ``TYPE_CHECKING`` too)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = name if is_package else name.rpartition(".")[0]
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            module = ".".join(p for p in (base if node.level else "", node.module or "") if p)
            for alias in node.names:  # ``from rag.models import embedding`` imports a module
                found.add(f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module)
    return {m for m in found if m in known or m.startswith("rag.")}


def _engine_graph() -> dict[str, set[str]]:
    names = _module_names()
    known = set(names.values())
    return {
        name: _imported_modules(ast.parse(path.read_text(encoding="utf-8")), name, path.stem == "__init__", known)
        - {name}
        for path, name in names.items()
    }


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle in ``graph`` (its modules, in order), or ``[]`` when there is none."""
    done: set[str] = set()

    def visit(node: str, trail: list[str]) -> list[str]:
        if node in trail:
            return trail[trail.index(node) :] + [node]
        if node in done:
            return []
        for target in sorted(graph.get(node, ())):
            found = visit(target, [*trail, node])
            if found:
                return found
        done.add(node)
        return []

    for start in sorted(graph):
        found = visit(start, [])
        if found:
            return found
    return []


def _stage(module: str) -> str:
    """The stage package a module belongs to (``rag.index.writer`` -> ``rag.index``), or the module itself."""
    return ".".join(module.split(".")[:2])


def test_the_layering_checks_can_fail() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
    tree = ast.parse("def f():\n    from rag.service import RagService\n")
    assert _imported_modules(tree, "rag.index.catalog", False, {"rag.service"}) == {"rag.service"}
    tree = ast.parse("from . import claims\nfrom ..models import embedding\n")
    known = {"rag.answers.claims", "rag.models.embedding", "rag.models"}
    assert _imported_modules(tree, "rag.answers.draft", False, known) == known - {"rag.models"}


def test_engine_imports_run_downward_only() -> None:
    graph = _engine_graph()
    assert {"rag.index.writer", "rag.ingest.parsing", "rag.evaluation.retrieval"} <= set(graph)
    unknown = {f"{m} -> {t}" for m, targets in graph.items() for t in targets if t not in graph}
    assert not unknown, f"imports of modules that do not exist: {sorted(unknown)}"
    upward = {f"{m} -> {t}" for m, targets in graph.items() if not _within(m, TOP) for t in targets if _within(t, TOP)}
    assert not upward, f"a stage imports the facade or the command line: {sorted(upward)}"
    foundation = {m for m in graph if _within(m, FOUNDATION)}
    below = {f"{m} -> {t}" for m in foundation for t in graph[m] - foundation}
    assert not below, f"records, errors and settings import a stage: {sorted(below)}"


def test_engine_imports_never_go_round_in_a_circle() -> None:
    graph = _engine_graph()
    assert _cycle(graph) == [], "modules import each other in a circle"
    stages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        stages.setdefault(_stage(module), set()).update(_stage(t) for t in targets if _stage(t) != _stage(module))
    assert _cycle(stages) == [], "stage packages import each other in a circle"
