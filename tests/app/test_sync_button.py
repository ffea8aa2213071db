"""The upload page's "Update index" button over a real log archive and live folder, driven through AppTest."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_driver import APP, RUN_TIMEOUT, ok, texts
from streamlit.testing.v1 import AppTest


@pytest.fixture
def logs(tmp_path: Path, storage: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    archive, knowledge = tmp_path / "archive", tmp_path / "knowledge"
    archive.mkdir()
    knowledge.mkdir()
    (archive / "2024-05-01.txt").write_text("alice: the backup job failed, the disk was full.\n", encoding="utf-8")
    (archive / "2024-05-02.txt").write_text("bob: 新しい社員証は受付で受け取れます。\n", encoding="utf-8")
    (knowledge / "vpn.md").write_text("# VPN\n\nUpdate the VPN client to version 5 before June.\n", encoding="utf-8")
    monkeypatch.setenv("RAG_ARCHIVE_DIR", str(archive))
    monkeypatch.setenv("RAG_LIVE_DIRS", str(knowledge))
    return {"archive": archive, "knowledge": knowledge}


def test_update_index_shows_what_it_did_and_warns_about_a_changed_archive_log(logs: dict[str, Path]) -> None:
    at = ok(AppTest.from_file(str(APP), default_timeout=RUN_TIMEOUT).run())
    at.radio(key="sidebar_lang").set_value("en")
    ok(at.run())
    assert str(logs["archive"]) in texts(at)  # says what it will read
    at.button(key="upload_sync").click()
    ok(at.run())
    assert "archive 2 new · 0 already indexed — live 1 read again" in at.main.success[0].value

    (logs["archive"] / "2024-05-03.txt").write_text("carol: the printer needs toner.\n", encoding="utf-8")
    (logs["archive"] / "2024-05-01.txt").write_text("alice: rewritten afterwards.\n", encoding="utf-8")
    (logs["knowledge"] / "vpn.md").unlink()
    at.button(key="upload_sync").click()
    ok(at.run())
    warnings = [w.value for w in at.main.warning]
    assert any("archive 1 new · 1 already indexed" in w and "1 removed" in w for w in warnings)
    assert any("changed after they were indexed" in w and "2024" in w for w in warnings)
    assert not at.main.error


def test_update_index_is_off_until_an_archive_or_live_set_is_configured(storage: Path) -> None:
    at = ok(AppTest.from_file(str(APP), default_timeout=RUN_TIMEOUT).run())
    assert at.button(key="upload_sync").disabled
    assert any("RAG_ARCHIVE_DIR" in i.value for i in at.main.info)
