"""One real browser run: `streamlit run` on 127.0.0.1, Debian's chromium driven by Playwright.

Upload a PDF through the real file chooser, see the stats, search, ask, play a quiz; every screen is saved to
``docs/screenshots/`` for the README. Needs ``apt-get install chromium fonts-ipafont-gothic``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page
from docmaker import PdfPage, make_pdf

from rag.models.embedding import MINILM_OFFLINE

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "docs" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
FACTS = (
    "セキュアストレージの鍵は128ビットのAESで暗号化される。",
    "TEE_Mallocはヒープから最大64キロバイトのメモリを確保する。",
    "セッションは最大16個まで同時に開くことができる。",
    "共有メモリの登録には4096バイト境界への整列が必要である。",
    "The client library retries a failed command 3 times before it reports an error.",
    "A trusted application may hold at most 8 open object handles.",
    "時刻APIは1秒未満の精度を保証しない。",
    "The secure monitor saves 31 general purpose registers on every world switch.",
)
WAIT_MS = 90_000  # indexing and the first search load the embedding model


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, models_dir: Path) -> Iterator[str]:
    """`streamlit run streamlit_app.py` with storage in a temporary folder; yields its URL."""
    with streamlit_server(tmp_path_factory.mktemp("e2e") / "storage", models_dir) as url:
        yield url


@contextmanager
def streamlit_server(storage: Path, models_dir: Path) -> Iterator[str]:
    """`streamlit run streamlit_app.py` over ``storage`` on a free loopback port, stopped on exit; its URL."""
    if not CHROMIUM.exists():
        pytest.skip("Debian chromium is not installed: apt-get install -y chromium fonts-ipafont-gothic")
    storage.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAG_") and k != "OLLAMA_HOST"}
    env.update(
        RAG_STORAGE_DIR=str(storage),
        RAG_MODEL_DIR=str(models_dir),
        RAG_EMBEDDING_MODEL=MINILM_OFFLINE,
        RAG_LLM_BACKEND="extractive",
        HF_HUB_OFFLINE="1",
    )
    port = _free_port()
    log = storage.parent / "streamlit.log"
    command = [
        sys.executable, "-m", "streamlit", "run", "streamlit_app.py",
        "--server.headless", "true", "--server.port", str(port), "--server.address", "127.0.0.1",
        "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    with log.open("w") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as response:
                    if response.read() == b"ok":
                        break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"streamlit did not start:\n{log.read_text()}") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


def shoot(page: Page, name: str) -> None:
    """Save the screen as docs/screenshots/<name>.png once tables and charts have drawn."""
    page.wait_for_timeout(1500)  # data grids and charts draw on a canvas after their element appears
    page.screenshot(path=SHOTS / f"{name}.png")


def test_upload_stats_search_ask_quiz_in_a_real_browser(server: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    pdf = make_pdf(tmp_path / "tee_spec.pdf", [PdfPage((fact,), heading=f"第{n}章") for n, fact in enumerate(FACTS, 1)])
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1500}, locale="ja-JP")
        try:
            started = time.monotonic()
            page.goto(server)
            expect(page.get_by_role("heading", name="ドキュメントのアップロード")).to_be_visible(timeout=WAIT_MS)
            print(f"first page rendered {time.monotonic() - started:.2f} s after the server answered")
            # the sidebar is drawn after the page, whose first run opens the index
            expect(page.get_by_text("使用中: extractive")).to_be_visible(timeout=WAIT_MS)

            # 1. upload through the real file chooser
            page.locator("input[type=file]").set_input_files(str(pdf))
            expect(page.get_by_text("tee_spec.pdf").first).to_be_visible()
            page.get_by_role("button", name="インデックスに追加").click()
            expect(page.get_by_text("新規 1 · 更新 0 · 変更なし 0 · 失敗 0")).to_be_visible(timeout=WAIT_MS)
            expect(page.get_by_test_id("stDataFrame")).to_be_visible()
            shoot(page, "upload")

            # 2. stats
            page.get_by_role("link", name="インデックス統計").click()
            expect(page.get_by_role("heading", name="インデックス統計", exact=True)).to_be_visible()
            expect(page.get_by_test_id("stMetricValue").first).to_have_text("1")
            shoot(page, "stats")

            # 3. search
            page.get_by_role("link", name="検索の検査").click()
            page.get_by_label("検索クエリ").fill("セッション 同時 最大")
            page.get_by_role("button", name="検索", exact=True).click()
            expect(page.get_by_text("ハイブリッド検索の結果")).to_be_visible(timeout=WAIT_MS)
            expect(page.get_by_text("BM25 のみ / ベクトルのみ / ハイブリッド")).to_be_visible()
            shoot(page, "search")

            # 4. ask
            page.get_by_role("link", name="質問応答").click()
            chat = page.get_by_placeholder("質問を入力…")
            chat.fill("セッションは同時にいくつまで開けますか?")
            chat.press("Enter")
            expect(page.get_by_text("引用", exact=True)).to_be_visible(timeout=WAIT_MS)
            expect(page.get_by_text("セッションは最大16個まで同時に開くことができる。").first).to_be_visible()
            page.get_by_text("ページを表示").first.click()
            image = page.get_by_test_id("stImage").locator("img").first
            expect(image).to_be_visible(timeout=WAIT_MS)
            page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
            page.get_by_text("引用", exact=True).scroll_into_view_if_needed()
            shoot(page, "ask")

            # 5. quiz: generate, then answer the first statement
            page.get_by_role("link", name="クイズ").click()
            page.get_by_role("tab", name="作成").click()
            page.get_by_label("問題数").fill("3")
            page.get_by_role("button", name="クイズを作成").click()
            expect(page.get_by_text("3 問のクイズを作成しました。")).to_be_visible(timeout=WAIT_MS)
            page.get_by_role("tab", name="解答").click()
            page.get_by_role("button", name="○ 正しい").click()
            expect(page.get_by_text("正解です!").or_(page.get_by_text("不正解です。"))).to_be_visible()
            shoot(page, "quiz")
        except Exception:
            page.screenshot(path=tmp_path / "failure.png", full_page=True)
            raise
        finally:
            browser.close()


def test_a_first_visit_straight_to_a_page_shows_the_dashboard_and_nothing_leaves_the_machine(server: str) -> None:
    from urllib.parse import urlparse

    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000}, locale="ja-JP")
        requested: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        try:
            page.goto(f"{server}/search")
            expect(page.get_by_label("検索クエリ")).to_be_visible(timeout=WAIT_MS)
            # the shared sidebar (drawn after the page): the dashboard ran
            expect(page.get_by_text("使用中: extractive")).to_be_visible(timeout=WAIT_MS)
            icons = page.eval_on_selector_all("link[rel~='icon']", "links => links.map(link => link.href)")
            page.wait_for_timeout(1500)
        finally:
            browser.close()
    outside = [u for u in [*requested, *icons] if urlparse(u).scheme in ("http", "https", "ws", "wss")
               and urlparse(u).hostname not in ("127.0.0.1", "localhost")]  # fmt: skip
    assert icons and not outside, outside
