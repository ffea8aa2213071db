"""Big files: read in parts, committed in slices, resumed after a crash, in bounded memory.

A plain-text file over ``STREAM_BYTES`` is read a part at a time into the same blocks as a whole read; a file
with more chunks than ``index_slice_chunks`` is embedded and committed slice by slice. A SIGKILL in the middle of
such a file (a real process, ``tests/crash_driver.py``) keeps the committed slices searchable, and the next run
embeds only what was not committed and ends with exactly a clean build's ids in all three stores.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from rag.ingest.chunking import chunk_document, iter_chunks
from rag.ingest.parsing import open_document, parse_file, pdf, text_stream
from rag.service import RagService
from rag.settings import Settings
from tests.big_files import measure_indexing, write_text_file
from tests.crash_driver import IndexRunner, cli_env, store_ids
from tests.docmaker import PdfPage, make_long_pdf, make_pdf

SLICE = 32


def test_a_big_text_file_read_in_parts_gives_the_same_chunks_as_a_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_text_file(tmp_path / "log.txt", 0.3)
    with path.open("a", encoding="utf-8") as out:  # CRLF lines and a part without any blank line
        out.write("Windows line one.\r\nWindows line two.\r\n\r\n" + "no blank line here. " * 3000)
    monkeypatch.setattr(text_stream, "STREAM_BYTES", 4096)
    monkeypatch.setattr(text_stream, "READ_BYTES", 5000)  # ~70 parts
    settings = Settings()
    whole = chunk_document(parse_file(path, settings), source="log.txt", rel_path="log.txt", doc_type="general",
                           settings=settings)  # fmt: skip

    opened = open_document(path, settings)
    parts = list(iter_chunks(opened.doc, opened.blocks, source="log.txt", rel_path="log.txt", doc_type="general",
                             settings=settings))  # fmt: skip

    assert opened.doc.blocks == () and opened.fraction_read() == 1.0  # it was streamed
    assert len(whole) > 200
    assert [c.chunk_id for c in parts] == [c.chunk_id for c in whole]


def test_a_long_pdf_read_in_windows_gives_the_chunks_of_a_whole_read_with_its_running_header_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make_long_pdf(tmp_path / "spec.pdf", 47)  # running header and "- n -" footer on every page
    monkeypatch.setattr(pdf, "STREAM_PAGES", 20)
    monkeypatch.setattr(pdf, "WINDOW_PAGES", 10)  # windows of 10 pages, the last one 17
    settings = Settings()
    whole = chunk_document(parse_file(path, settings), source="spec.pdf", rel_path="spec.pdf", doc_type="spec",
                           settings=settings)  # fmt: skip

    opened = open_document(path, settings)
    fractions = []
    parts = []
    for chunk in iter_chunks(opened.doc, opened.blocks, source="spec.pdf", rel_path="spec.pdf", doc_type="spec",
                             settings=settings):  # fmt: skip
        parts.append(chunk)
        fractions.append(opened.fraction_read())

    assert opened.doc.blocks == () and opened.doc.total_pages == 47  # it was streamed
    assert fractions[0] < 0.5 and fractions[-1] == 1.0
    assert [c.text for c in parts] == [c.text for c in whole]
    assert [c.page for c in parts] == [c.page for c in whole]
    assert [c.page for c in parts if "社外秘" in c.text] == [1]  # not again in each window
    assert not any("- 12 -" in c.text for c in parts)


def test_a_long_pdf_indexed_in_parts_reports_progress_and_the_pages_it_could_not_read(
    settings, minilm_embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = [PdfPage(heading=f"Chapter {n}", paragraphs=(f"Section {n} sets the limit to {n * 7} requests.",),
                     garbage=n == 33) for n in range(1, 41)]  # fmt: skip
    path = make_pdf(tmp_path / "manual.pdf", pages, header="Internal manual")
    monkeypatch.setattr(pdf, "STREAM_PAGES", 20)
    monkeypatch.setattr(pdf, "WINDOW_PAGES", 10)
    service = RagService(replace(settings, index_slice_chunks=8, ocr_enabled=False), embedder=minilm_embedder)
    events: list[str] = []

    report = service.index_paths([path], progress=lambda e: events.append(e.current))

    outcome = report.files[0]
    assert outcome.status == "indexed", outcome
    assert any("% read)" in e and "100% read" not in e for e in events)  # progress while the PDF was read
    assert any("page 33" in w and "unreadable" in w for w in outcome.warnings)  # found in the last windows
    assert service.stats().per_source[0].pages == 40
    hit = service.search("Section 38 limit")[0]
    assert hit.chunk.page == 38 and "266 requests" in hit.chunk.text


def test_a_file_committed_in_slices_holds_what_one_commit_holds(settings, minilm_embedder, tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    path = write_text_file(tmp_path / "docs" / "log.txt", 0.05)
    one = RagService(replace(settings, storage_dir=tmp_path / "one"), embedder=minilm_embedder)
    one.index_paths([path])
    parts = RagService(replace(settings, index_slice_chunks=8), embedder=minilm_embedder)
    events: list[str] = []

    report = parts.index_paths([path], progress=lambda e: events.append(e.current))

    committed = [e for e in events if "chunks committed" in e]
    assert report.files[0].status == "indexed" and report.files[0].chunks == one.stats().chunks
    assert parts.index.manifest.all_chunk_ids() == one.index.manifest.all_chunk_ids()
    assert [c.chunk_index for c in parts.chunks_of("log.txt")] == list(range(report.files[0].chunks))
    assert len(committed) == -(-report.files[0].chunks // 8)
    assert committed[1].startswith("log.txt (16 chunks committed, ") and committed[-1].endswith(", 100% read)")
    shares = [int(e.rsplit(", ", 1)[1].split("%")[0]) for e in committed]
    assert shares == sorted(shares) and shares[0] < 100  # a file read whole still shows how far its blocks are
    assert parts.stats().per_source[0].status == "indexed" and parts.check_consistency().ok


@pytest.mark.slow
def test_sigkill_in_the_middle_of_a_big_file_keeps_its_committed_slices_and_the_next_run_resumes(
    settings, minilm_embedder, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    write_text_file(docs / "big.txt", 0.1)  # ~190 chunks: 6 slices of 32
    storage = tmp_path / "crashed"
    env = {**cli_env(storage, settings.models, settings.embedding_model), "RAG_INDEX_SLICE_CHUNKS": str(SLICE)}

    died = IndexRunner().run([docs], env, crash_at="chroma@3")  # the third slice is in Chroma, not committed
    at_crash = store_ids(storage) if (storage / "bm25").exists() else None
    restarted = RagService(replace(settings, storage_dir=storage, index_slice_chunks=SLICE), embedder=minilm_embedder)
    committed = restarted.chunks_of("docs/big.txt")
    hit = restarted.search(committed[40].text)[0]
    check = restarted.check_consistency()
    status = restarted.stats().per_source[0].status
    resumed = restarted.index_paths([docs])
    clean = RagService(replace(settings, index_slice_chunks=SLICE), embedder=minilm_embedder)
    clean.index_paths([docs])

    assert died == -9 and at_crash is None  # killed before its first BM25 save
    assert len(committed) == 2 * SLICE and status == "partial"  # two slices kept, searchable after the restart
    assert hit.chunk.chunk_id == committed[40].chunk_id
    assert check.ok and check.manifest_chunks == check.vector_chunks == 2 * SLICE  # the orphaned third slice is gone
    assert resumed.files[0].status == "indexed"
    assert resumed.embedded == resumed.files[0].chunks - 2 * SLICE  # only what was not committed
    expected = store_ids(settings.storage).manifest
    after = store_ids(storage)
    assert expected and after.manifest == expected and after.chroma == expected and after.bm25 == expected
    assert [c.text for c in restarted.chunks_of("docs/big.txt")] == [c.text for c in clean.chunks_of("docs/big.txt")]


@pytest.mark.slow
def test_indexing_a_big_file_needs_one_slice_of_memory_not_the_file(tmp_path: Path) -> None:
    path = write_text_file(tmp_path / "big.txt", 6)  # streamed (over STREAM_BYTES), ~11,600 chunks
    size = path.stat().st_size

    figures = measure_indexing(path, tmp_path / "storage", slice_chunks=256, trace_heap=True)

    # the file-proportional figure: merely holding the file's text and its float32 vectors (about 24 MB here;
    # holding its chunks as objects, the all-or-nothing writer, measured 98 MB in bench/big_file.py)
    held = size + int(figures["chunks"]) * 384 * 4
    assert figures["status"] == "indexed" and figures["ok"] is True
    assert int(figures["chunks"]) > 10_000 and int(figures["progress_events"]) > 40
    assert int(figures["heap_peak_writing"]) < held / 2, figures
