"""Upload page, stats page and the sidebar, driven like a user would through AppTest."""

from __future__ import annotations

from pathlib import Path

from app_driver import ok, texts, upload
from streamlit.testing.v1 import AppTest

from rag.ingest.parsing.kinds import SUPPORTED_EXTENSIONS
from rag.models.embedding import MINILM_OFFLINE
from rag.service import RagService


def test_first_page_shows_upload_and_a_sidebar_that_says_what_is_live(app: AppTest, storage: Path) -> None:
    assert app.title[0].value == "ドキュメントのアップロード"
    sidebar = texts(app.sidebar)
    assert "使用中: extractive" in sidebar
    assert MINILM_OFFLINE in sidebar
    assert "リランカー: オフ" in sidebar
    assert str(storage.resolve()) in sidebar
    assert "インデックス版: –" in sidebar  # nothing indexed yet, and no model was loaded to say so
    assert app.file_uploader[0].allowed_type == list(SUPPORTED_EXTENSIONS)  # one list: rag.ingest.parsing.kinds


def test_language_switch_turns_every_label_english(app: AppTest) -> None:
    app.radio(key="sidebar_lang").set_value("en")
    ok(app.run())
    assert app.title[0].value == "Upload documents"
    assert "Live: extractive" in texts(app.sidebar)
    app.switch_page("app_pages/index_stats.py")
    ok(app.run())
    assert app.title[0].value == "Index statistics"  # the choice holds on every page


def test_uploads_are_indexed_with_a_result_per_file_and_counted_in_stats(app: AppTest, spec_pdf: Path) -> None:
    upload(
        app,
        [
            (spec_pdf.name, spec_pdf.read_bytes(), "application/pdf"),
            ("notes.md", "# 注意\n\nTEEC_OpenSession はセッションを開く。".encode(), "text/markdown"),
            ("broken.pdf", b"%PDF-1.7 this is not really a pdf", "application/pdf"),
        ],
    )
    rows = app.dataframe[0].value
    outcome = dict(zip(rows["ソース"], rows["状態"], strict=True))
    assert outcome == {"メモリ仕様.pdf": "新規", "notes.md": "新規", "broken.pdf": "失敗"}
    assert rows.loc[rows["ソース"] == "broken.pdf", "理由"].item()  # the failure says why
    assert "新規 2" in app.main.warning[0].value and "失敗 1" in app.main.warning[0].value

    upload(app, [(spec_pdf.name, spec_pdf.read_bytes(), "application/pdf")])  # the same file again
    assert list(app.dataframe[0].value["状態"]) == ["変更なし"]

    app.switch_page("app_pages/index_stats.py")
    ok(app.run())
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["ソース"] == "2" and metrics["ページ"] == "3"
    assert int(metrics["チャンク"]) >= 2
    per_source = app.dataframe[0].value
    assert set(per_source["ソース"]) == {"メモリ仕様.pdf", "notes.md", "broken.pdf"}
    assert per_source.loc[per_source["ソース"] == "メモリ仕様.pdf", "ページ数"].item() == 2
    history = app.dataframe[1].value
    assert len(history) >= 1 and metrics["インデックス版"] in set(history["インデックス版"])
    assert metrics["インデックス版"] in texts(app.sidebar)
    assert f"{metrics['チャンク']} チャンク · 平均" in texts(app)  # the chunk-length chart counts every chunk

    app.button(key="stats_check").click()
    ok(app.run())
    assert app.main.success[0].value == "整合しています。"


def test_folder_indexing_then_delete_only_after_confirmation(app: AppTest, spec_pdf: Path) -> None:
    (spec_pdf.parent / "readme.txt").write_text("Shared memory must be registered first.", encoding="utf-8")
    app.text_input(key="upload_folder").set_value(str(spec_pdf.parent))
    ok(app.run())
    app.button(key="upload_index_folder").click()
    ok(app.run())
    # a folder's files are named by their path from the folder's parent
    assert set(app.dataframe[0].value["ソース"]) == {"docs/メモリ仕様.pdf", "docs/readme.txt"}

    app.multiselect(key="upload_selected").set_value(["docs/readme.txt"])
    ok(app.run())
    app.button(key="upload_delete").click()
    ok(app.run())
    assert app.main.warning and "docs/readme.txt" in texts(app) and "元に戻せません" in texts(app)
    app.button(key="upload_confirm_no").click()
    ok(app.run())
    assert set(app.multiselect(key="upload_selected").options) == {"docs/メモリ仕様.pdf", "docs/readme.txt"}

    app.multiselect(key="upload_selected").set_value(["docs/readme.txt"])
    ok(app.run())
    app.button(key="upload_delete").click()
    ok(app.run())
    app.button(key="upload_confirm_yes").click()
    ok(app.run())
    assert "1 件のソースを削除しました" in texts(app)
    assert app.multiselect(key="upload_selected").options == ["docs/メモリ仕様.pdf"]
    deletion = RagService().version_history(1)[0]  # the deletion and how it was confirmed are on record
    assert deletion.action == "remove" and deletion.detail == "docs/readme.txt (deletion confirmed in the dashboard)"

    app.button(key="upload_reindex").click()
    ok(app.run())
    assert list(app.dataframe[0].value["状態"]) == ["変更なし"]
