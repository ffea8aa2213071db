"""Example libraries: a generated JSONL of a few hundred annotated positions (Japanese and English) built into a
base with a field mapping and compaction, then ``similar`` for few-shot prompts; build progress and resume.

Real Chroma; the real multilingual-e5-small for what is found, MiniLM where only the mechanics matter; a real
``python -m rag index`` child process killed with SIGKILL for the resume.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.cli import main
from rag.errors import ConfigError
from rag.models.embedding import MINILM_OFFLINE, Embedder
from rag.records import IndexProgress
from rag.service import RagService
from rag.settings import Settings
from tests.crash_driver import IndexRunner, cli_env
from tests.embedder_probe import ProbeEmbedder
from tests.records_maker import CUT_MARKER, feature_lines, library_env, write_library

RECORDS = 240


def _library_settings(storage: Path, models: Path, model: str, **extra: str) -> Settings:
    return Settings.from_env({**library_env(), **extra}, storage_dir=storage, model_dir=models, embedding_model=model)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory, e5_embedder: Embedder, models_dir: Path):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("library")
    records = write_library(root / "positions.jsonl", RECORDS)
    settings = _library_settings(root / "storage", models_dir, e5_embedder.name)
    service = RagService(settings, embedder=e5_embedder)
    events: list[IndexProgress] = []
    report = service.index_paths([root / "positions.jsonl"], progress=events.append)
    return service, records, report, events


def test_each_record_is_one_chunk_of_its_compacted_features(library) -> None:  # type: ignore[no-untyped-def]
    service, records, report, _ = library
    assert report.files[0].status == "indexed" and report.files[0].chunks == RECORDS
    chunks = service.chunks_of("positions.jsonl")
    first = chunks[0]
    assert first.text == "\n".join(feature_lines(records[0]))  # cut at the marker, noise lines dropped
    assert CUT_MARKER not in first.text and "手数" not in first.text
    assert all(len(c.text) <= 400 for c in chunks)


@pytest.mark.parametrize("n", [10, 11, 200, 201])  # Japanese (even) and English (odd) records
def test_similar_returns_the_nearest_record_with_its_shown_fields(library, n: int) -> None:  # type: ignore[no-untyped-def]
    service, records, _, _ = library
    features = feature_lines(records[n])
    query = "\n".join(features[1:][::-1])  # one feature left out, the others in another order
    found = service.similar(query, top_k=3)
    assert [r.rank for r in found] == [1, 2, 3]
    best = found[0]
    assert best.shown == {"id": records[n]["id"], "commentary": records[n]["commentary"]}
    assert best.metadata == {"id": records[n]["id"], "lang": records[n]["lang"]}
    assert best.record_no == n + 1 and best.score >= found[1].score
    assert len({r.record_no for r in found}) == 3  # each record once


def test_similar_from_the_command_line_reads_a_file(library, tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    service, records, _, _ = library
    for name, value in {
        **library_env(),
        "RAG_STORAGE_DIR": str(service.settings.storage_dir),
        "RAG_MODEL_DIR": str(service.settings.model_dir),
        "RAG_EMBEDDING_MODEL": service.settings.embedding_model,
    }.items():
        monkeypatch.setenv(name, value)  # fmt: skip
    position = tmp_path / "position.txt"
    position.write_text("\n".join(feature_lines(records[7])), encoding="utf-8")
    assert main(["similar", "--file", str(position), "--top-k", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["records"][0]["shown"]["commentary"] == records[7]["commentary"]
    assert set(data["records"][0]) >= {"rank", "score", "source", "record_no", "text", "shown", "metadata"}
    assert main(["similar"]) == 2  # neither a text nor --file


def test_the_build_shows_count_elapsed_and_time_left(
    tmp_path: Path, minilm_embedder: Embedder, models_dir: Path
) -> None:
    write_library(tmp_path / "positions.jsonl", 300)
    settings = _library_settings(tmp_path / "storage", models_dir, MINILM_OFFLINE, RAG_INDEX_SLICE_CHUNKS="50")
    events: list[IndexProgress] = []
    RagService(settings, embedder=minilm_embedder).index_paths([tmp_path / "positions.jsonl"], progress=events.append)
    slices = [e for e in events if "chunks committed" in e.current]
    assert [e.current.split("(")[1].split(" chunks")[0] for e in slices] == ["50", "100", "150", "200", "250", "300"]
    assert all(e.eta_s is not None for e in slices[1:-1]) and slices[-1].eta_s == pytest.approx(0.0, abs=0.5)
    assert slices[1].eta_s > slices[-2].eta_s  # type: ignore[operator]
    assert slices[-1].elapsed_s > slices[0].elapsed_s


def test_a_keep_lines_pattern_that_is_not_a_regex_is_refused_with_the_reason() -> None:
    with pytest.raises(ConfigError, match="json_keep_lines"):
        Settings.from_env({"RAG_JSON_KEEP_LINES": "(戦型"})


@pytest.mark.slow
def test_an_interrupted_build_resumes_without_embedding_finished_records(
    tmp_path: Path, minilm_embedder: Embedder, models_dir: Path
) -> None:
    library_file = tmp_path / "positions.jsonl"
    write_library(library_file, 300)
    storage = tmp_path / "storage"
    env = {**cli_env(storage, models_dir, MINILM_OFFLINE), **library_env(), "RAG_INDEX_SLICE_CHUNKS": "50"}
    # killed right after the third slice reached Chroma: two slices (100 records) are committed
    assert IndexRunner().run([library_file], env, crash_at="chroma@3") == -9
    settings = _library_settings(storage, models_dir, MINILM_OFFLINE, RAG_INDEX_SLICE_CHUNKS="50")
    counting = ProbeEmbedder(minilm_embedder)
    service = RagService(settings, embedder=counting)  # type: ignore[arg-type]
    assert service.stats().per_source[0].status == "partial"
    report = service.index_paths([library_file])
    assert report.files[0].status == "indexed" and report.files[0].chunks == 300
    assert len(counting.passages) == 200 and report.embedded == 200  # the 100 committed records are not embedded again
    assert service.check_consistency().ok
