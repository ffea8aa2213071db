"""The engine over a real ``chroma run`` server (RAG_CHROMA_URL): index, search, remove, check; the server down.

Every test here talks to a real server started by a fixture (``tests/chroma_run.py``): ``server_settings`` puts
a test's vectors in a collection of its own on the session's server; ``own_chroma_server`` is a server a test may
stop, freeze and start again on the same folder and port.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import replace
from pathlib import Path

import chromadb
import pytest
from chroma_run import ChromaRun
from docmaker import PdfPage, make_pdf

from rag.cli import main as cli_main
from rag.errors import ConfigError, IndexError_, VectorStoreUnavailableError
from rag.service import RagService
from rag.settings import ChromaServer, Settings, parse_chroma_url

PDF_PAGES = [
    PdfPage(("The warehouse in Sapporo ships spare turbine blades every Tuesday morning.",), heading="Logistics"),
    PdfPage(("Calibration of the pressure sensor uses a reference gauge certified each spring.",), heading="Sensors"),
]
NOTES = (
    "会議の結論として、来期の予算は研究開発に重点を置くことになった。\n\nThe cafeteria closes at three on Fridays.\n"
)
LATE_NOTE = "The lighthouse keeper logs the fog horn tests in a blue notebook.\n"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    make_pdf(folder / "operations.pdf", PDF_PAGES)
    (folder / "notes.txt").write_text(NOTES, encoding="utf-8")
    return folder


def statuses(report) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {f.source: f.status for f in report.files}


def server_count(settings: Settings) -> int:
    """How many vectors the server holds in the settings' collection, asked by a client of its own."""
    server = settings.chroma_server
    assert server is not None
    client = chromadb.HttpClient(host=server.host, port=server.port)
    return client.get_collection(settings.collection).count()


def service_on(server: ChromaRun, settings: Settings, embedder, timeout_s: float, **changes) -> RagService:  # type: ignore[no-untyped-def]
    """A service whose vectors live on ``server``, giving up on a request after ``timeout_s``."""
    return RagService(
        replace(settings, chroma_url=server.url, chroma_timeout_s=timeout_s, **changes), embedder=embedder
    )


def test_chroma_url_is_parsed_and_a_bad_one_names_the_expected_form() -> None:
    assert parse_chroma_url("http://10.0.0.5:8000") == ChromaServer("10.0.0.5", 8000, ssl=False)
    assert parse_chroma_url("https://chroma.team.lan:443/").url == "https://chroma.team.lan:443"
    for bad in ("10.0.0.5:8000", "ftp://h:8000", "http://h", "http://h:port", "http://h:8000/api", "http://:8000"):
        with pytest.raises(ValueError, match="expected http://host:port or https://host:port"):
            parse_chroma_url(bad)
    with pytest.raises(ConfigError, match="RAG_CHROMA_URL: expected http://host:port"):
        Settings.from_env({"RAG_CHROMA_URL": "localhost:8000"})
    from_url = Settings.from_env({"RAG_CHROMA_URL": "http://127.0.0.1:9000", "RAG_CHROMA_HOST": "ignored"})
    assert from_url.chroma_server == ChromaServer("127.0.0.1", 9000, ssl=False)
    from_host = Settings.from_env({"RAG_CHROMA_HOST": "db", "RAG_CHROMA_PORT": "8001"}).chroma_server
    assert from_host is not None and from_host.url == "http://db:8001"  # the older settings keep working
    assert Settings.from_env({}).chroma_server is None  # embedded store by default


def test_the_server_holds_the_vectors_while_index_search_remove_and_check_work(
    server_settings: Settings, minilm_embedder, docs: Path
) -> None:
    service = RagService(server_settings, embedder=minilm_embedder)
    report = service.index_paths([docs])
    assert statuses(report) == {"docs/operations.pdf": "indexed", "docs/notes.txt": "indexed"}
    chunks = service.stats().chunks
    assert server_count(server_settings) == chunks > 0
    assert not (server_settings.storage / "chroma").exists()  # no embedded store beside the server
    assert (server_settings.storage / "manifest.sqlite3").exists() and (server_settings.storage / "bm25").is_dir()

    top = service.search("pressure sensor calibration gauge", top_k=3)[0]
    assert (top.chunk.source, top.chunk.page) == ("docs/operations.pdf", 2)
    assert service.check_consistency().ok

    assert service.remove_sources(["docs/operations.pdf"]) > 0
    assert server_count(server_settings) == service.stats().chunks < chunks
    assert all(h.chunk.source == "docs/notes.txt" for h in service.search("pressure sensor calibration gauge"))
    assert service.check_consistency().ok

    reopened = RagService(server_settings, embedder=minilm_embedder)  # the app restarted: same server, same folder
    assert reopened.search("予算 研究開発", top_k=1)[0].chunk.source == "docs/notes.txt"


