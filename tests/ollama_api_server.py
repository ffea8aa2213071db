"""A loopback HTTP server that speaks Ollama's API (and, like real Ollama, the OpenAI ``/v1`` routes).

No Ollama server can run here, so tests drive the real ``ollama`` client (and our httpx OpenAI client)
against this one on 127.0.0.1 and an ephemeral port, served from a thread::

    with LLMTestServer(models=["qwen2.5:7b-instruct"]) as server:
        server.script(Reply("Hello there"))            # queued replies, used in order
        backend = OllamaBackend(server.host, "qwen2.5:7b-instruct")
        ...
        server.requests[-1].body["format"]              # what the client sent

Without a script it can answer through any ``LLMBackend`` (``backend=EmbeddedBackend(...)``) so the app
runs end to end against it. Routes: ``/api/chat`` and ``/api/generate`` (NDJSON streaming or not, ``format``
schema checked against scripted JSON replies), ``/api/embed`` (``hashed_vector`` of each input: texts sharing words
get similar vectors, so a knowledge base indexes and searches through it), ``/api/tags``, ``/api/show``, ``/api/ps``,
``/api/version``, ``/v1/models``, ``/v1/chat/completions`` (SSE streaming or not). An unknown model gets Ollama's 404
``{"error": "model 'x' not found, try pulling it first"}``; a scripted ``Reply(status=500, error=...)`` a 500.

Faults a real server shows: ``Reply(delay_s=...)`` stays silent first, ``Reply(trickle_s=...)`` sends the reply one
byte at a time, ``Reply(cut_after=n)`` drops the connection after ``n`` streamed pieces (or half the body),
``Reply(raw=...)`` sends a body that is not a valid reply; ``SilentServer`` accepts connections and never answers.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jsonschema

from rag.errors import LLMError
from rag.llm.base import LLMBackend, Message


@dataclass(frozen=True)
class Reply:
    """One scripted answer. ``content`` that is not a str is sent as JSON; ``pieces`` sets the stream split."""

    content: Any = ""
    pieces: Sequence[str] | None = None
    status: int = 200
    error: str = ""  # with status 200 and streaming: an {"error": ...} line after the pieces
    delay_s: float = 0.0  # silence before the reply starts (timeouts)
    raw: str | None = None  # sent verbatim as a 200 JSON body instead of a well-formed reply (malformed replies)
    trickle_s: float = 0.0  # the body goes out one byte at a time, this far apart (a server that never finishes)
    cut_after: int | None = None  # the connection drops after this many streamed pieces, or half the plain body

    def text(self) -> str:
        return self.content if isinstance(self.content, str) else json.dumps(self.content)

    def split(self) -> list[str]:
        if self.pieces is not None:
            return list(self.pieces)
        words = self.text().split(" ")
        return [w if i == len(words) - 1 else w + " " for i, w in enumerate(words)]


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    body: dict[str, Any]


@dataclass
class LLMTestServer:
    """The server; a context manager that starts it on enter and stops it on exit."""

    models: Sequence[str] = ("qwen2.5:7b-instruct",)
    backend: LLMBackend | None = None
    requests: list[Recorded] = field(default_factory=list)
    _queue: deque[Reply] = field(default_factory=deque)
    _stopping: threading.Event = field(default_factory=threading.Event)
    _http: ThreadingHTTPServer | None = None

    def script(self, *replies: Reply) -> None:
        self._queue.extend(replies)

    def start(self) -> LLMTestServer:
        handler = type("Handler", (_Handler,), {"owner": self})
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._http.daemon_threads = True
        self._http.block_on_close = False  # a handler sleeping on a delay must not hold up stop()
        threading.Thread(target=self._http.serve_forever, args=(0.05,), name="llm-test-server", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()

    def __enter__(self) -> LLMTestServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def host(self) -> str:
        if self._http is None:
            raise RuntimeError("LLMTestServer is not started")
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.host}/v1"

    def requests_to(self, path: str) -> list[Recorded]:
        return [r for r in self.requests if r.path == path]

    def answer(self, messages: list[Message], schema: Any, temperature: float, stream: bool) -> Reply | Iterator[str]:
        """The next scripted reply, else the backend's; a schema is checked against scripted JSON."""
        if self._queue:
            reply = self._queue.popleft()
            if reply.status == 200 and isinstance(schema, dict):
                try:
                    jsonschema.validate(json.loads(reply.text()), schema)
                except (ValueError, jsonschema.ValidationError) as err:
                    return Reply(status=500, error=f"scripted reply does not fit the format schema: {err}")
            return reply
        if self.backend is None:
            return Reply(status=500, error="LLMTestServer: no scripted reply and no backend")
        try:
            if stream:
                pieces = iter(self.backend.stream_chat(messages, temperature=temperature))
                first = next(pieces, "")  # an unavailable backend fails here, while a status can still be sent
                return itertools.chain([first], pieces)
            schema_arg = schema if isinstance(schema, dict) else None
            return Reply(self.backend.chat(messages, schema=schema_arg, temperature=temperature))
        except LLMError as err:
            return Reply(status=500, error=str(err))


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class SilentServer:
    """Accepts TCP connections on 127.0.0.1 and never sends a byte: a hung server (a context manager)."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self._accepted: list[socket.socket] = []
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._accept, name="silent-server", daemon=True)

    @property
    def host(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                self._accepted.append(self._listener.accept()[0])
            except TimeoutError:
                continue

    def __enter__(self) -> SilentServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._thread.join()
        for conn in [*self._accepted, self._listener]:
            conn.close()


class _Handler(BaseHTTPRequestHandler):
    owner: LLMTestServer
    protocol_version = "HTTP/1.1"
    shape: Reply = Reply()  # the scripted reply being sent: how its bytes go out (trickle, cut)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep pytest output clean
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._route({})

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        self._route(json.loads(raw) if raw else {})

    def _route(self, body: dict[str, Any]) -> None:
        owner = self.owner
        owner.requests.append(Recorded(self.command, self.path, body))
        self.shape = Reply()
        try:
            if self.path == "/api/version":
                self._json(200, {"version": "0.12.6"})
            elif self.path == "/api/tags":
                self._json(200, {"models": [_tag(m) for m in owner.models]})
            elif self.path == "/api/ps":
                self._json(200, {"models": []})
            elif self.path == "/v1/models":
                data = [{"id": m, "object": "model", "created": 0, "owned_by": "test"} for m in owner.models]
                self._json(200, {"object": "list", "data": data})
            elif self.path == "/api/embed":
                if body.get("model") not in owner.models:
                    self._json(404, {"error": f"model '{body.get('model')}' not found, try pulling it first"})
                else:
                    texts = body.get("input", "")
                    texts = [texts] if isinstance(texts, str) else list(texts)
                    self._json(200, {"model": body["model"], "embeddings": [hashed_vector(t) for t in texts]})
            elif self.path in ("/api/chat", "/api/generate", "/api/show"):
                if body.get("model") not in owner.models:
                    self._json(404, {"error": f"model '{body.get('model')}' not found, try pulling it first"})
                elif self.path == "/api/show":
                    self._json(
                        200,
                        {
                            "modelfile": "",
                            "template": "{{ .Prompt }}",
                            "details": _tag("")["details"],
                            "model_info": {},
                            "capabilities": ["completion"],
                        },
                    )
                else:
                    self._ollama_generate(body)
            elif self.path == "/v1/chat/completions":
                model = body.get("model") or owner.models[0]
                if model not in owner.models:
                    err = {"message": f"The model `{model}` does not exist.", "type": "invalid_request_error"}
                    self._json(404, {"error": err})
                else:
                    self._openai_generate(body, model)
            else:
                self._json(404, {"error": f"404 page not found: {self.path}"})
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to send it

    def _ollama_generate(self, body: dict[str, Any]) -> None:
        is_chat = self.path == "/api/chat"
        if is_chat:
            messages = [Message(m["role"], m.get("content", "")) for m in body.get("messages", [])]
        else:
            messages = ([Message("system", body["system"])] if body.get("system") else []) + [
                Message("user", body.get("prompt", ""))
            ]
        stream = body.get("stream", True)  # Ollama streams unless told not to
        temperature = float(body.get("options", {}).get("temperature", 0.8))
        answer = self.owner.answer(messages, body.get("format"), temperature, stream)
        if isinstance(answer, Reply) and not self._delay_then_check(answer, {"error": answer.error}):
            return
        model = body["model"]

        def frame(text: str, done: bool) -> dict[str, Any]:
            out: dict[str, Any] = {"model": model, "created_at": _now()}
            out.update({"message": {"role": "assistant", "content": text}} if is_chat else {"response": text})
            out["done"] = done
            if done:
                out.update(
                    done_reason="stop",
                    total_duration=1_000_000,
                    load_duration=1_000,
                    prompt_eval_count=sum(len(m.content.split()) for m in messages),
                    prompt_eval_duration=1_000,
                    eval_count=1,
                    eval_duration=1_000,
                )
            return out

        if not stream:
            self._json(200, frame(answer.text() if isinstance(answer, Reply) else "".join(answer), True))
            return
        pieces = answer.split() if isinstance(answer, Reply) else answer
        lines = (json.dumps(frame(p, False)) + "\n" for p in pieces)
        trailer = json.dumps({"error": answer.error}) if isinstance(answer, Reply) and answer.error else None
        self._chunked("application/x-ndjson", lines, (trailer or json.dumps(frame("", True))) + "\n")

    def _openai_generate(self, body: dict[str, Any], model: str) -> None:
        messages = [Message(m["role"], m.get("content", "")) for m in body.get("messages", [])]
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        stream = bool(body.get("stream", False))
        answer = self.owner.answer(messages, schema, float(body.get("temperature", 1.0)), stream)
        if isinstance(answer, Reply) and not self._delay_then_check(answer, {"error": {"message": answer.error}}):
            return
        base = {"id": "chatcmpl-test", "created": int(time.time()), "model": model}
        if not stream:
            text = answer.text() if isinstance(answer, Reply) else "".join(answer)
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            self._json(200, {**base, "object": "chat.completion", "choices": [choice]})
            return

        def event(delta: dict[str, str], finish: str | None) -> str:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return f"data: {json.dumps({**base, 'object': 'chat.completion.chunk', 'choices': [choice]})}\n\n"

        pieces = answer.split() if isinstance(answer, Reply) else answer
        first = event({"role": "assistant", "content": ""}, None)
        events = itertools.chain([first], (event({"content": p}, None) for p in pieces))
        self._chunked("text/event-stream", events, event({}, "stop") + "data: [DONE]\n\n")

    def _delay_then_check(self, reply: Reply, error_body: dict[str, Any]) -> bool:
        """Sleep the scripted delay; send the scripted error or raw body. True when the reply should go on."""
        self.shape = reply
        if reply.delay_s:
            self.owner._stopping.wait(reply.delay_s)
        if reply.status != 200:
            self._json(reply.status, error_body)
            return False
        if reply.raw is not None:
            self._send(200, "application/json", reply.raw.encode())
            return False
        return True

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        self._send(status, "application/json; charset=utf-8", json.dumps(payload).encode())

    def _send(self, status: int, content_type: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.shape.cut_after is not None:
            self._write(data[: len(data) // 2])
            self._drop()
            return
        self._write(data)

    def _chunked(self, content_type: str, parts: Iterable[str], last: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for n, part in enumerate(itertools.chain(parts, [last])):
            if n == self.shape.cut_after:
                self._drop()
                return
            data = part.encode()
            self._write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self._write(b"0\r\n\r\n")

    def _write(self, data: bytes) -> None:
        if not self.shape.trickle_s:
            self.wfile.write(data)
            self.wfile.flush()
            return
        for i in range(len(data)):
            if self.owner._stopping.wait(self.shape.trickle_s):
                return
            self.wfile.write(data[i : i + 1])
            self.wfile.flush()

    def _drop(self) -> None:
        """End the connection mid-reply, as a crashed server does."""
        self.wfile.flush()
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)


EMBED_DIMENSION = 128


def hashed_vector(text: str) -> list[float]:
    """A deterministic unit vector for ``text``: its words (and CJK character pairs) hashed into buckets."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    cjk = re.sub(r"[^\u3040-\u30ff\u4e00-\u9fff]", "", text)
    features = words + [cjk[i : i + 2] for i in range(len(cjk) - 1)]
    vector = [0.0] * EMBED_DIMENSION
    for feature in features or [text]:
        digest = hashlib.sha256(feature.encode()).digest()
        vector[digest[0] % EMBED_DIMENSION] += 1.0 if digest[1] % 2 else -1.0
    norm = sum(v * v for v in vector) ** 0.5 or 1.0
    return [v / norm for v in vector]


def _tag(name: str) -> dict[str, Any]:
    details = {
        "parent_model": "",
        "format": "gguf",
        "family": "qwen2",
        "families": ["qwen2"],
        "parameter_size": "7.6B",
        "quantization_level": "Q4_K_M",
    }
    return {
        "name": name,
        "model": name,
        "modified_at": _now(),
        "size": 4_683_087_332,
        "digest": "sha256:" + "0" * 64,
        "details": details,
    }
