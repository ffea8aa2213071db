"""Export a storage to one archive and import it into another: same hits, stores in agreement, no re-embedding;
another model, a storage in use, a damaged, truncated or foreign file are refused with nothing written.

Real Chroma, real BM25, the real packaged MiniLM (and e5 for the other model).
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from rag.cli import main
from rag.errors import BackupError
from rag.models.embedding import MINILM_OFFLINE
from rag.quiz.models import CitationRef, Quiz, QuizItem
from rag.service import RagService
from rag.settings import Settings

QUERIES = ("How is a session opened?", "TEE_Malloc memory", "暗号化モジュールの担当", "quarterly report deadline")


@pytest.fixture
def source(settings: Settings, minilm_embedder, tmp_path: Path) -> RagService:
    """An indexed storage with two documents and one saved quiz set."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "manual.md").write_text(
        "# TEE Client API\n\n## TEE_Malloc\nTEE_Malloc allocates memory inside the trusted application; free it "
        "with TEE_Free.\n\n## Sessions\nTEEC_OpenSession opens a session between the client and a trusted "
        "application. Close it with TEEC_CloseSession.\n",
        encoding="utf-8",
    )
    (docs / "議事録.md").write_text(
        "# 議事録\n\n来月のリリースでは暗号化モジュールの更新を優先する。担当は田中さんで、期限は三月末。\n\n"
        "The quarterly report is due on the fifth working day of each quarter.\n",
        encoding="utf-8",
    )
    service = RagService(settings, embedder=minilm_embedder)
    service.index_paths([docs])
    citation = CitationRef(source="docs/manual.md", quote="TEE_Malloc allocates memory")
    item = QuizItem(id="q1", statement="TEE_Malloc allocates memory.", answer_bool=True, explanation="",
                    citations=[citation])  # fmt: skip
    service.quizzes.save(Quiz(id="quiz-1", source="docs/manual.md", level="beginner", created_at="2026-11-23",
                              items=[item]))  # fmt: skip
    return service


def _elsewhere(tmp_path: Path, embedder, name: str = "restored") -> RagService:
    settings = Settings(storage_dir=tmp_path / name, model_dir=tmp_path, embedding_model=MINILM_OFFLINE)
    return RagService(settings, embedder=embedder)


def _ranked(service: RagService, query: str) -> list[tuple[str, int | None, int | None, float]]:
    return [(h.chunk.chunk_id, h.scores.dense_rank, h.scores.bm25_rank, round(h.score, 5))
            for h in service.search(query)]  # fmt: skip


def test_an_imported_archive_answers_searches_as_the_original_did(
    source: RagService, minilm_embedder, tmp_path: Path
) -> None:
    archive = tmp_path / "backup.zip"
    exported = source.export_base(archive)
    assert (exported.sources, exported.chunks, exported.quizzes) == (2, source.stats().chunks, 1)
    assert exported.embedding_model == minilm_embedder.fingerprint and exported.dimension == minilm_embedder.dimension
    assert exported.bytes == archive.stat().st_size > 0

    class NoEmbedding:  # the model stays configured; asking it to embed anything fails the test
        name, fingerprint, dimension = minilm_embedder.name, minilm_embedder.fingerprint, minilm_embedder.dimension

        def embed_passages(self, texts):  # type: ignore[no-untyped-def]
            raise AssertionError(f"import embedded {len(texts)} passage(s)")

        embed_queries = minilm_embedder.embed_queries

    restored = _elsewhere(tmp_path, NoEmbedding())
    imported = restored.import_base(archive)

    assert (imported.sources, imported.chunks, imported.quizzes) == (2, exported.chunks, 1)
    assert imported.warnings == ()
    check = restored.check_consistency()
    assert check.ok and check.manifest_chunks == check.vector_chunks == check.keyword_chunks == exported.chunks
    for query in QUERIES:
        assert _ranked(restored, query) == _ranked(source, query), query
    assert restored.sources() == source.sources()
    assert [s.chunks for s in restored.stats().per_source] == [s.chunks for s in source.stats().per_source]
    history = restored.version_history()
    assert history[0].action == "import" and "backup.zip" in history[0].detail
    assert [h.index_version for h in history[1:]] == [h.index_version for h in source.version_history()]
    assert restored.quiz("quiz-1") == source.quiz("quiz-1")
    # the restored storage is an ordinary index: it takes new files and re-checks as consistent
    (tmp_path / "more.txt").write_text("A later note about TEEC_CloseSession timeouts.", encoding="utf-8")
    restored = _elsewhere(tmp_path, minilm_embedder)
    assert restored.index_paths([tmp_path / "more.txt"]).files[0].status == "indexed"
    assert restored.check_consistency().ok


def test_an_archive_imports_into_a_storage_whose_vectors_live_on_a_chroma_run_server(
    source: RagService, minilm_embedder, server_settings: Settings, tmp_path: Path
) -> None:
    archive = tmp_path / "backup.zip"
    exported = source.export_base(archive)
    team = RagService(replace(server_settings, storage_dir=tmp_path / "team"), embedder=minilm_embedder)

    imported = team.import_base(archive)

    assert (imported.sources, imported.chunks) == (2, exported.chunks)
    check = team.check_consistency()
    assert check.ok and check.vector_chunks == exported.chunks  # the vectors are on the server
    for query in QUERIES:
        assert [h.chunk.chunk_id for h in team.search(query)] == [h.chunk.chunk_id for h in source.search(query)]


