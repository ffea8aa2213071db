"""The Ollama and OpenAI-compatible backends: the real clients against a loopback server that speaks their APIs."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pydantic
import pytest

from rag.errors import ConfigError, LLMOutputError, LLMUnavailableError
from rag.llm.base import LLMBackend, Message
from rag.llm.ollama_backend import OllamaBackend
from rag.llm.openai_backend import OpenAICompatibleBackend
from tests.ollama_api_server import LLMTestServer, Reply

MODEL = "qwen2.5:7b-instruct"
ASK = [Message("system", "Answer briefly."), Message("user", "What does TEEC_OpenSession do?")]


class Verdict(pydantic.BaseModel):
    answer: str
    confidence: float


@pytest.fixture
def server() -> Iterator[LLMTestServer]:
    with LLMTestServer(models=[MODEL, "llama3:latest"]) as running:
        yield running


@pytest.fixture
def closed_port_url() -> str:
    with socket.socket() as sock:  # bind, learn the port, close: nothing listens there afterwards
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# --- Ollama -------------------------------------------------------------------------------------------------


def test_stream_chat_yields_the_pieces_in_order(server: LLMTestServer) -> None:
    server.script(Reply(pieces=["It ", "opens ", "a ", "session", "."]))
    backend = OllamaBackend(server.host, MODEL, keep_alive="5m")

    pieces = list(backend.stream_chat(ASK, temperature=0.1))

    assert pieces == ["It ", "opens ", "a ", "session", "."]
    sent = server.requests_to("/api/chat")[-1].body
    assert sent["stream"] is True
    assert sent["options"]["temperature"] == 0.1
    assert sent["keep_alive"] == "5m"
    assert sent["messages"] == [{"role": m.role, "content": m.content} for m in ASK]


def test_chat_returns_the_whole_reply_without_streaming(server: LLMTestServer) -> None:
    server.script(Reply("It opens a session between a client and a trusted application."))

    text = OllamaBackend(server.host, MODEL).chat(ASK)

    assert text == "It opens a session between a client and a trusted application."
    assert server.requests_to("/api/chat")[-1].body["stream"] is False


def test_schema_goes_to_ollama_format_and_the_reply_validates(server: LLMTestServer) -> None:
    server.script(Reply({"answer": "opens a session", "confidence": 0.9}))
    schema = Verdict.model_json_schema()

    text = OllamaBackend(server.host, MODEL).chat(ASK, schema=schema)

    assert server.requests_to("/api/chat")[-1].body["format"] == schema
    assert Verdict.model_validate_json(text) == Verdict(answer="opens a session", confidence=0.9)


def test_missing_model_names_the_pull_command(server: LLMTestServer) -> None:
    backend = OllamaBackend(server.host, "gemma3:4b")

    with pytest.raises(LLMUnavailableError, match=r"`ollama pull gemma3:4b`") as streamed:
        list(backend.stream_chat(ASK))
    with pytest.raises(LLMUnavailableError, match=r"`ollama pull gemma3:4b`"):
        backend.chat(ASK)
    status = backend.status()

    assert server.host in str(streamed.value)
    assert not status.available
    assert "ollama pull gemma3:4b" in status.detail and MODEL in status.detail


def test_server_down_names_the_host_and_ollama_serve(closed_port_url: str) -> None:
    backend = OllamaBackend(closed_port_url, MODEL)

    for call in (lambda: list(backend.stream_chat(ASK)), lambda: backend.chat(ASK), backend.list_models):
        with pytest.raises(LLMUnavailableError) as caught:
            call()
        assert closed_port_url in str(caught.value) and "ollama serve" in str(caught.value)
    status = backend.status()
    assert not status.available and "ollama serve" in status.detail


def test_timeout_is_honoured_when_the_server_stays_silent(server: LLMTestServer) -> None:
    server.script(Reply("too late", delay_s=10))
    backend = OllamaBackend(server.host, MODEL, timeout_s=0.5)

    started = time.perf_counter()
    with pytest.raises(LLMUnavailableError, match=r"within 0\.5 s.*RAG_LLM_TIMEOUT_S"):
        backend.chat(ASK)

    assert time.perf_counter() - started < 3.0


def test_status_probe_gives_up_on_a_hung_server_within_its_bound() -> None:
    with socket.socket() as listener:  # accepts TCP (backlog) but never answers: a hung Ollama
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        host = f"http://127.0.0.1:{listener.getsockname()[1]}"
        started = time.perf_counter()
        status = OllamaBackend(host, MODEL, probe_timeout_s=0.3).status()
        elapsed = time.perf_counter() - started

    assert not status.available and host in status.detail
    assert elapsed < 1.5


def test_server_error_is_reported_with_its_status_and_reason(server: LLMTestServer) -> None:
    server.script(Reply(status=500, error="model requires more system memory (9.2 GiB) than is available"))

    with pytest.raises(LLMUnavailableError, match=r"HTTP 500: model requires more system memory") as caught:
        OllamaBackend(server.host, MODEL).chat(ASK)
    assert MODEL in str(caught.value) and server.host in str(caught.value)


def test_an_error_in_the_middle_of_a_stream_is_raised_after_the_pieces_before_it(server: LLMTestServer) -> None:
    server.script(Reply(pieces=["It ", "opens"], error="an error was encountered while running the model"))
    received: list[str] = []

    with pytest.raises(LLMUnavailableError, match="an error was encountered"):
        for piece in OllamaBackend(server.host, MODEL).stream_chat(ASK):
            received.append(piece)
    assert received == ["It ", "opens"]


def test_a_malformed_reply_is_an_output_error(server: LLMTestServer) -> None:
    server.script(Reply(raw='{"model": "qwen2.5:7b-instruct", "done": true}'))  # no "message"
    with pytest.raises(LLMOutputError, match="malformed reply"):
        OllamaBackend(server.host, MODEL).chat(ASK)


def test_model_list_comes_from_api_tags_and_short_names_match_latest(server: LLMTestServer) -> None:
    assert OllamaBackend(server.host, MODEL).list_models() == ["llama3:latest", MODEL]
    assert OllamaBackend(server.host, "llama3").status().available
    assert OllamaBackend(server.host, MODEL).status().available


def test_numeric_keep_alive_is_sent_as_a_number(server: LLMTestServer) -> None:
    server.script(Reply("ok"))
    OllamaBackend(server.host, MODEL, keep_alive="-1").chat(ASK)
    assert server.requests_to("/api/chat")[-1].body["keep_alive"] == -1


def test_an_empty_model_setting_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="RAG_OLLAMA_MODEL"):
        OllamaBackend("http://127.0.0.1:11434", " ")


def test_the_server_can_answer_through_any_backend() -> None:
    class Shouting:
        name, model = "shout", "shout"

        def status(self):  # type: ignore[no-untyped-def]
            raise NotImplementedError

        def stream_chat(self, messages, *, temperature=0.2):  # type: ignore[no-untyped-def]
            yield from messages[-1].content.upper().split()

        def chat(self, messages, *, schema=None, temperature=0.2):  # type: ignore[no-untyped-def]
            return json.dumps({"echo": messages[-1].content}) if schema else messages[-1].content.upper()

    assert isinstance(Shouting(), LLMBackend)
    with LLMTestServer(models=[MODEL], backend=Shouting()) as running:
        backend = OllamaBackend(running.host, MODEL)
        assert list(backend.stream_chat([Message("user", "hi there")])) == ["HI", "THERE"]
        assert json.loads(backend.chat([Message("user", "hi")], schema={"type": "object"})) == {"echo": "hi"}


# --- OpenAI-compatible ----------------------------------------------------------------------------------------


def test_openai_stream_yields_the_pieces_in_order(server: LLMTestServer) -> None:
    server.script(Reply(pieces=["セッション", "を", "開く", "。"]))
    backend = OpenAICompatibleBackend(server.host, MODEL)  # "/v1" is added

    assert list(backend.stream_chat(ASK, temperature=0.3)) == ["セッション", "を", "開く", "。"]
    sent = server.requests_to("/v1/chat/completions")[-1].body
    assert sent["stream"] is True and sent["model"] == MODEL and sent["temperature"] == 0.3


def test_openai_chat_sends_the_json_schema_as_response_format(server: LLMTestServer) -> None:
    server.script(Reply({"answer": "opens a session", "confidence": 0.5}))
    schema = Verdict.model_json_schema()

    text = OpenAICompatibleBackend(server.openai_base_url, MODEL).chat(ASK, schema=schema)

    sent = server.requests_to("/v1/chat/completions")[-1].body
    assert sent["stream"] is False
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"] == schema
    assert Verdict.model_validate_json(text).answer == "opens a session"


def test_openai_without_a_model_uses_the_one_the_server_serves(server: LLMTestServer) -> None:
    status = OpenAICompatibleBackend(server.openai_base_url).status()
    assert status.available and status.model == MODEL


def test_openai_unknown_model_and_server_down_say_what_to_fix(server: LLMTestServer, closed_port_url: str) -> None:
    unknown = OpenAICompatibleBackend(server.openai_base_url, "mistral-7b")
    with pytest.raises(LLMUnavailableError, match=r"'mistral-7b'.*RAG_OPENAI_MODEL"):
        unknown.chat(ASK)
    assert not unknown.status().available and MODEL in unknown.status().detail

    down = OpenAICompatibleBackend(closed_port_url, MODEL)
    with pytest.raises(LLMUnavailableError, match=r"RAG_OPENAI_BASE_URL") as caught:
        list(down.stream_chat(ASK))
    assert f"{closed_port_url}/v1" in str(caught.value)


def test_openai_timeout_and_malformed_reply(server: LLMTestServer) -> None:
    server.script(Reply("late", delay_s=10))
    with pytest.raises(LLMUnavailableError, match=r"within 0\.5 s"):
        OpenAICompatibleBackend(server.openai_base_url, MODEL, timeout_s=0.5).chat(ASK)

    server.script(Reply(raw='{"object": "list", "data": []}'))
    with pytest.raises(LLMOutputError, match="not a chat completion"):
        OpenAICompatibleBackend(server.openai_base_url, MODEL).chat(ASK)


def test_openai_base_url_must_be_http() -> None:
    with pytest.raises(ConfigError, match="RAG_OPENAI_BASE_URL"):
        OpenAICompatibleBackend("localhost:8080", MODEL)
