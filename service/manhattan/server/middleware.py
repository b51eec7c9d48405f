"""The one ASGI middleware in front of every route: request id, rate limit, body-size limit,
metrics and the access log.

The body is read here, up to ``max_body_bytes``, before any route parses it: uvicorn has no body
limit of its own, and a limit enforced after parsing would not protect anything. A larger body is
answered with 413 ``PAYLOAD_TOO_LARGE`` as soon as its size is known (from Content-Length, or
while streaming).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from manhattan.api.client_address import client_address
from manhattan.api.encoding import BODY_KEY, HEADERS_KEY
from manhattan.api.errors import ApiError
from manhattan.server.metrics import Metrics
from manhattan.server.rate_limit import RateLimiter
from manhattan.server.request_log import request_id, request_id_from
from manhattan.wire.numbers import ascii_decimal

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

access_log = logging.getLogger("manhattan.access")


class BodyTooLarge(Exception):
    pass


def route_label(path: str, known: frozenset[str]) -> str:
    """A bounded label for metrics: the route template, never the raw path."""
    if path in known:
        return path
    if path.startswith("/v1/states/"):
        return "/v1/states/{id}"
    if path.startswith("/v1/tables/"):
        parts = path.split("/")  # "", "v1", "tables", id, action?
        if len(parts) == 4:
            return "/v1/tables/{id}"
        if len(parts) == 5 and parts[4] in _TABLE_ACTIONS:
            return "/v1/tables/{id}/" + parts[4]
    return "other"


_TABLE_ACTIONS = frozenset(
    {"join", "start", "moves", "leave", "chat", "rematch", "ticket", "events", "record"}
)


class ServiceMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        metrics: Metrics,
        max_body_bytes: int,
        known_routes: frozenset[str],
        rate_limiter: RateLimiter | None = None,
        log_requests: bool = True,
        replay_empty_body: bool = True,
    ) -> None:
        self.app = app
        self.metrics = metrics
        self.max_body_bytes = max_body_bytes
        self.known_routes = known_routes
        self.rate_limiter = rate_limiter
        self.log_requests = log_requests
        #: False for an app that never reads an empty body (the table streams): it gets the
        #: server's ``receive`` itself, one closure less per open stream.
        self.replay_empty_body = replay_empty_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        raw_headers = scope.get("headers") or ()
        headers = dict(raw_headers)
        rid = request_id_from(_header(headers, b"x-request-id"))
        token = request_id.set(rid)
        status = [500]
        rid_header = (b"x-request-id", rid.encode())

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
                message["headers"] = [*message.get("headers", ()), rid_header]
            await send(message)

        if len(headers) == len(raw_headers):
            scope[HEADERS_KEY] = headers
        try:
            error = self._refusal(scope, headers, len(raw_headers))
            if error is None:
                try:
                    body = await self._read_body(receive, headers)
                except BodyTooLarge:
                    error = self._too_large()
            if error is not None:
                self.metrics.count_error(error.code)
                await _send_error(send_with_id, error)
            else:
                if body or self.replay_empty_body:
                    receive = _replay(body, receive)
                    scope[BODY_KEY] = body  # read by the routes without replaying it
                await self.app(scope, receive, send_with_id)
        finally:
            elapsed = time.perf_counter() - started
            path = scope.get("path", "")
            route = route_label(path, self.known_routes)
            self.metrics.observe_request(route, scope.get("method", ""), status[0], elapsed)
            if self.log_requests:
                access_log.info(
                    "request",
                    extra={
                        "method": scope.get("method"),
                        "path": path,
                        "status": status[0],
                        "ms": round(elapsed * 1000, 3),
                    },
                )
            request_id.reset(token)

    def _refusal(self, scope: Scope, headers: dict[bytes, bytes], count: int) -> ApiError | None:
        if count != len(headers):
            repeated = _repeated_caller_header(scope["headers"])
            if repeated is not None:
                return ApiError(
                    "INVALID_REQUEST", f"{repeated} is given more than once; send it once"
                )
        if self.rate_limiter is not None:
            wait = self.rate_limiter.allow(client_address(scope))
            if wait > 0:
                return ApiError(
                    "RATE_LIMITED",
                    "too many requests from this client; slow down",
                    headers={"retry-after": str(max(1, round(wait)))},
                )
        length = _header(headers, b"content-length")
        declared = None if length is None else ascii_decimal(length, digits=30)
        if declared is not None and declared > self.max_body_bytes:
            return self._too_large()
        return None

    def _too_large(self) -> ApiError:
        return ApiError(
            "PAYLOAD_TOO_LARGE", f"the request body is larger than {self.max_body_bytes} bytes"
        )

    async def _read_body(self, receive: Receive, headers: dict[bytes, bytes]) -> bytes:
        chunks: list[bytes] = []
        size = 0
        message = await receive()
        while message["type"] == "http.request":
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                raise BodyTooLarge
            if not message.get("more_body", False):
                if not chunks and type(chunk) is bytes:
                    return chunk  # the whole body in one message, as most come
                chunks.append(chunk)
                break
            chunks.append(chunk)
            message = await receive()
        # (disconnected: the route sees what came, and the response is lost)
        return b"".join(chunks)


#: Headers that say who the caller is (``operations.Caller``). A relay in front of the service
#: sets them; if it appends its own to a client's, which one wins would depend on the reader
#: (the first, in Starlette): so a repeated one is refused outright.
CALLER_HEADERS = (b"manhattan-player", b"manhattan-game")


def _repeated_caller_header(raw_headers: Any) -> str | None:
    seen: set[bytes] = set()
    for name, _ in raw_headers:
        if name in CALLER_HEADERS:
            if name in seen:
                return str(name.decode()).title()
            seen.add(name)
    return None


def _header(headers: dict[bytes, bytes], name: bytes) -> str | None:
    value = headers.get(name)
    return None if value is None else value.decode("latin-1")


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _send_error(send: Send, error: ApiError) -> None:
    body = json.dumps(error.to_json()).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *((k.lower().encode(), v.encode()) for k, v in error.headers.items()),
    ]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
