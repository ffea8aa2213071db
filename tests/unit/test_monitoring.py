"""Monitoring: every search and answer through the facade leaves one row; the figures come out of known rows;
``stats --json`` gains a ``monitoring`` block; a broken log never breaks a search.

Real searches on a small real index (Chroma, BM25, the packaged MiniLM) and the extractive backend.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from rag.cli import main
from rag.llm.extractive_backend import ExtractiveBackend
from rag.models.embedding import MINILM_OFFLINE
from rag.monitoring.query_log import FILE_NAME, QueryLog
from rag.monitoring.summary import summarize
from rag.records import QueryEvent, SearchFilters
from rag.service import RagService
from tests.scripted_llm import ScriptedLLM

HOUR = 3600.0
T0 = 1_790_000_000.0 - 1_790_000_000.0 % HOUR  # the start of a clock hour


@pytest.fixture
def service(settings, minilm_embedder, tmp_path: Path) -> RagService:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "manual.md").write_text(
        "# Sessions\nTEEC_OpenSession opens a session with a trusted application; TEEC_CloseSession closes it.\n\n"
        "# Memory\nTEE_Malloc allocates memory inside the trusted application.\n",
        encoding="utf-8",
    )
    svc = RagService(settings, embedder=minilm_embedder, llm=ExtractiveBackend())
    svc.index_paths([docs])
    return svc


def _stages(event: QueryEvent) -> dict[str, float]:
    return dict(event.stages_ms)


def test_searches_and_answers_each_leave_one_row_with_their_stages(service: RagService) -> None:
    hits = service.search("How is a session opened?")
    service.search("TEEC_OpenSession", semantic_weight=0.0)  # BM25 only: no query embedding, no dense search
    service.search("session", filters=SearchFilters(sources=("docs/absent.md",)))  # nothing passes the filter
    answer = service.ask("How do I open a session?")

    events = service.query_log.events()
    assert [e.kind for e in events] == ["search", "search", "search", "answer"]
    first, bm25_only, filtered, answered = events
    assert {"embed", "dense", "bm25", "fusion", "total"} <= set(_stages(first))
    assert first.hits == len(hits) > 0 and first.top_score == pytest.approx(hits[0].score)
    assert not first.no_basis and first.backend == ""
    assert "embed" not in _stages(bm25_only) and "dense" not in _stages(bm25_only)
    assert filtered.hits == 0 and filtered.top_score is None and filtered.no_basis
    assert {"embed", "dense", "bm25", "context", "check", "total"} <= set(_stages(answered))
    assert answered.backend == answer.backend == "extractive" and answered.no_basis == answer.no_basis
    for event in events:
        stages = _stages(event)
        assert all(ms >= 0 for ms in stages.values())
        assert stages["total"] >= max((ms for stage, ms in stages.items() if stage != "total"), default=0.0)
    stored = sqlite3.connect(service.settings.storage / FILE_NAME).execute("SELECT * FROM events").fetchall()
    assert not any("session" in str(value).lower() for row in stored for value in row)  # no question text kept


def test_a_streamed_answer_records_the_wait_for_its_first_words_and_its_backend(
    settings, minilm_embedder, service: RagService
) -> None:
    llm = ScriptedLLM(["TEEC_OpenSession opens a session with a trusted application [1]."], piece_chars=4)
    streamed = RagService(settings, embedder=minilm_embedder, llm=llm)
    draft = streamed.prepare_answer("How is a session opened?")
    shown = "".join(draft.stream())
    answer = draft.finish()
    assert shown and len(llm.calls) == 1
    (event,) = streamed.query_log.events()
    stages = _stages(event)
    assert {"context", "first_token", "generate", "check"} <= set(stages)
    assert stages["first_token"] <= stages["generate"] <= stages["total"]
    assert event.backend == answer.backend == "scripted" and not event.no_basis


def test_an_answer_finished_twice_is_one_row_and_an_evaluation_leaves_none(service: RagService, tmp_path) -> None:
    draft = service.prepare_answer("What does TEE_Malloc do?")
    draft.finish()
    draft.finish()
    golden = tmp_path / "golden.jsonl"
    golden.write_text(json.dumps({"question": "What opens a session?", "expected_sources": ["docs/manual.md"]}) + "\n")
    service.evaluate(golden)
    assert [e.kind for e in service.query_log.events()] == ["answer"]


def test_a_broken_log_costs_the_row_never_the_search(service: RagService, caplog) -> None:
    (service.settings.storage / FILE_NAME).mkdir()  # a folder where the SQLite file should be
    assert service.search("session")
    assert "Could not record a search" in caplog.text


def test_monitoring_off_records_nothing(settings, minilm_embedder, service: RagService) -> None:
    from dataclasses import replace

    quiet = RagService(replace(settings, monitoring=False), embedder=minilm_embedder)
    quiet.search("session")
    assert quiet.query_log.events() == []


def _event(at: float, kind: str = "search", total: float = 10.0, hits: int = 3, no_basis: bool = False) -> QueryEvent:
    return QueryEvent(at, kind, (("bm25", 1.0), ("total", total)), hits, 0.5 if hits else None, no_basis,  # type: ignore[arg-type]
                      "extractive" if kind == "answer" else "")  # fmt: skip


def test_the_figures_come_out_of_known_rows() -> None:
    events = [
        _event(T0 + 60, total=10.0),
        _event(T0 + 120, total=20.0, hits=0, no_basis=True),
        _event(T0 + 180, "answer", total=30.0),
        _event(T0 + 2 * HOUR + 5, "answer", total=40.0, no_basis=True),
        _event(T0 + 2 * HOUR + 9, total=100.0),
        _event(T0 - 10 * HOUR, total=5000.0),  # before the window: left out
    ]
    summary = summarize(events, since=T0, now=T0 + 3 * HOUR + 1)
    assert (summary.searches, summary.answers) == (3, 2)
    total = next(s for s in summary.stages if s.stage == "total")
    assert (total.count, total.p50_ms, total.p95_ms) == (5, 30.0, 88.0)  # 95th: 40 + 0.8 * (100 - 40)
    assert [s.stage for s in summary.stages] == ["bm25", "total"]  # the stages that ran, in running order
    assert summary.hit_ratio == pytest.approx(4 / 5) and summary.no_basis_ratio == pytest.approx(2 / 5)
    assert [(h.searches, h.answers) for h in summary.by_hour] == [(2, 1), (0, 0), (1, 1), (0, 0)]
    assert summary.by_hour[0].hour.endswith(":00Z") and summary.backends == (("extractive", 2),)
    empty = summarize([], since=T0, now=T0 + HOUR)
    assert empty.hit_ratio is None and empty.no_basis_ratio is None and empty.by_hour == () and empty.stages == ()


def test_rows_from_many_threads_are_all_kept(tmp_path: Path) -> None:
    log = QueryLog(tmp_path / FILE_NAME)
    threads = [threading.Thread(target=lambda: [log.record(_event(T0 + i)) for i in range(25)]) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(log.events()) == 100


def test_rows_older_than_the_kept_days_are_deleted_as_new_ones_come_in(tmp_path: Path) -> None:
    now = time.time()
    log = QueryLog(tmp_path / FILE_NAME, keep_days=90)
    for days_ago in (400, 120, 91):
        QueryLog(tmp_path / FILE_NAME).record(_event(now - days_ago * 86400))  # written by a log that keeps all
    log.record(_event(now - 89 * 86400))
    log.record(_event(now))
    assert [round((now - e.at) / 86400) for e in log.events()] == [89, 0]


def _command_line_on(service: RagService, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point ``python -m rag`` (``main``) at the service's storage and model."""
    monkeypatch.setenv("RAG_STORAGE_DIR", str(service.settings.storage))
    monkeypatch.setenv("RAG_MODEL_DIR", str(service.settings.models))
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", MINILM_OFFLINE)


