"""The index: incremental re-indexing, removal, bad input, crash safety, concurrent writers.

Real Chroma, real model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rag.errors import ModelMismatchError, SourceNotFoundError
from rag.service import RagService

REPO = Path(__file__).resolve().parents[2]

MANUAL = """# TEE Client API

## TEE_Malloc
TEE_Malloc allocates a block of memory inside the trusted application. The caller must free it with TEE_Free.

## Session handling
TEEC_OpenSession opens a session between the client application and a trusted application.
The session must be closed with TEEC_CloseSession when the client is done.
"""

NOTES = """# 議事録

## 決定事項
来月のリリースでは、暗号化モジュールの更新を優先する。担当は田中さんで、期限は三月末とする。

## 注意
本番環境への反映は金曜日に行わないこと。障害時の連絡先は運用チームとする。
"""


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "tee_manual.md").write_text(MANUAL, encoding="utf-8")
    (folder / "議事録.md").write_text(NOTES, encoding="utf-8")
    (folder / "plain.txt").write_text("The quarterly report is due on the fifth working day of each quarter.\n" * 3)
    return folder


@pytest.fixture
def service(settings, minilm_embedder) -> RagService:
    return RagService(settings, embedder=minilm_embedder)


def _status(report) -> dict[str, str]:
    return {f.source: f.status for f in report.files}


def test_index_then_reindex_unchanged_costs_nothing(service: RagService, docs: Path) -> None:
    first = service.index_paths([docs])
    assert set(_status(first).values()) == {"indexed"}
    assert first.embedded > 0
    stats = service.stats()
    assert stats.sources == 3 and stats.chunks >= 3
    assert {s.doc_type for s in stats.per_source} >= {"manual", "notes"}

    second = service.index_paths([docs])
    assert set(_status(second).values()) == {"unchanged"}
    assert second.embedded == 0
    assert second.index_version == first.index_version  # nothing written, no version bump


def test_files_read_by_an_older_reading_are_read_again_and_their_vectors_reused(
    service: RagService, settings, docs: Path
) -> None:
    """An upgrade that reads files better (a PDF's wrapped bullets joined) reaches what
    was indexed before: a file recorded with an older ``READING_VERSION``, or by a version that recorded none, is read
    again however unchanged; its unchanged chunk texts keep their vectors."""
    import sqlite3

    from rag.ingest.prepare import READING_VERSION

    first = service.index_paths([docs])
    chunks = service.stats().chunks
    with sqlite3.connect(settings.storage / "manifest.sqlite3") as db:
        db.execute("UPDATE sources SET reading = ? WHERE source = ?", (READING_VERSION - 1, "docs/plain.txt"))
    again = service.index_paths([docs])
    assert _status(again)["docs/plain.txt"] == "updated"
    assert _status(again)["docs/tee_manual.md"] == _status(again)["docs/議事録.md"] == "unchanged"
    assert again.embedded == 0 and service.stats().chunks == chunks  # same text, same chunks: nothing embedded
    assert again.index_version != first.index_version
    assert set(_status(service.index_paths([docs])).values()) == {"unchanged"}
    with sqlite3.connect(settings.storage / "manifest.sqlite3") as db:  # an index written before versions existed
        db.execute("ALTER TABLE sources DROP COLUMN reading")
    reopened = RagService(settings, embedder=service.embedder)
    assert set(_status(reopened.index_paths([docs])).values()) == {"updated"}
    assert reopened.search("quarterly report")[0].chunk.source == "docs/plain.txt"


def test_changed_file_is_updated_and_only_its_new_chunks_embedded(service: RagService, docs: Path) -> None:
    service.index_paths([docs])
    (docs / "plain.txt").write_text("The annual audit happens every November in the Osaka office.\n")
    report = service.index_paths([docs])
    assert _status(report)["docs/plain.txt"] == "updated"
    assert _status(report)["docs/tee_manual.md"] == "unchanged"
    assert report.embedded == 1
    hits = service.search("annual audit Osaka", top_k=3)
    assert hits[0].chunk.source == "docs/plain.txt" and "Osaka" in hits[0].chunk.text
    assert all("quarterly" not in h.chunk.text for h in hits)  # the old text is gone everywhere
    assert service.check_consistency().ok


def test_file_removed_from_folder_leaves_no_orphans(service: RagService, docs: Path) -> None:
    service.index_paths([docs])
    (docs / "plain.txt").unlink()
    report = service.index_paths([docs])
    assert report.removed == ("docs/plain.txt",)
    assert "docs/plain.txt" not in service.sources()
    consistency = service.check_consistency()
    assert consistency.ok, consistency.message
    assert consistency.manifest_chunks == consistency.vector_chunks == consistency.keyword_chunks


def test_remove_sources_needs_a_known_name(service: RagService, docs: Path) -> None:
    service.index_paths([docs])
    with pytest.raises(SourceNotFoundError, match="nope.pdf"):
        service.remove_sources(["nope.pdf"])
    assert len(service.sources()) == 3  # nothing removed on error
    removed = service.remove_sources(["docs/議事録.md"])
    assert removed >= 1
    assert all(h.chunk.source != "docs/議事録.md" for h in service.search("リリース 担当", top_k=5))
    assert service.check_consistency().ok


def test_bad_files_fail_with_a_message_and_the_batch_goes_on(service: RagService, docs: Path) -> None:
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj <<>> garbage without end")
    (docs / "empty.txt").write_bytes(b"")
    report = service.index_paths([docs])
    status = _status(report)
    assert status["docs/broken.pdf"] == "failed" and status["docs/empty.txt"] == "failed"
    assert status["docs/tee_manual.md"] == "indexed"
    errors = {f.source: f.error for f in report.files}
    assert errors["docs/broken.pdf"] and errors["docs/empty.txt"]
    assert report.failed


def test_a_file_that_turns_corrupt_keeps_its_indexed_content(service: RagService, docs: Path) -> None:
    service.index_paths([docs])
    (docs / "plain.txt").write_bytes(b"\x00\x01\x02\xff\xfe" * 200)
    report = service.index_paths([docs])
    assert _status(report)["docs/plain.txt"] == "failed"
    assert any("quarterly report" in h.chunk.text for h in service.search("quarterly report", top_k=3))


def test_index_refuses_another_embedding_model(settings, minilm_embedder, docs: Path) -> None:
    RagService(settings, embedder=minilm_embedder).index_paths([docs])

    class Impostor:
        name = "other"
        fingerprint = "other@123"
        dimension = minilm_embedder.dimension
        embed_passages = staticmethod(minilm_embedder.embed_passages)
        embed_queries = staticmethod(minilm_embedder.embed_queries)

    with pytest.raises(ModelMismatchError, match="RAG_STORAGE_DIR"):
        RagService(settings, embedder=Impostor()).index_paths([docs])


def _run_python(code: str, env: dict[str, str], timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=REPO, text=True,
                          capture_output=True, timeout=timeout)  # fmt: skip


def _env(settings) -> dict[str, str]:
    return {**os.environ, "RAG_STORAGE_DIR": str(settings.storage), "RAG_MODEL_DIR": str(settings.models),
            "RAG_EMBEDDING_MODEL": settings.embedding_model}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("after", ["upsert", "delete"])
def test_kill_9_mid_write_is_recovered(settings, minilm_embedder, docs: Path, after: str) -> None:
    service = RagService(settings, embedder=minilm_embedder)
    service.index_paths([docs])
    (docs / "tee_manual.md").write_text(MANUAL.replace("TEE_Malloc allocates", "TEE_Malloc reserves"))
    killer = f"""
        import os, signal
        from rag.index.vector_store import ChromaStore
        real = ChromaStore.{after}
        def dying(self, *args, **kwargs):
            real(self, *args, **kwargs)
            os.kill(os.getpid(), signal.SIGKILL)
        ChromaStore.{after} = dying
        from rag.service import RagService
        RagService().index_paths([{str(docs)!r}])
    """
    crashed = _run_python(killer, _env(settings))
    assert crashed.returncode == -9, crashed.stderr
    after_crash = RagService(settings, embedder=minilm_embedder)
    report = after_crash.index_paths([docs])
    assert _status(report)["docs/tee_manual.md"] in ("updated", "unchanged")
    consistency = after_crash.check_consistency()
    assert consistency.ok, consistency.message
    texts = [c.text for c in after_crash.chunks_of("docs/tee_manual.md")]
    assert any("reserves" in t for t in texts) and not any("allocates a block" in t for t in texts)


@pytest.mark.slow
def test_two_processes_writing_at_once_both_land(settings, tmp_path: Path) -> None:
    folders = []
    for name in ("alpha", "beta"):
        folder = tmp_path / name
        folder.mkdir()
        for i in range(4):
            (folder / f"{name}_{i}.txt").write_text(f"{name} document {i}: the {name} team reviews item {i}.\n")
        folders.append(folder)
    code = (
        "import sys\nfrom rag.service import RagService\nr = RagService().index_paths([sys.argv[1]])\nprint(r.embedded)"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(f)], env=_env(settings), cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for f in folders]  # fmt: skip
    outputs = [p.communicate(timeout=240) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    service = RagService(settings)
    assert len(service.sources()) == 8
    assert service.check_consistency().ok


def test_cli_index_stats_remove_contract(settings, docs: Path) -> None:
    env = _env(settings)
    cli = [sys.executable, "-m", "rag"]
    indexed = subprocess.run([*cli, "index", str(docs), "--json"], env=env, cwd=REPO, capture_output=True, text=True)
    assert indexed.returncode == 0, indexed.stderr
    data = json.loads(indexed.stdout)
    assert set(data) >= {"files", "embedded", "index_version"}
    assert set(data["files"][0]) >= {"source", "status", "chunks", "error"}

    stats = json.loads(subprocess.run([*cli, "stats", "--json"], env=env, cwd=REPO, capture_output=True,
                                      text=True).stdout)  # fmt: skip
    assert set(stats) >= {"sources", "chunks", "pages", "index_version", "embedding_model", "per_source"}
    assert stats["sources"] == 3
    assert set(stats["per_source"][0]) >= {"source", "doc_type", "pages", "chunks", "status", "error"}

    refused = subprocess.run([*cli, "remove", "docs/plain.txt"], env=env, cwd=REPO, capture_output=True, text=True)
    assert refused.returncode != 0 and "--yes" in refused.stderr
    done = subprocess.run(
        [*cli, "remove", "docs/plain.txt", "--yes"], env=env, cwd=REPO, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    after = json.loads(subprocess.run([*cli, "stats", "--json"], env=env, cwd=REPO, capture_output=True,
                                      text=True).stdout)  # fmt: skip
    assert after["sources"] == 2


def test_cli_index_exit_code_1_when_a_file_fails(settings, docs: Path) -> None:
    (docs / "broken.pdf").write_bytes(b"not a pdf at all, just bytes \x00\x01")
    result = subprocess.run([sys.executable, "-m", "rag", "index", str(docs), "--json"], env=_env(settings),
                            cwd=REPO, capture_output=True, text=True)  # fmt: skip
    assert result.returncode == 1
    files = {f["source"]: f for f in json.loads(result.stdout)["files"]}
    assert files["docs/broken.pdf"]["status"] == "failed" and files["docs/broken.pdf"]["error"]
    assert files["docs/tee_manual.md"]["status"] == "indexed"


def test_chunk_length_stats_count_every_chunk_without_loading_them(service: RagService, docs: Path) -> None:
    assert service.chunk_length_stats().chunks == 0
    service.index_paths([docs])
    lengths = [len(c.text) for source in service.sources() for c in service.chunks_of(source)]
    stats = service.chunk_length_stats(bins=4)
    assert stats.chunks == len(lengths) == service.stats().chunks
    assert (stats.shortest, stats.longest) == (min(lengths), max(lengths))
    assert stats.mean == pytest.approx(sum(lengths) / len(lengths))
    assert 1 <= len(stats.bins) <= 4 and sum(b.count for b in stats.bins) == len(lengths)
    assert stats.bins[0].low == min(lengths) and stats.bins[-1].high == max(lengths)
    with pytest.raises(ValueError, match="bins"):
        service.chunk_length_stats(bins=0)
