"""An httpx transport under which a request's timeout bounds the whole request, not each read.

httpx applies its ``read`` timeout to every single socket read, so a server that sends one byte every few
seconds (or an endless stream) keeps a request alive for ever. Under ``WholeRequestTimeout`` the request's
``read`` timeout is a budget for everything: connecting, sending, waiting for the reply and reading its body
(streamed or not). Each phase may wait at most what is left of the budget (httpcore looks the timeouts up in the
request's ``extensions["timeout"]`` mapping as each phase starts), and the body stops with ``httpx.ReadTimeout``
at the first piece that arrives after the budget is spent, so a trickling reply ends on time.

Not covered: a server that trickles the bytes of its status line and headers, or of the chunk framing alone,
is bounded per read only (until h11's 16 KB header limit); an LLM server sends its text, which is covered.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx

MIN_WAIT_S = 0.001
"""The wait a spent budget still grants one socket operation (0 would switch the socket to non-blocking)."""


class _Budget(dict[str, Any]):
    """The timeouts httpcore reads, each capped by what is left until the deadline."""

    def __init__(self, timeouts: dict[str, Any], deadline: float) -> None:
        super().__init__(timeouts)
        self.deadline = deadline

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def get(self, key: str, default: Any = None) -> Any:
        own = super().get(key, default)
        left = max(self.left(), MIN_WAIT_S)
        return left if own is None else min(float(own), left)


class _BudgetedBody(httpx.SyncByteStream):
    """A response body that ends with ``ReadTimeout`` once the request's budget is spent."""

    def __init__(self, body: httpx.SyncByteStream, budget: _Budget, request: httpx.Request, total_s: float) -> None:
        self._body = body
        self._budget = budget
        self._request = request
        self._total_s = total_s

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._body:
            if self._budget.left() <= 0:
                raise httpx.ReadTimeout(
                    f"the reply was not complete after {self._total_s:g} s (the whole request's budget)",
                    request=self._request,
                )
            yield chunk

    def close(self) -> None:
        self._body.close()


class WholeRequestTimeout(httpx.BaseTransport):
    """Wraps a transport (a default ``httpx.HTTPTransport`` when none is given) so that each request's ``read``
    timeout bounds the whole request; its ``connect``/``write``/``pool`` timeouts still apply, within that bound.

    Args:
        inner: the transport that does the I/O.
    """

    def __init__(self, inner: httpx.BaseTransport | None = None) -> None:
        self._inner = inner or httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        timeouts = dict(request.extensions.get("timeout") or {})
        total_s = timeouts.get("read")
        if total_s is None:  # no timeout configured: nothing to bound
            return self._inner.handle_request(request)
        budget = _Budget(timeouts, time.monotonic() + float(total_s))
        request.extensions["timeout"] = budget
        response = self._inner.handle_request(request)
        if not isinstance(response.stream, httpx.SyncByteStream):
            return response
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_BudgetedBody(response.stream, budget, request, float(total_s)),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._inner.close()
