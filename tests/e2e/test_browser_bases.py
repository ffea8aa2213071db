"""Knowledge bases in a real browser: create a base, upload into it through the file chooser, switch the sidebar's
active bases and ask in each; the answer cites only what the active bases hold, naming the base."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from test_browser import CHROMIUM, CHROMIUM_ARGS, SHOTS, WAIT_MS, shoot, streamlit_server

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.e2e

ORION = "The Orion router restores its factory settings when the reset button is held for ten seconds.\n"
LYRA = "Descale the Lyra espresso machine every two months with citric acid; its pump builds nine bars.\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, models_dir: Path) -> Iterator[str]:
    with streamlit_server(tmp_path_factory.mktemp("e2e-bases") / "storage", models_dir) as url:
        yield url


def _choose(page: Page, label: str, option: str) -> None:
    """Pick ``option`` in the select box or multiselect labelled ``label``."""
    page.get_by_role("combobox", name=label).click()
    page.get_by_role("option", name=option, exact=True).click()
    page.keyboard.press("Escape")  # a multiselect stays open after a pick
    page.wait_for_timeout(1500)  # the choice reruns the page: let it redraw before the next widget is used


def _upload(page: Page, base: str, path: Path) -> None:
    from playwright.sync_api import expect

    page.get_by_role("link", name="アップロード").click()
    _choose(page, "追加先のナレッジベース", base)
    # the rerun after choosing the base replaces the uploader; until it ends the old one may still be on the page
    expect(page.locator("input[type=file]")).to_have_count(1, timeout=WAIT_MS)
    page.locator("input[type=file]").set_input_files(str(path))
    expect(page.get_by_text(path.name).first).to_be_visible()
    page.get_by_role("button", name="インデックスに追加").click()
    # indexed: the uploader is emptied for the next files (the last report stays on screen, so it proves nothing)
    expect(page.get_by_role("button", name=f"Remove {path.name}")).to_have_count(0, timeout=WAIT_MS)
    expect(page.get_by_text("新規 1 · 更新 0 · 変更なし 0 · 失敗 0")).to_be_visible()


def _ask(page: Page, question: str) -> None:
    from playwright.sync_api import expect

    page.get_by_role("link", name="質問応答").click()
    chat = page.get_by_placeholder("質問を入力…")
    chat.fill(question)
    chat.press("Enter")
    expect(page.get_by_text(question)).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_text("引用", exact=True)).to_be_visible(timeout=WAIT_MS)  # history was cleared: one answer


def _clear_history(page: Page) -> None:
    from playwright.sync_api import expect

    page.get_by_role("button", name="履歴を消去").click()
    expect(page.get_by_role("button", name="履歴を消去")).to_have_count(0, timeout=WAIT_MS)


def test_create_a_base_upload_into_it_switch_bases_and_ask_in_each(server: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    orion, lyra = tmp_path / "orion.md", tmp_path / "lyra.md"
    orion.write_text(ORION, encoding="utf-8")
    lyra.write_text(LYRA, encoding="utf-8")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1300}, locale="ja-JP")
        try:
            page.goto(server)
            expect(page.get_by_role("heading", name="ドキュメントのアップロード")).to_be_visible(timeout=WAIT_MS)

            page.get_by_role("link", name="ナレッジベース").click()
            page.get_by_label("名前", exact=True).fill("coffee")
            page.get_by_role("button", name="作成", exact=True).click()
            expect(page.get_by_text("ナレッジベース coffee を作成しました。")).to_be_visible(timeout=WAIT_MS)

            _upload(page, "coffee", lyra)
            _upload(page, "default", orion)

            # only default is active: the router is answered, the espresso machine is not in reach
            _ask(page, "How long is the reset button held to restore the factory settings?")
            expect(page.get_by_text("orion.md").last).to_be_visible()
            expect(page.get_by_text("lyra.md")).to_have_count(0)

            # coffee alone
            sidebar = page.get_by_test_id("stSidebar")
            _choose(page, "使うナレッジベース", "coffee")
            expect(sidebar.get_by_label("Remove coffee")).to_have_count(1, timeout=WAIT_MS)
            # then default out (an empty choice means default, so it cannot be cleared first)
            sidebar.get_by_label("Remove default").click()
            expect(sidebar.get_by_label("Remove default")).to_have_count(0, timeout=WAIT_MS)
            page.wait_for_timeout(1500)  # the change reruns the page: let it redraw before the next widget is used
            _clear_history(page)
            _ask(page, "How many bars does the pump of the espresso machine build?")
            expect(page.get_by_text("[1] lyra.md · coffee").last).to_be_visible()
            expect(page.get_by_text("orion.md")).to_have_count(0)

            # both: each source named with its base
            _choose(page, "使うナレッジベース", "default")
            _clear_history(page)
            _ask(page, "Which router restores its factory settings, and how often is the espresso machine descaled?")
            expect(page.get_by_text("orion.md · default").last).to_be_visible()
            expect(page.get_by_text("lyra.md · coffee").last).to_be_visible()
            shoot(page, "bases")
        except Exception:
            page.screenshot(path=tmp_path / "failure.png", full_page=True)
            print(f"failure screenshot: {tmp_path / 'failure.png'}")
            raise
        finally:
            browser.close()
