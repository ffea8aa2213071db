"""Knowledge bases in the app: the sidebar's active bases decide what search and QA read, uploads go to the chosen
base, and a base is deleted only after its name is typed."""

from __future__ import annotations

from pathlib import Path

from app_driver import ok, texts, upload
from streamlit.testing.v1 import AppTest

from rag.service import RagService
from rag.settings import Settings

ORION = b"The Orion router restores its factory settings when the reset button is held for ten seconds."
LYRA = b"Descale the Lyra espresso machine every two months with citric acid; the pump builds nine bars."


def _search(at: AppTest, query: str) -> str:
    at.switch_page("app_pages/search.py").run()
    at.text_input(key="search_query").set_value(query)
    at.button(key="search_submit").click()
    return texts(ok(at.run()))


def test_uploads_go_to_the_chosen_base_and_the_sidebar_picks_what_search_and_ask_read(app: AppTest) -> None:
    engine = RagService(Settings.from_env())
    engine.create_base("coffee")
    upload(app, [("orion.md", ORION, "text/markdown")])  # into default: the box starts at the first active base
    app.switch_page("app_pages/upload.py").run()
    app.selectbox(key="upload_base").set_value("coffee")
    upload(ok(app.run()), [("lyra.md", LYRA, "text/markdown")])
    assert (engine.sources(), engine.base("coffee").sources()) == (["orion.md"], ["lyra.md"])

    assert app.sidebar.multiselect(key="sidebar_bases").value == ["default"]
    shown = _search(app, "descale espresso machine")
    assert "orion.md" in shown and "lyra.md" not in shown  # only default is active

    app.sidebar.multiselect(key="sidebar_bases").set_value(["coffee"])
    shown = _search(ok(app.run()), "descale espresso machine")
    assert "[coffee] lyra.md" in shown and "orion.md" not in shown

    app.sidebar.multiselect(key="sidebar_bases").set_value(["default", "coffee"])
    shown = _search(ok(app.run()), "descale espresso machine")
    assert shown.index("[coffee] lyra.md") < shown.index("[default] orion.md")

    app.switch_page("app_pages/ask.py").run()
    app.chat_input(key="qa_input").set_value("How many bars does the pump build?").run()
    shown = texts(ok(app))
    assert "nine bars" in shown and "lyra.md · coffee" in shown


def test_a_base_is_created_renamed_and_deleted_only_once_its_name_is_typed(app: AppTest, storage: Path) -> None:
    app.switch_page("app_pages/bases.py").run()
    app.text_input(key="bases_new_name").set_value("製品")
    app.number_input(key="bases_chunk_size").set_value(400)
    app.button(key="bases_create_submit").click()
    assert "ナレッジベース 製品 を作成しました。" in texts(ok(app.run()))
    assert (storage / "bases" / "製品" / "base.json").is_file()
    assert "chunk_size=400" in app.dataframe[0].value.to_string()

    app.text_input(key="bases_rename_new").set_value("manuals")
    ok(app.run()).button(key="bases_rename_submit").click()
    assert "製品 を manuals に変更しました。" in texts(ok(app.run()))

    delete = app.button(key="bases_delete_submit")
    assert delete.disabled  # nothing typed yet
    app.text_input(key="bases_delete_typed").set_value("manual")
    assert ok(app.run()).button(key="bases_delete_submit").disabled  # not the name
    app.text_input(key="bases_delete_typed").set_value("manuals")
    ok(app.run()).button(key="bases_delete_submit").click()
    assert "ナレッジベース manuals を削除しました。" in texts(ok(app.run()))
    assert not (storage / "bases" / "manuals").exists()

    app.text_input(key="bases_new_name").set_value("a/b")
    app.button(key="bases_create_submit").click()
    assert "allowed: letters" in texts(ok(app.run()))

    app.switch_page("app_pages/index_stats.py").run()
    history = ok(app).dataframe[-1].value.to_string()
    assert "create base" in history and "rename base" in history and "delete base" in history
