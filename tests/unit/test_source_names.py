"""A source is found by what a person types: the stats name, the bare file name, or the path that was indexed.

Real Chroma in ``tmp_path``, the real packaged MiniLM embedder; the command line runs in-process through ``main``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.cli import main
from rag.errors import AmbiguousSourceError, SourceNotFoundError
from rag.service import RagService
from rag.settings import Settings


@pytest.fixture
def library(tmp_path: Path) -> Path:
    """``docs/`` with a unique manual and two notes files of the same name in different sub-folders."""
    docs = tmp_path / "docs"
    (docs / "team_a").mkdir(parents=True)
    (docs / "team_b").mkdir()
    (docs / "orion_manual.md").write_text("# Orion\n\nThe Orion pump is primed by holding the blue valve open.\n")
    (docs / "team_a" / "notes.md").write_text("# Team A\n\nTeam A meets on Tuesdays to review the launch plan.\n")
    (docs / "team_b" / "notes.md").write_text("# Team B\n\nTeam B ships the firmware update every second Friday.\n")
    return docs


@pytest.fixture
def indexed(settings: Settings, minilm_embedder, library: Path) -> RagService:
    service = RagService(settings, embedder=minilm_embedder)
    report = service.index_paths([library])
    assert not report.failed
    assert sorted(service.sources()) == ["docs/orion_manual.md", "docs/team_a/notes.md", "docs/team_b/notes.md"]
    return service


def test_the_name_stats_prints_is_taken_as_it_is(indexed: RagService) -> None:
    assert indexed.resolve_source("docs/orion_manual.md") == "docs/orion_manual.md"


def test_a_bare_file_name_unique_in_the_index_finds_its_source(indexed: RagService) -> None:
    assert indexed.resolve_source("orion_manual.md") == "docs/orion_manual.md"


def test_an_ambiguous_bare_name_is_refused_with_every_candidate(indexed: RagService) -> None:
    with pytest.raises(AmbiguousSourceError) as raised:
        indexed.resolve_source("notes.md")
    assert "docs/team_a/notes.md" in str(raised.value) and "docs/team_b/notes.md" in str(raised.value)
    assert isinstance(raised.value, SourceNotFoundError)  # callers that catch "not found" catch this too


def test_the_absolute_path_that_was_indexed_finds_its_source(indexed: RagService, library: Path) -> None:
    assert indexed.resolve_source(str(library / "team_b" / "notes.md")) == "docs/team_b/notes.md"


def test_a_path_relative_to_the_current_folder_finds_its_source(
    indexed: RagService, library: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(library / "team_b")
    assert indexed.resolve_source("notes.md") == "docs/team_b/notes.md"  # the file here wins over the ambiguity
    assert indexed.resolve_source("../team_a/notes.md") == "docs/team_a/notes.md"
    assert indexed.resolve_source("./../orion_manual.md") == "docs/orion_manual.md"


def test_a_deleted_file_is_still_found_by_its_path(indexed: RagService, library: Path) -> None:
    (library / "orion_manual.md").unlink()
    assert indexed.resolve_source(str(library / "orion_manual.md")) == "docs/orion_manual.md"


def test_an_unknown_name_says_how_to_list_the_names(indexed: RagService) -> None:
    with pytest.raises(SourceNotFoundError, match=r"python -m rag stats") as raised:
        indexed.resolve_source("orion_manaul.md")
    assert not isinstance(raised.value, AmbiguousSourceError)
    assert "docs/orion_manual.md" in str(raised.value)  # the close match is offered


def _cli_env(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> None:
    monkeypatch.setenv("RAG_STORAGE_DIR", str(settings.storage))
    monkeypatch.setenv("RAG_MODEL_DIR", str(settings.models))
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", settings.embedding_model)


def test_cli_search_and_remove_take_what_a_person_types(
    indexed: RagService,
    settings: Settings,
    library: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _cli_env(monkeypatch, settings)
    monkeypatch.chdir(tmp_path)

    assert main(["search", "pump valve", "--source", "orion_manual.md", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert hits and {h["source"] for h in hits} == {"docs/orion_manual.md"}

    assert main(["remove", "notes.md", "--yes"]) == 1
    err = capsys.readouterr().err
    assert "docs/team_a/notes.md" in err and "docs/team_b/notes.md" in err

    assert main(["remove", "nope.md", "--yes"]) == 1
    assert "python -m rag stats" in capsys.readouterr().err

    assert main(["remove", "docs/team_a/../team_a/notes.md", "--yes"]) == 0  # relative to tmp_path
    assert "removed 1 source(s)" in capsys.readouterr().out
    assert main(["remove", str(library / "orion_manual.md"), "--yes"]) == 0
    assert RagService(settings).sources() == ["docs/team_b/notes.md"]
