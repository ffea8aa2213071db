"""Nothing leaves the machine at run time: indexing, search and a question answered through Ollama's API open no
socket to anything but loopback. Python-level sockets are watched (httpx, the ollama client, Chroma's telemetry
client, Hugging Face downloads); a destination off loopback fails the test instead of being contacted."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rag.llm.ollama_backend import OllamaBackend
from rag.service import RagService
from tests.ollama_api_server import LLMTestServer, Reply

MODEL = "qwen2.5:7b-instruct"


def _is_local(address: Any) -> bool:
    if not isinstance(address, tuple):  # AF_UNIX paths
        return True
    host = str(address[0])
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture
def outside() -> Iterator[list[str]]:
    """Destinations off loopback that something tried; each attempt is refused before a packet is sent."""
    tried: list[str] = []
    real_connect, real_connect_ex, real_sendto = socket.socket.connect, socket.socket.connect_ex, socket.socket.sendto
    real_getaddrinfo = socket.getaddrinfo

    def guard(address: Any) -> None:
        if not _is_local(address):
            tried.append(str(address))
            raise ConnectionRefusedError(f"test: no network off loopback ({address})")

    def connect(self: socket.socket, address: Any) -> None:
        guard(address)
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        guard(address)
        return real_connect_ex(self, address)

    def sendto(self: socket.socket, data: bytes, *args: Any) -> int:
        guard(args[-1])
        return real_sendto(self, data, *args)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in (None, "localhost") and not _is_local((host, 0)):
            tried.append(f"DNS {host}")
            raise socket.gaierror(f"test: no name look-ups off loopback ({host})")
        return real_getaddrinfo(host, *args, **kwargs)

    patches = {"connect": connect, "connect_ex": connect_ex, "sendto": sendto}
    with pytest.MonkeyPatch.context() as patch:
        for name, replacement in patches.items():
            patch.setattr(socket.socket, name, replacement)
        patch.setattr(socket, "getaddrinfo", getaddrinfo)
        yield tried


def test_the_guard_refuses_a_destination_off_loopback(outside: list[str]) -> None:
    with pytest.raises(OSError):
        socket.create_connection(("192.0.2.1", 80), timeout=1)  # TEST-NET-1: never routed
    assert outside


def test_index_search_and_ask_stay_on_loopback(settings, minilm_embedder, tmp_path: Path, outside: list[str]) -> None:
    doc = tmp_path / "manual.md"
    doc.write_text("# Sessions\nTEEC_OpenSession opens a session between a client and a trusted application.\n")
    with LLMTestServer(models=[MODEL]) as server:
        server.script(Reply("TEEC_OpenSession opens a session [1]."))
        service = RagService(settings, embedder=minilm_embedder, llm=OllamaBackend(server.host, MODEL))
        service.index_paths([doc])
        hits = service.search("What does TEEC_OpenSession do?")
        answer = service.ask("What does TEEC_OpenSession do?")

    assert hits and answer.citations and not answer.llm_error
    assert server.requests_to("/api/chat")  # the answer really went through a socket, on loopback
    assert outside == []
