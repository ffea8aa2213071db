"""Knowledge bases on a real ``chroma run`` server: every base has its own collection there, and deleting a base
deletes its collection (the server outlives the storage folder)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from rag.service import RagService
from rag.settings import Settings

pytestmark = pytest.mark.slow
CHROMA = Path(sys.executable).with_name("chroma")


@pytest.fixture
def chroma_port(tmp_path: Path) -> Iterator[int]:
    """A `chroma run` server on a free loopback port with its data in ``tmp_path``."""
    if not CHROMA.exists() and not shutil.which("chroma"):
        pytest.skip("the chroma command is not installed")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    log = (tmp_path / "chroma.log").open("w")
    command = [str(CHROMA), "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((tmp_path / "chroma.log").read_text()) from None
                time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=20)
        log.close()


def test_bases_on_one_server_keep_their_own_collections(
    settings: Settings, minilm_embedder, tmp_path: Path, chroma_port: int
) -> None:  # type: ignore[no-untyped-def]
    import chromadb

    service = RagService(replace(settings, chroma_host="127.0.0.1", chroma_port=chroma_port), embedder=minilm_embedder)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "orion.md").write_text("The Orion router restores its factory settings after a ten second reset.\n")
    (docs / "lyra.md").write_text("Descale the Lyra espresso machine every two months with citric acid.\n")
    service.create_base("coffee")
    service.create_base("routers")
    service.base("coffee").index_paths([docs / "lyra.md"])
    service.base("routers").index_paths([docs / "orion.md"])

    client = chromadb.HttpClient(host="127.0.0.1", port=chroma_port)
    names = {c.name for c in client.list_collections()}
    coffee, routers = service.base("coffee").settings.collection, service.base("routers").settings.collection
    assert coffee != routers and {coffee, routers} <= names
    assert [h.chunk.source for h in service.search("factory settings reset", bases=["coffee"])] == ["lyra.md"]
    assert service.search("factory settings reset", bases=["routers"])[0].chunk.source == "orion.md"

    service.rename_base("routers", "network")  # the collection keeps its name: the server's vectors stay found
    assert service.search("factory settings reset", bases=["network"])[0].chunk.source == "orion.md"
    service.delete_base("coffee", confirmed_by="with --yes")
    assert coffee not in {c.name for c in client.list_collections()}
    assert routers in {c.name for c in client.list_collections()}
