"""Conversation-log archives: real temp folders of .txt logs, real Chroma, the real packaged MiniLM model.

What a person notices: a new log is searchable after one sync and nothing else is embedded again; a changed archive
log is reported and keeps its old chunks; an edit or a deletion in the live set shows in the very next search.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from rag.cli import main
from rag.errors import ConfigError
from rag.models.embedding import Embedder
from rag.service import RagService
from rag.settings import Settings
from tests.embedder_probe import ProbeEmbedder

TOPICS = [
    "The backup job failed because the disk on the build server was full.",
    "新しい社員証は受付で月曜日から受け取れます。",
    "The printer on the third floor needs a new toner cartridge.",
    "会議室Bのプロジェクターが映らない件は、ケーブル交換で解決しました。",
    "Deploys on Friday afternoon are frozen until the end of the quarter.",
]


def _log(day: int, topic: str) -> str:
    return f"[2024-05-{day:02d} 09:00] alice: {topic}\n[2024-05-{day:02d} 09:05] bob: noted, thanks.\n"


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    archive, knowledge = tmp_path / "archive", tmp_path / "knowledge"
    archive.mkdir()
    knowledge.mkdir()
    for day, topic in enumerate(TOPICS[:3], start=1):
        (archive / f"2024-05-{day:02d}.txt").write_text(_log(day, topic), encoding="utf-8")
    (knowledge / "wifi.md").write_text("# Wi-Fi\n\nThe guest Wi-Fi password is printed at reception.\n")
    (knowledge / "vpn.md").write_text("# VPN\n\nThe VPN client must be updated to version 5 before June.\n")
    live_log = tmp_path / "current.txt"
    live_log.write_text(_log(20, "The coffee machine in the kitchen is being repaired today."), encoding="utf-8")
    return {"archive": archive, "knowledge": knowledge, "live_log": live_log}


@pytest.fixture
def counting(minilm_embedder: Embedder) -> ProbeEmbedder:
    return ProbeEmbedder(minilm_embedder)


@pytest.fixture
def service(settings: Settings, layout: dict[str, Path], counting: ProbeEmbedder) -> RagService:
    synced = replace(settings, archive_dir=layout["archive"], live_dirs=(str(layout["knowledge"]),),
                     live_log=layout["live_log"])  # fmt: skip
    return RagService(synced, embedder=counting)  # type: ignore[arg-type]


def _top_sources(service: RagService, query: str, k: int = 3) -> list[str]:
    return [h.chunk.source for h in service.search(query, top_k=k)]


def test_first_sync_indexes_archive_and_live_set_and_one_search_covers_both(service: RagService) -> None:
    report = service.sync()
    assert sorted(report.archive_indexed) == ["archive/2024-05-01.txt", "archive/2024-05-02.txt",
                                              "archive/2024-05-03.txt"]  # fmt: skip
    assert sorted(report.live_rebuilt) == ["current.txt", "knowledge/vpn.md", "knowledge/wifi.md"]
    assert report.embedded > 0 and not report.has_warnings
    assert _top_sources(service, "backup failed disk full build server")[0] == "archive/2024-05-01.txt"
    assert _top_sources(service, "coffee machine kitchen repaired")[0] == "current.txt"
    assert set(report.phase_seconds) == {"scan", "write", "total"}


def test_a_new_archive_log_is_the_only_thing_embedded(
    service: RagService, layout: dict[str, Path], counting: ProbeEmbedder
) -> None:
    service.sync()
    counting.reset()
    (layout["archive"] / "2024-05-04.txt").write_text(_log(4, TOPICS[3]), encoding="utf-8")
    report = service.sync()
    assert report.archive_indexed == ("archive/2024-05-04.txt",)
    assert report.archive_unchanged == 3
    assert report.live_rebuilt == () and report.live_unchanged == 3
    assert counting.passages and all("プロジェクター" in p for p in counting.passages)
    assert _top_sources(service, "会議室Bのプロジェクター")[0] == "archive/2024-05-04.txt"

    counting.reset()
    again = service.sync()  # nothing new: nothing read, nothing embedded, no new index version
    assert (again.archive_indexed, again.embedded, counting.passages) == ((), 0, [])
    assert again.index_version == report.index_version


def test_a_changed_archive_log_is_reported_and_keeps_its_old_chunks(
    service: RagService, layout: dict[str, Path], counting: ProbeEmbedder
) -> None:
    service.sync()
    counting.reset()
    (layout["archive"] / "2024-05-02.txt").write_text(_log(2, "Rewritten: the canteen closes early."), "utf-8")
    report = service.sync()
    assert report.archive_changed == ("archive/2024-05-02.txt",) and report.has_warnings
    assert report.embedded == 0 and counting.passages == []
    old = [c.text for c in service.chunks_of("archive/2024-05-02.txt")]
    assert any("社員証" in text for text in old) and not any("canteen" in text for text in old)
    assert service.sync().archive_changed == ("archive/2024-05-02.txt",)  # still reported, every time


def test_a_touched_archive_log_with_the_same_content_is_not_reported(
    service: RagService, layout: dict[str, Path]
) -> None:
    service.sync()
    path = layout["archive"] / "2024-05-03.txt"
    os.utime(path, (path.stat().st_atime + 60, path.stat().st_mtime + 60))
    report = service.sync()
    assert report.archive_changed == () and report.archive_unchanged == 3


def test_live_edits_and_deletions_show_in_the_next_search(
    service: RagService, layout: dict[str, Path], counting: ProbeEmbedder
) -> None:
    service.sync()
    vpn = layout["knowledge"] / "vpn.md"
    stat = vpn.stat()
    # same length and the old mtime put back: only the content tells the edit
    vpn.write_text(vpn.read_text().replace("version 5 before June", "version 7 before July"))
    os.utime(vpn, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    (layout["knowledge"] / "wifi.md").unlink()
    counting.reset()
    report = service.sync()
    assert report.live_rebuilt == ("knowledge/vpn.md",)
    assert report.live_removed == ("knowledge/wifi.md",)
    assert all("version 7" in p for p in counting.passages)  # the unchanged files cost no embedding
    hits = service.search("VPN client version", top_k=5)
    assert "version 7 before July" in hits[0].chunk.text
    assert not any("version 5" in h.chunk.text for h in hits)
    assert "knowledge/wifi.md" not in service.sources()


def test_a_rotated_current_log_leaves_the_live_set_and_joins_the_archive(
    service: RagService, layout: dict[str, Path]
) -> None:
    service.sync()
    live_log = layout["live_log"]
    live_log.rename(layout["archive"] / "2024-05-20.txt")
    report = service.sync()
    assert report.archive_indexed == ("archive/2024-05-20.txt",)
    assert report.live_removed == ("current.txt",)
    assert [h.chunk.source for h in service.search("coffee machine kitchen", top_k=5)].count("current.txt") == 0


def test_sync_without_an_archive_or_live_set_says_what_to_set(settings: Settings, minilm_embedder: Embedder) -> None:
    with pytest.raises(ConfigError, match="RAG_ARCHIVE_DIR"):
        RagService(settings, embedder=minilm_embedder).sync()


def test_cli_sync_reports_a_changed_archive_file(
    layout: dict[str, Path], settings: Settings, models_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    for name, value in {
        "RAG_STORAGE_DIR": settings.storage_dir,
        "RAG_MODEL_DIR": models_dir,
        "RAG_EMBEDDING_MODEL": settings.embedding_model,
        "RAG_ARCHIVE_DIR": layout["archive"],
    }.items():
        monkeypatch.setenv(name, str(value))  # fmt: skip
    assert main(["sync", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert len(first["archive_indexed"]) == 3 and first["archive_changed"] == []
    (layout["archive"] / "2024-05-01.txt").write_text("changed afterwards", encoding="utf-8")
    assert main(["sync"]) == 0
    out, err = capsys.readouterr()
    assert "0 new indexed, 2 unchanged skipped" in out
    assert "archive file changed since it was indexed" in err and "archive/2024-05-01.txt" in err
