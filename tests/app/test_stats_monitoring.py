"""Stats page: the monitoring section after a search and an answer; export offered as a download; an archive
uploaded into an empty storage restores the index."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import streamlit as st
from app_driver import APP, RUN_TIMEOUT, index_folder, ok, texts
from streamlit.testing.v1 import AppTest

from rag.service import RagService
from rag.settings import Settings


def stats_page(at: AppTest) -> AppTest:
    at.switch_page("app_pages/index_stats.py")
    return ok(at.run())


def test_the_stats_page_shows_monitoring_after_a_search_and_an_answer(app: AppTest, spec_pdf: Path) -> None:
    stats_page(app)
    assert "まだ検索も質問もありません。" in texts(app)

    index_folder(app, spec_pdf.parent)
    app.switch_page("app_pages/search.py").run()
    app.text_input(key="search_query").set_value("TEE_Malloc メモリ 確保")
    app.button(key="search_submit").click()
    ok(app.run())
    app.switch_page("app_pages/ask.py").run()
    app.chat_input(key="qa_input").set_value("TEE_Mallocは何をする関数ですか?")
    ok(app.run())

    stats_page(app)
    assert "利用状況のモニタリング" in [h.value for h in app.subheader]
    metrics = {m.label: m.value for m in app.metric}
    assert int(metrics["検索"]) >= 1 and metrics["回答"] == "1"  # the search page may compare modes: several
    assert metrics["ヒット率"] == "100%" and metrics["根拠なし率"] == "0%"
    stages = next(d.value for d in app.dataframe if "段階" in d.value.columns)
    assert {"クエリ埋め込み", "BM25", "文脈と根拠", "全体"} <= set(stages["段階"])
    total = stages.loc[stages["段階"] == "全体"].iloc[0]
    assert total["p95 (ms)"] >= total["p50 (ms)"] > 0
    assert "時間帯別の質問数 (UTC)" in texts(app)
    assert "回答したバックエンド: extractive 1" in texts(app)


def test_export_is_offered_as_a_download_and_an_uploaded_archive_restores_the_index(
    app: AppTest, spec_pdf: Path, storage: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_folder(app, spec_pdf.parent)
    stats_page(app)
    app.button(key="stats_export_prepare").click()
    ok(app.run())
    assert [b.key for b in app.download_button] == ["stats_export_download"]
    chunks = {m.label: m.value for m in app.metric}["チャンク"]
    assert f"1 ソース、{chunks} チャンク" in texts(app)

    archive = tmp_path / "backup.zip"
    RagService(Settings.from_env(dict(os.environ))).export_base(archive)  # the file the button offers
    monkeypatch.setenv("RAG_STORAGE_DIR", str(tmp_path / "restored"))
    st.cache_resource.clear()
    fresh = stats_page(ok(AppTest.from_file(str(APP), default_timeout=RUN_TIMEOUT).run()))
    fresh.file_uploader(key="stats_import_file").set_value([("backup.zip", archive.read_bytes(), "application/zip")])
    ok(fresh.run())
    fresh.button(key="stats_import_run").click()
    ok(fresh.run())
    assert f"1 ソース、{chunks} チャンク" in texts(fresh)
    stats_page(fresh)
    assert {m.label: m.value for m in fresh.metric}["チャンク"] == chunks

    fresh.file_uploader(key="stats_import_file").set_value([("backup.zip", archive.read_bytes(), "application/zip")])
    ok(fresh.run())
    fresh.button(key="stats_import_run").click()
    ok(fresh.run())
    assert "already holds 1 source(s)" in texts(fresh)  # a second import is refused, with what to do
