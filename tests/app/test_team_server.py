"""The app over a real ``chroma run`` server (RAG_CHROMA_URL): when the server goes down, the search and ask pages
say which server and how to start it, instead of a traceback; when it is back, they work again."""

from __future__ import annotations

from pathlib import Path

import pytest
from app_driver import APP, RUN_TIMEOUT, index_folder, ok, texts
from chroma_run import ChromaRun
from streamlit.testing.v1 import AppTest
from test_ask import ask
from test_search import search


def test_search_and_ask_show_the_server_down_message_and_work_again_when_it_is_back(
    storage: Path, own_chroma_server: ChromaRun, monkeypatch: pytest.MonkeyPatch, spec_pdf: Path
) -> None:
    monkeypatch.setenv("RAG_CHROMA_URL", own_chroma_server.url)
    monkeypatch.setenv("RAG_CHROMA_TIMEOUT_S", "5")
    app = ok(AppTest.from_file(str(APP), default_timeout=RUN_TIMEOUT).run())
    index_folder(app, spec_pdf.parent)
    own_chroma_server.stop()

    down = f"The Chroma server at {own_chroma_server.url} cannot be reached"
    start = f"chroma run --path <folder for the vectors> --host 127.0.0.1 --port {own_chroma_server.port}"
    search(app, "TEE_Malloc メモリ 確保")  # asserts the run raised nothing
    assert down in texts(app) and start in texts(app)
    ask(app, "TEE_Mallocは何をする関数ですか?")
    assert app.error and down in texts(app) and start in texts(app)

    own_chroma_server.start()
    search(app, "TEE_Malloc メモリ 確保")
    assert down not in texts(app) and "docs/メモリ仕様.pdf" in texts(app)
