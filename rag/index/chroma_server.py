"""Reaching a ``chroma run`` server: connect with bounded waits, and turn "it is not there" into one clear error.

chromadb's ``HttpClient`` sends its requests with no timeout at all (its httpx session is built with
``timeout=None``, and its first request goes out while the client is built), so a server host that drops packets
would hold a page for the operating system's connect timeout (about two minutes) and a server that stops answering
would hold it for ever. So we ask the server's heartbeat ourselves first, with a short connect timeout, and then
give the client's session ``settings.chroma_timeout_s``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from rag.errors import VectorStoreUnavailableError
from rag.settings import ChromaServer

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 5.0
HEARTBEAT_PATH = "/api/v2/heartbeat"


def request_timeout(timeout_s: float) -> httpx.Timeout:
    """At most ``CONNECT_TIMEOUT_S`` to connect, ``timeout_s`` for the rest of one request."""
    return httpx.Timeout(timeout_s, connect=min(CONNECT_TIMEOUT_S, timeout_s))


def unavailable_message(server: ChromaServer, err: BaseException) -> str:
    """What a person reads when the server is down: which server, how to start it, and that nothing is lost."""
    return (
        f"The Chroma server at {server.url} cannot be reached ({type(err).__name__}: {err}). "
        f"Start it on its machine with `chroma run --path <folder for the vectors> --host {server.host} "
        f"--port {server.port}` (the same folder as before keeps the vectors), or unset RAG_CHROMA_URL to use the "
        "embedded store. Nothing is lost: this machine's index records only what reached the server, so run the "
        "same action again once the server is up."
    )


@contextmanager
def reaching(server: ChromaServer | None) -> Iterator[None]:
    """Turn a failure to reach ``server`` inside the block into ``VectorStoreUnavailableError``.

    Raises:
        VectorStoreUnavailableError: the server refused the connection, timed out, or went away mid-request.
    """
    if server is None:  # the embedded store: no network to fail
        yield
        return
    try:
        yield
    except httpx.TransportError as err:  # connect/read/write errors and timeouts, a dropped connection
        raise VectorStoreUnavailableError(unavailable_message(server, err)) from err


def connect(server: ChromaServer, timeout_s: float) -> Any:
    """A chromadb ``HttpClient`` for ``server`` whose requests give up after ``timeout_s``.

    Raises:
        VectorStoreUnavailableError: the server's heartbeat does not answer, or something else answers there.
    """
    import chromadb

    with reaching(server):
        heartbeat = httpx.get(server.url + HEARTBEAT_PATH, timeout=request_timeout(timeout_s))
        if heartbeat.status_code != 200:
            raise VectorStoreUnavailableError(
                f"Something answers at {server.url}, but not as a Chroma server (HTTP {heartbeat.status_code} for "
                f"{HEARTBEAT_PATH}). Check RAG_CHROMA_URL, and start the server there with `chroma run --path "
                f"<folder for the vectors> --host {server.host} --port {server.port}`."
            )
        client = chromadb.HttpClient(host=server.host, port=server.port, ssl=server.ssl)
    session = getattr(getattr(client, "_server", None), "_session", None)
    if isinstance(session, httpx.Client):
        session.timeout = request_timeout(timeout_s)
    else:  # a chromadb release that builds its session elsewhere: requests keep chromadb's own (no) timeout
        log.warning("Cannot bound Chroma server requests to %.0f s with this chromadb version", timeout_s)
    return client