def test_stats_json_keeps_its_keys_and_gains_a_monitoring_block(
    service: RagService, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _command_line_on(service, monkeypatch)
    assert main(["search", "session opened", "--json"]) == 0
    assert main(["search", "TEE_Malloc", "--json"]) == 0
    capsys.readouterr()
    assert main(["stats", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"sources", "chunks", "pages", "index_version", "embedding_model", "per_source"} <= set(data)
    block = data["monitoring"]
    assert (block["searches"], block["answers"], block["hit_ratio"], block["no_basis_ratio"]) == (2, 0, 1.0, 0.0)
    assert {"embed", "dense", "bm25", "fusion", "total"} <= set(block["stages_ms"])
    assert block["stages_ms"]["total"]["count"] == 2
    assert block["stages_ms"]["total"]["p95"] >= block["stages_ms"]["total"]["p50"] > 0
    assert sum(h["searches"] for h in block["by_hour"]) == 2


def test_stats_prints_the_figures_and_survives_an_unreadable_log(
    service: RagService, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _command_line_on(service, monkeypatch)
    service.search("session opened")
    assert main(["stats"]) == 0
    assert "last 7 days: 1 searches, 0 answers; total p50" in capsys.readouterr().out

    (service.settings.storage / FILE_NAME).write_bytes(b"not a database, " * 256)
    for suffix in ("-wal", "-shm"):
        (service.settings.storage / f"{FILE_NAME}{suffix}").unlink(missing_ok=True)
    assert main(["stats", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["chunks"] > 0 and "Move the file away" in data["monitoring"]["error"]