def test_another_embedding_model_is_refused_naming_both(source: RagService, e5_embedder, tmp_path: Path) -> None:
    archive = tmp_path / "backup.zip"
    source.export_base(archive)
    other = _elsewhere(tmp_path, e5_embedder)
    with pytest.raises(BackupError) as refused:
        other.import_base(archive)
    message = str(refused.value)
    assert source.stats().embedding_model in message and e5_embedder.fingerprint in message
    assert f"RAG_EMBEDDING_MODEL={MINILM_OFFLINE}" in message
    assert other.stats().chunks == 0 and other.index.vectors.count() == 0 and other.quiz_sets() == []


def test_a_storage_that_holds_an_index_is_refused_and_kept(source: RagService, tmp_path: Path) -> None:
    archive = tmp_path / "backup.zip"
    source.export_base(archive)
    before = (source.stats(), source.index.vectors.count(), source.version_history())
    with pytest.raises(BackupError, match="already holds 2 source"):
        source.import_base(archive)
    assert (source.stats(), source.index.vectors.count(), source.version_history()) == before


def _damaged(archive: Path, how: str) -> Path:
    data = bytearray(archive.read_bytes())
    if how == "truncated":
        data = data[: len(data) // 2]
    elif how == "flipped":  # one byte inside the chunk rows: the zip's CRC no longer matches
        with zipfile.ZipFile(archive) as zf:
            info = zf.getinfo("manifest/chunks.jsonl")
        at = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + info.compress_size // 2
        data[at] ^= 0xFF
    out = archive.with_name(f"{how}.zip")
    out.write_bytes(bytes(data))
    return out


@pytest.mark.parametrize("how", ["truncated", "flipped"])
def test_a_damaged_archive_is_refused_with_nothing_written(
    source: RagService, minilm_embedder, tmp_path: Path, how: str
) -> None:
    archive = tmp_path / "backup.zip"
    source.export_base(archive)
    target = _elsewhere(tmp_path, minilm_embedder)
    with pytest.raises(BackupError, match="Nothing was imported"):
        target.import_base(_damaged(archive, how))
    assert target.stats().chunks == 0 and target.index.vectors.count() == 0 and target.quiz_sets() == []
    assert target.import_base(archive).chunks == source.stats().chunks  # the intact file still imports there


def test_a_foreign_zip_and_a_hostile_quiz_name_are_not_followed(
    source: RagService, minilm_embedder, tmp_path: Path
) -> None:
    foreign = tmp_path / "photos.zip"
    with zipfile.ZipFile(foreign, "w") as zf:
        zf.writestr("IMG_0001.jpg", b"\xff\xd8 not a backup")
    target = _elsewhere(tmp_path, minilm_embedder)
    with pytest.raises(BackupError, match="not an archive made by `python -m rag export`"):
        target.import_base(foreign)

    archive = tmp_path / "backup.zip"
    source.export_base(archive)
    with zipfile.ZipFile(archive, "a") as zf:
        zf.writestr("quizzes/../../escaped.json", "{}")
    target.import_base(archive)
    assert not list(tmp_path.rglob("escaped.json"))
    assert [q.id for q in target.quiz_sets()] == ["quiz-1"]


def test_export_refuses_a_chroma_that_lacks_listed_vectors_and_leaves_no_file(
    source: RagService, tmp_path: Path
) -> None:
    some_id = next(iter(source.index.manifest.all_chunk_ids()))
    source.index.vectors.delete([some_id])
    archive = tmp_path / "backup.zip"
    with pytest.raises(BackupError, match="check --repair"):
        source.export_base(archive)
    assert list(tmp_path.glob("*backup.zip*")) == []
    source.repair_consistency()
    assert source.export_base(archive).chunks == source.stats().chunks


def test_settings_that_differ_are_reported_as_what_they_change(
    source: RagService, minilm_embedder, tmp_path: Path
) -> None:
    archive = tmp_path / "backup.zip"
    source.export_base(archive)
    target = _elsewhere(tmp_path, minilm_embedder)
    target = RagService(replace(target.settings, bm25_k1=1.2, chunk_size=500), embedder=minilm_embedder)
    warnings = " ".join(target.import_base(archive).warnings)
    assert "bm25_k1=1.2" in warnings and "chunk_size" in warnings
    assert target.check_consistency().ok


def test_the_command_line_exports_and_imports_with_json(
    source: RagService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RAG_MODEL_DIR", str(source.settings.models))
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", MINILM_OFFLINE)
    monkeypatch.setenv("RAG_STORAGE_DIR", str(source.settings.storage))
    archive = tmp_path / "cli.zip"
    assert main(["export", str(archive), "--json"]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported["chunks"] == source.stats().chunks and exported["path"] == str(archive)

    monkeypatch.setenv("RAG_STORAGE_DIR", str(tmp_path / "cli-restored"))
    assert main(["import", str(archive), "--json"]) == 0
    imported = json.loads(capsys.readouterr().out)
    assert {k: imported[k] for k in ("sources", "chunks", "quizzes", "embedding_model", "dimension")} == {
        k: exported[k] for k in ("sources", "chunks", "quizzes", "embedding_model", "dimension")
    }
    assert main(["check"]) == 0
    assert main(["import", str(archive)]) == 1  # now it holds an index
    assert "already holds" in capsys.readouterr().err
