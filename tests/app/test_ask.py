"""QA page: a chat round trip with the extractive backend and with Ollama's API (a loopback test server)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import streamlit as st
from app_driver import APP, RUN_TIMEOUT, index_folder, ok, texts
from docmaker import JA_PARAGRAPHS, PdfPage, make_pdf
from ollama_api_server import LLMTestServer, Reply
from streamlit.testing.v1 import AppTest

QUESTION = "TEE_Mallocは何をする関数ですか?"


def ask(at: AppTest, question: str) -> AppTest:
    at.switch_page("app_pages/ask.py").run()
    at.chat_input(key="qa_input").set_value(question)
    return ok(at.run())


def test_extractive_answer_cites_the_pdf_page_shows_it_and_offers_followups(app: AppTest, spec_pdf: Path) -> None:
    index_folder(app, spec_pdf.parent)
    ask(app, QUESTION)

    assert [m.name for m in app.chat_message] == ["user", "assistant"]
    shown = texts(app)
    assert "引用" in shown
    assert "[1] docs/メモリ仕様.pdf p.1" in shown
    cited = [m.value for m in app.markdown]
    cited = cited[cited.index("**引用**") :]
    assert cited.count("\\[1\\] docs/メモリ仕様\\.pdf p.1") == 1  # one source line for its two quotes
    assert "TEE_Mallocはトラステッドアプリケーションのヒープからメモリを確保する関数である。" in shown
    assert "回答: extractive" in shown
    assert not app.image  # pages render only on request

    app.toggle(key="qa_0_page_1").set_value(True)
    ok(app.run())
    assert len(app.image) == 1  # the cited page, quote highlighted

    followups = [b for b in app.button if b.key and b.key.startswith("qa_follow_0_")]
    assert followups, "an answer offers follow-up questions"
    followups[0].click()
    ok(app.run())
    users = [m for m in app.chat_message if m.name == "user"]
    assert len(users) == 2 and users[1].text[0].value == followups[0].label  # asked as the next turn


@contextmanager
def ollama_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[AppTest, LLMTestServer]]:
    """The app on the Ollama backend (a loopback Ollama-API server) with one Japanese PDF indexed."""
    folder = tmp_path / "one"
    folder.mkdir()
    make_pdf(folder / "heap.pdf", [PdfPage((JA_PARAGRAPHS[0],), heading="メモリ")])
    with LLMTestServer(models=["qwen2.5:7b-instruct"]) as server:
        monkeypatch.setenv("RAG_LLM_BACKEND", "ollama")
        monkeypatch.setenv("RAG_OLLAMA_HOST", server.host)
        st.cache_resource.clear()
        at = ok(AppTest.from_file(str(APP), default_timeout=RUN_TIMEOUT).run())
        assert "使用中: ollama · qwen2.5:7b-instruct" in texts(at.sidebar)
        index_folder(at, folder)
        yield at, server


def test_ollama_answer_streams_and_keeps_its_verified_citation(
    storage: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    quote = "TEE_Mallocはトラステッドアプリケーションのヒープからメモリを確保する関数である。"
    reply = f"ヒープからメモリを確保します。「{quote}」 [1]\n\nFOLLOWUPS:\n- 確保に失敗したらどうなりますか?"
    with ollama_app(tmp_path, monkeypatch) as (at, server):
        server.script(Reply(reply))
        ask(at, QUESTION)
        assert len(server.requests_to("/api/chat")) == 1

    shown = texts(at)
    assert "ヒープからメモリを確保します" in shown
    assert "根拠となる資料 (1)" in [e.label for e in at.expander]  # the evidence, shown before the answer
    assert f"**{quote}**" in shown  # its best sentence in bold
    assert "[1] one/heap.pdf p.1" in shown and quote in shown
    assert "回答: ollama" in shown
    assert "FOLLOWUPS" not in shown  # the follow-ups section became buttons
    assert "確保に失敗したらどうなりますか?" in [b.label for b in at.button]


def test_llm_failing_mid_answer_leaves_the_citations_and_says_how_to_fix_it(
    storage: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ollama_app(tmp_path, monkeypatch) as (at, server):
        server.script(Reply(status=500, error="CUDA error: out of memory"))
        ask(at, QUESTION)

    assert at.main.warning, "the failure is shown as a warning"
    warning = at.main.warning[-1].value
    assert "LLM" in warning and "out of memory" in warning
    assert "[1] one/heap.pdf p.1" in texts(at)  # the passages are still cited


def test_backend_that_cannot_run_is_reported_with_its_fix(
    app: AppTest, spec_pdf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_folder(app, spec_pdf.parent)
    monkeypatch.setenv("RAG_LLM_BACKEND", "openai")  # no RAG_OPENAI_BASE_URL: unusable
    st.cache_resource.clear()
    ask(app, QUESTION)
    assert app.main.error and "RAG_OPENAI_BASE_URL" in texts(app)


def test_question_before_anything_is_indexed_says_what_to_do(app: AppTest) -> None:
    ask(app, QUESTION)
    assert app.main.error and "Upload" in texts(app)


def test_a_followup_is_searched_with_the_conversation_and_an_unsupported_answer_shows_the_evidence(
    storage: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = "ヒープからメモリを確保する関数です[1]。"
    wrong = "失敗した場合は例外を送出するため、戻り値を確認する必要はありません[1]。"  # the document says the opposite
    with ollama_app(tmp_path, monkeypatch) as (at, server):
        server.script(Reply(first), Reply(wrong))
        ask(at, QUESTION)
        at.chat_input(key="qa_input").set_value("それに失敗したらどうなりますか？")
        ok(at.run())

    shown = texts(at)
    assert f"検索した質問: {QUESTION} それに失敗したらどうなりますか？" in shown  # the rewritten query is shown
    warning = at.main.warning[-1].value
    assert "裏付けられなかった" in warning  # the model's answer is not shown as the answer
    assert "確認しなければならない" in shown  # the document's own sentence is
    assert "LLM の元の回答（未確認）" in [e.label for e in at.expander]
