"""LLM faults a user meets, through the real clients against loopback servers: each ends in a clear error within
the configured timeout, which bounds the whole request (a trickling server used to keep a request open for ever)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator

import pytest

from rag.cli import EXIT_LLM_FAILED
from rag.cli import main as cli_main
from rag.errors import LLMError, LLMOutputError, LLMUnavailableError
from rag.llm.base import LLMBackend, Message
from rag.llm.ollama_backend import OllamaBackend
from rag.llm.openai_backend import OpenAICompatibleBackend
from rag.service import RagService
from tests.ollama_api_server import LLMTestServer, Reply, SilentServer

MODEL = "qwen2.5:7b-instruct"
ASK = [Message("user", "What does TEEC_OpenSession do?")]
TIMEOUT_S = 0.8
SLACK_S = 0.7  # thread scheduling and connection set-up on a busy 2-core machine

MakeBackend = Callable[[str, float], LLMBackend]
BACKENDS: dict[str, MakeBackend] = {
    "ollama": lambda host, timeout: OllamaBackend(host, MODEL, timeout_s=timeout),
    "openai": lambda host, timeout: OpenAICompatibleBackend(host, MODEL, timeout_s=timeout),
}


@pytest.fixture(params=sorted(BACKENDS))
def make_backend(request: pytest.FixtureRequest) -> MakeBackend:
    return BACKENDS[request.param]


@pytest.fixture
def server() -> Iterator[LLMTestServer]:
    with LLMTestServer(models=[MODEL]) as running:
        yield running


def _fails_in_time(call: Callable[[], object], error: type[LLMError], match: str) -> float:
    started = time.perf_counter()
    with pytest.raises(error, match=match):
        call()
    return time.perf_counter() - started


def test_a_trickling_reply_is_cut_at_the_timeout_not_between_bytes(server: LLMTestServer, make_backend: MakeBackend):
    # one byte every 50 ms never trips a per-read timeout; the ~200-byte reply would take ~10 s, the stream ~25 s
    server.script(Reply("It opens a session.", trickle_s=0.05), Reply(pieces=["It ", "opens."], trickle_s=0.05))
    backend = make_backend(server.host, TIMEOUT_S)

    whole = _fails_in_time(lambda: backend.chat(ASK), LLMUnavailableError, r"within 0\.8 s.*whole reply")
    streamed = _fails_in_time(lambda: list(backend.stream_chat(ASK)), LLMUnavailableError, r"within 0\.8 s")

    assert whole < TIMEOUT_S + SLACK_S and streamed < TIMEOUT_S + SLACK_S


def test_a_server_that_accepts_and_never_answers_is_cut_at_the_timeout(make_backend: MakeBackend) -> None:
    with SilentServer() as silent:
        backend = make_backend(silent.host, TIMEOUT_S)
        whole = _fails_in_time(lambda: backend.chat(ASK), LLMUnavailableError, r"within 0\.8 s")
        streamed = _fails_in_time(lambda: list(backend.stream_chat(ASK)), LLMUnavailableError, r"within 0\.8 s")

    assert whole < TIMEOUT_S + SLACK_S and streamed < TIMEOUT_S + SLACK_S


def test_a_reply_cut_off_mid_stream_says_the_server_broke_off(server: LLMTestServer, make_backend: MakeBackend):
    server.script(Reply(pieces=["It ", "opens ", "a ", "session."], cut_after=2), Reply("It opens.", cut_after=0))
    backend = make_backend(server.host, 5.0)
    received: list[str] = []

    with pytest.raises(LLMUnavailableError, match="broke off the reply.*check its log"):
        for piece in backend.stream_chat(ASK):
            received.append(piece)
    with pytest.raises(LLMUnavailableError, match="broke off the reply"):
        backend.chat(ASK)
    assert "".join(received) in ("It ", "It opens ")  # what came before the cut, never a made-up ending


def test_invalid_json_is_an_output_error(server: LLMTestServer, make_backend: MakeBackend) -> None:
    server.script(Reply(raw="{this is not json"), Reply(raw="{this is not json"))
    backend = make_backend(server.host, 5.0)

    with pytest.raises(LLMOutputError):
        backend.chat(ASK)
    with pytest.raises(LLMOutputError):
        list(backend.stream_chat(ASK))


def test_a_missing_model_names_it(server: LLMTestServer, make_backend: MakeBackend) -> None:
    backend = make_backend(server.host, 5.0)
    backend.model = "gemma3:4b"

    with pytest.raises(LLMUnavailableError, match="gemma3:4b"):
        backend.chat(ASK)


def test_ask_exits_3_with_the_evidence_when_the_llm_fails(
    settings, minilm_embedder, tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = tmp_path / "tee_manual.md"
    doc.write_text("# Sessions\nTEEC_OpenSession opens a session between a client and a trusted application.\n")
    RagService(settings, embedder=minilm_embedder).index_paths([doc])
    env = {"RAG_STORAGE_DIR": str(settings.storage), "RAG_MODEL_DIR": str(settings.models),
           "RAG_EMBEDDING_MODEL": settings.embedding_model, "RAG_LLM_BACKEND": "ollama",
           "RAG_LLM_TIMEOUT_S": str(TIMEOUT_S)}  # fmt: skip
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    with SilentServer() as silent:
        monkeypatch.setenv("OLLAMA_HOST", silent.host)
        code = cli_main(["ask", "What does TEEC_OpenSession do?", "--json"])

    reply = json.loads(capsys.readouterr().out)
    assert code == EXIT_LLM_FAILED == 3
    assert "within 0.8 s" in reply["llm_error"] and reply["answer"] == ""
    assert reply["citations"] and reply["citations"][0]["source"] == "tee_manual.md"
