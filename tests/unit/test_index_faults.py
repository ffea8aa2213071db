"""Faults while indexing: a file that makes its reader fail unexpectedly costs only itself, never the batch.

Real Chroma, real model, real files.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

import rag.index.writer
import rag.ingest.parsing
from rag.cli import main as cli_main
from rag.records import IndexProgress
from rag.service import RagService

REPO = Path(__file__).resolve().parents[2]
MANUAL = "# Sessions\nTEEC_OpenSession opens a session between a client application and a trusted application.\n"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "tee_manual.md").write_text(MANUAL, encoding="utf-8")
    (folder / "deep.json").write_text("[" * 5000 + "]" * 5000)  # nested past Python's recursion limit
    (folder / "report.docx").write_bytes(b"PK\x03\x04 stands in for a document whose reader breaks")
    return folder


@pytest.fixture
def broken_docx_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader that fails the way lxml does on a DOCX with one huge text run ("Text node too long")."""
    real = rag.ingest.parsing.open_document

    def parse(path: Path, settings):  # type: ignore[no-untyped-def]
        if path.suffix == ".docx":
            raise ValueError("xmlSAX2Characters: huge text node: Text node too long, try XML_PARSE_HUGE")
        return real(path, settings)

    monkeypatch.setattr(rag.ingest.parsing, "open_document", parse)


def test_a_file_whose_reader_fails_unexpectedly_gets_a_failed_outcome_and_the_batch_goes_on(
    settings, minilm_embedder, docs: Path, broken_docx_reader: None, caplog: pytest.LogCaptureFixture
) -> None:
    service = RagService(settings, embedder=minilm_embedder)

    with caplog.at_level(logging.ERROR, logger="rag.index.writer"):
        report = service.index_paths([docs])

    outcomes = {f.source: f for f in report.files}
    assert set(outcomes) == {"docs/tee_manual.md", "docs/deep.json", "docs/report.docx"}
    assert outcomes["docs/tee_manual.md"].status == "indexed"
    docx = outcomes["docs/report.docx"]
    assert docx.status == "failed"
    assert "Could not read this file" in docx.error and "Text node too long" in docx.error
    assert "save it again" in docx.error and str(docs) not in docx.error  # no server paths for the browser
    assert (
        outcomes["docs/deep.json"].status in ("failed", "indexed")
        and "Traceback" not in outcomes["docs/deep.json"].error
    )
    assert "Traceback" in caplog.text or "ValueError" in caplog.text  # the details stay in the server log
    stats = {s.source: s for s in service.stats().per_source}
    assert stats["docs/report.docx"].status == "failed" and "Text node too long" in stats["docs/report.docx"].error
    assert service.search("TEEC_OpenSession")[0].chunk.source == "docs/tee_manual.md"


def test_index_json_prints_its_report_and_progress_when_a_reader_blows_up(settings, docs: Path) -> None:
    env = {**os.environ, "RAG_STORAGE_DIR": str(settings.storage), "RAG_MODEL_DIR": str(settings.models),
           "RAG_EMBEDDING_MODEL": settings.embedding_model}  # fmt: skip
    result = subprocess.run([sys.executable, "-m", "rag", "index", str(docs), "--json"], env=env, cwd=REPO,
                            capture_output=True, text=True, timeout=240)  # fmt: skip

    files = {f["source"]: f for f in json.loads(result.stdout)["files"]}
    assert files["docs/tee_manual.md"]["status"] == "indexed"
    assert files["docs/deep.json"]["status"] in ("failed", "indexed")
    assert result.returncode in (0, 1) and "Traceback" not in result.stdout
    assert "[3/3] finishing" in result.stderr  # progress lines on stderr, also with --json


@pytest.mark.parametrize("reader_is", ["the same service", "another process's view"])
def test_a_search_during_a_write_does_not_wait_for_the_writer(settings, minilm_embedder, tmp_path: Path,
                                                              reader_is: str) -> None:  # fmt: skip
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir(), second.mkdir()
    (first / "tee_manual.md").write_text(MANUAL, encoding="utf-8")
    (second / "travel.md").write_text("# Travel\nHotel costs are capped at 200 dollars per night.\n", encoding="utf-8")
    writer = RagService(settings, embedder=minilm_embedder)
    writer.index_paths([first])
    reader = writer if reader_is == "the same service" else RagService(settings, embedder=minilm_embedder)
    committed, release = threading.Event(), threading.Event()

    def hold_before_bm25(event: IndexProgress) -> None:
        if event.stage == "finishing":  # the manifest has switched over; BM25 is rebuilt after this
            committed.set()
            release.wait(60)

    writing = threading.Thread(target=writer.index_paths, args=([second],), kwargs={"progress": hold_before_bm25})
    writing.start()
    try:
        assert committed.wait(60)
        found: list[list[str]] = []
        searching = threading.Thread(
            target=lambda: found.append([h.chunk.source for h in reader.search("TEEC_OpenSession")])
        )
        searching.start()
        searching.join(20)  # the writer holds its lock for as long as the test likes: a waiting reader never returns
        assert not searching.is_alive(), "the search waited for the writer"
        assert found[0][0] == "first/tee_manual.md" or found[0][0] == "tee_manual.md"
    finally:
        release.set()
        writing.join(60)
    assert reader.search("Hotel costs per night")[0].chunk.source.endswith("travel.md")
    assert reader.check_consistency().ok