def cli_check(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """``python -m rag check --json`` over ``settings``' storage and server: exit code, and stdout + stderr."""
    for name in ("storage_dir", "model_dir", "embedding_model", "chroma_url", "collection"):
        monkeypatch.setenv(f"RAG_{name.upper()}", str(getattr(settings, name)))
    code = cli_main(["check", "--json"])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_server_down_says_how_to_start_it_loses_nothing_and_the_next_run_completes(
    own_chroma_server: ChromaRun,
    settings: Settings,
    minilm_embedder,
    docs: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    service = service_on(own_chroma_server, settings, minilm_embedder, timeout_s=5.0)
    service.index_paths([docs])
    (docs / "lighthouse.txt").write_text(LATE_NOTE, encoding="utf-8")
    own_chroma_server.stop()

    expected = rf"{own_chroma_server.url}.*chroma run --path .* --host 127\.0\.0\.1 --port {own_chroma_server.port}"
    with pytest.raises(VectorStoreUnavailableError, match=expected):
        service.search("turbine blades")
    with pytest.raises(VectorStoreUnavailableError, match=expected):
        service.index_paths([docs])
    with pytest.raises(VectorStoreUnavailableError, match=expected):
        service_on(own_chroma_server, settings, minilm_embedder, 5.0).search("turbine")  # an app started while down
    sources = {s.source: s.status for s in service.stats().per_source}
    assert sources == {"docs/operations.pdf": "indexed", "docs/notes.txt": "indexed"}  # not switched over
    code, shown = cli_check(service.settings, monkeypatch, capsys)
    assert code == 1 and re.search(expected, shown)

    own_chroma_server.start()  # same folder, same port
    assert service.search("turbine blades Sapporo", top_k=1)[0].chunk.source == "docs/operations.pdf"
    report = service.index_paths([docs])
    assert statuses(report) == {"docs/operations.pdf": "unchanged", "docs/notes.txt": "unchanged",
                                "docs/lighthouse.txt": "indexed"}  # fmt: skip
    assert service.search("fog horn notebook", top_k=1)[0].chunk.source == "docs/lighthouse.txt"
    code, shown = cli_check(service.settings, monkeypatch, capsys)
    assert code == 0 and json.loads(shown)["ok"] is True


def test_server_going_away_mid_index_keeps_the_committed_part_and_the_next_run_finishes(
    own_chroma_server: ChromaRun, settings: Settings, minilm_embedder, tmp_path: Path
) -> None:
    big = tmp_path / "big" / "ledger.txt"
    big.parent.mkdir()
    paragraphs = [f"Entry {n}: crate {n * 7} of copper wire left dock {n % 9} for depot {n * 13}." for n in range(40)]
    big.write_text("\n\n".join(paragraphs), encoding="utf-8")
    service = service_on(own_chroma_server, settings, minilm_embedder, 5.0, index_slice_chunks=4, chunk_size=120,
                         chunk_overlap=0)  # fmt: skip

    def stop_after_first_slice(progress) -> None:  # type: ignore[no-untyped-def]
        if "chunks committed" in progress.current and own_chroma_server.pid:
            own_chroma_server.stop()

    with pytest.raises(VectorStoreUnavailableError, match=own_chroma_server.url):
        service.index_paths([big.parent], progress=stop_after_first_slice)
    (partial,) = service.stats().per_source
    assert partial.status == "partial" and 0 < partial.chunks < 40

    own_chroma_server.start()
    assert service.check_consistency().ok  # the committed part is in the manifest, on the server and in BM25
    report = service.index_paths([big.parent])
    assert statuses(report) == {"big/ledger.txt": "indexed"}
    assert service.stats().chunks > partial.chunks
    assert "Entry 39:" in service.search("crate 273 copper wire depot 507", top_k=1)[0].chunk.text
    assert service.check_consistency().ok


def test_a_server_that_stops_answering_gives_the_error_within_the_timeout(
    own_chroma_server: ChromaRun, settings: Settings, minilm_embedder, docs: Path
) -> None:
    service = service_on(own_chroma_server, settings, minilm_embedder, timeout_s=2.0)
    service.index_paths([docs])
    own_chroma_server.pause()
    try:
        for make in (lambda: service, lambda: service_on(own_chroma_server, settings, minilm_embedder, 2.0)):
            started = time.monotonic()
            with pytest.raises(VectorStoreUnavailableError, match="Timeout"):
                make().search("turbine blades")
            assert time.monotonic() - started < 20  # chromadb alone would wait for ever
    finally:
        own_chroma_server.resume()
    assert service.search("turbine blades", top_k=1)[0].chunk.source == "docs/operations.pdf"


def test_a_second_index_cannot_take_over_another_indexs_collection(
    server_settings: Settings, minilm_embedder, docs: Path, tmp_path: Path
) -> None:
    first = RagService(server_settings, embedder=minilm_embedder)
    first.index_paths([docs])
    held = server_count(server_settings)
    other_machine = replace(server_settings, storage_dir=tmp_path / "other-storage")  # same server and collection
    second = RagService(other_machine, embedder=minilm_embedder)
    with pytest.raises(
        IndexError_, match=rf"{server_settings.collection}.*holds another index's vectors.*RAG_COLLECTION"
    ):
        second.index_paths([docs])
    with pytest.raises(IndexError_, match="holds another index's vectors"):
        second.check_consistency()
    assert server_count(server_settings) == held  # nothing of the first index was deleted as "orphans"
    assert first.check_consistency().ok
    own = RagService(replace(other_machine, collection=server_settings.collection + "b"), embedder=minilm_embedder)
    assert statuses(own.index_paths([docs])) == {"docs/operations.pdf": "indexed", "docs/notes.txt": "indexed"}
