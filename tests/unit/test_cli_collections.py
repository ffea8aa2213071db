"""``python -m rag collections ...`` and ``--collection`` on the other commands, through the CLI's ``main``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.cli import main
from rag.models.embedding import MINILM_OFFLINE


@pytest.fixture
def storage(tmp_path: Path, models_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("RAG_CONFIG", "RAG_CHROMA_HOST"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RAG_STORAGE_DIR", str(tmp_path / "storage"))
    monkeypatch.setenv("RAG_MODEL_DIR", str(models_dir))
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", MINILM_OFFLINE)
    monkeypatch.setenv("RAG_LLM_BACKEND", "extractive")
    return tmp_path / "storage"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_collections_create_list_rename_and_delete_only_with_yes(
    storage: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "collections", "create", "manuals", "--chunk-size", "300", "--chunk-overlap", "40",
                        "--ocr-language", "eng", "--set", "json_text_fields=body,title", "--json")  # fmt: skip
    assert code == 0
    created = json.loads(out)
    assert created["name"] == "manuals" and created["chunks"] == 0
    assert created["settings"] == {"json_text_fields": "body,title", "chunk_size": 300, "chunk_overlap": 40,
                                   "ocr_language": "eng"}  # fmt: skip

    code, out, _ = _run(capsys, "collections", "list", "--json")
    assert [c["name"] for c in json.loads(out)["collections"]] == ["default", "manuals"]

    assert _run(capsys, "collections", "rename", "manuals", "guides")[0] == 0
    code, out, err = _run(capsys, "collections", "delete", "guides")
    assert code == 2 and "without --yes" in err and "collections delete guides --yes" in err
    assert (storage / "bases" / "guides").is_dir()
    code, out, _ = _run(capsys, "collections", "delete", "guides", "--yes")
    assert code == 0 and not (storage / "bases" / "guides").exists()

    code, out, err = _run(capsys, "collections", "delete", "default", "--yes")
    assert code == 1 and "cannot be deleted" in err
    code, out, err = _run(capsys, "collections", "create", "../escape")
    assert code == 1 and "allowed: letters" in err


def test_every_command_works_on_the_base_named_by_collection(
    storage: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "orion.md").write_text("The Orion router restores its factory settings after a ten second reset.\n")
    (docs / "lyra.md").write_text("Descale the Lyra espresso machine every two months with citric acid.\n")
    assert _run(capsys, "collections", "create", "coffee")[0] == 0
    assert _run(capsys, "index", str(docs / "orion.md"))[0] == 0
    assert _run(capsys, "index", str(docs / "lyra.md"), "--collection", "coffee")[0] == 0

    code, out, _ = _run(capsys, "stats", "--collection", "coffee", "--json")
    assert [s["source"] for s in json.loads(out)["per_source"]] == ["lyra.md"]
    code, out, _ = _run(capsys, "search", "descale", "--json")
    assert {h["collection"] for h in json.loads(out)["hits"]} == {"default"}
    code, out, _ = _run(capsys, "search", "descale espresso", "--collection", "default", "--collection", "coffee",
                        "--json")  # fmt: skip
    hits = json.loads(out)["hits"]
    assert (hits[0]["source"], hits[0]["collection"]) == ("lyra.md", "coffee")
    assert {h["collection"] for h in hits} == {"default", "coffee"}
    code, out, _ = _run(capsys, "search", "descale espresso", "--collection", "default", "--collection", "coffee")
    assert "lyra.md [coffee]" in out

    code, out, _ = _run(capsys, "ask", "How often is the espresso machine descaled?", "--collection", "coffee",
                        "--json")  # fmt: skip
    answer = json.loads(out)
    assert answer["citations"][0]["collection"] == "coffee" and "base" not in answer["citations"][0]
    assert answer["evidence"][0]["collection"] == "coffee"

    code, out, err = _run(capsys, "remove", "lyra.md", "--collection", "coffee", "--yes")
    assert code == 0
    code, out, err = _run(capsys, "stats", "--collection", "nope")
    assert code == 1 and "No knowledge base named 'nope'" in err and "collections create nope" in err