def test_a_deletion_is_refused_without_yes_and_recorded_with_how_it_was_confirmed(
    settings, minilm_embedder, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    RagService(settings, embedder=minilm_embedder).index_paths([docs / "tee_manual.md"])
    for name, value in {"RAG_STORAGE_DIR": str(settings.storage), "RAG_MODEL_DIR": str(settings.models),
                        "RAG_EMBEDDING_MODEL": settings.embedding_model}.items():  # fmt: skip
        monkeypatch.setenv(name, value)

    refused = cli_main(["remove", "tee_manual.md"])
    kept = RagService(settings, embedder=minilm_embedder).sources()
    done = cli_main(["remove", "tee_manual.md", "--yes"])

    history = RagService(settings, embedder=minilm_embedder).version_history()
    assert (refused, kept, done) == (2, ["tee_manual.md"], 0)
    assert history[0].action == "remove"
    assert history[0].detail == "tee_manual.md (deletion confirmed with --yes on the command line)"


def test_a_big_file_reports_progress_while_it_is_embedded(settings, minilm_embedder, tmp_path: Path) -> None:
    settings = replace(settings, index_slice_chunks=8)  # a big file, in miniature
    big = tmp_path / "big.md"
    big.write_text("\n\n".join(f"## Part {i}\n" + f"Device {i} reports code {i * 7} after {i} retries. " * 12
                               for i in range(40)), encoding="utf-8")  # fmt: skip
    events: list[IndexProgress] = []

    report = RagService(settings, embedder=minilm_embedder).index_paths([big], progress=events.append)

    chunks = report.files[0].chunks
    embedding = [e for e in events if e.stage == "embedding"]
    assert chunks > 16 and len(embedding) >= 3
    # the share read counts the file's blocks given out so far: the first slice is a part of the file, the last all
    assert embedding[0].current == "big.md (8 chunks committed, 24% read)" and embedding[0].embedded == 8
    assert embedding[-1].current.endswith(", 100% read)")
    assert [e.embedded for e in embedding] == sorted(e.embedded for e in embedding)


def test_one_content_under_two_names_is_indexed_twice_and_each_says_so(settings, minilm_embedder, tmp_path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "manual.md").write_text(MANUAL, encoding="utf-8")
    (folder / "manual (copy).md").write_text(MANUAL, encoding="utf-8")
    (folder / "other.md").write_text("# Other\nNothing in common with the manual at all.\n", encoding="utf-8")

    outcomes = {f.source: f for f in RagService(settings, embedder=minilm_embedder).index_paths([folder]).files}

    assert outcomes["notes/manual (copy).md"].status == "indexed"
    assert any("the same content as 'notes/manual.md'" in w for w in outcomes["notes/manual (copy).md"].warnings)
    assert any("'notes/manual (copy).md'" in w for w in outcomes["notes/manual.md"].warnings)
    assert outcomes["notes/other.md"].warnings == ()


def test_a_folder_with_a_symlink_loop_is_indexed_once(settings, minilm_embedder, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    (folder / "team").mkdir(parents=True)
    (folder / "team" / "manual.md").write_text(MANUAL, encoding="utf-8")
    (folder / "team" / "back").symlink_to(folder, target_is_directory=True)

    report = RagService(settings, embedder=minilm_embedder).index_paths([folder])

    assert [(f.source, f.status) for f in report.files] == [("shared/team/manual.md", "indexed")]


def test_a_file_that_vanishes_before_it_is_read_fails_alone_with_what_to_do(
    settings, minilm_embedder, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text(MANUAL, encoding="utf-8")
    (folder / "b.md").write_text("# B\nA note that is deleted while the folder is indexed.\n", encoding="utf-8")

    def delete_b(progress: IndexProgress) -> None:
        if progress.stage == "parsing" and progress.current == "docs/a.md":
            (folder / "b.md").unlink(missing_ok=True)

    report = RagService(settings, embedder=minilm_embedder).index_paths([folder], progress=delete_b)

    outcomes = {f.source: f for f in report.files}
    assert outcomes["docs/a.md"].status == "indexed"
    assert outcomes["docs/b.md"].status == "failed"
    expected = "docs/b.md no longer exists. Check the file and its permissions, then index again."
    assert outcomes["docs/b.md"].error == expected


def test_a_file_written_to_while_it_is_read_is_flagged_and_read_again_next_run(
    settings, minilm_embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "live.md"
    path.write_text(MANUAL, encoding="utf-8")
    real = rag.ingest.parsing.open_document
    appended = []

    def read_while_a_writer_appends(file: Path, settings):  # type: ignore[no-untyped-def]
        opened = real(file, settings)
        if not appended:  # another program appends while the reader is busy (timing a test cannot otherwise catch)
            with file.open("a", encoding="utf-8") as handle:
                handle.write("\nTEEC_CloseSession closes the session again.\n")
            appended.append(file)
        return opened

    monkeypatch.setattr(rag.ingest.parsing, "open_document", read_while_a_writer_appends)
    service = RagService(settings, embedder=minilm_embedder)

    first = service.index_paths([path]).files[0]
    second = service.index_paths([path]).files[0]

    assert first.status == "indexed" and any("changed while it was being read" in w for w in first.warnings)
    assert second.status == "updated" and not second.warnings
    assert "TEEC_CloseSession" in service.search("TEEC_CloseSession closes the session")[0].chunk.text
