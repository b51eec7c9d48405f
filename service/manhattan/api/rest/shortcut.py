"""The busiest table routes served without Starlette's router and error middlewares.

A table move or a table GET went through eight layers of calls before its handler (the error
middleware, the exception middleware, the router's linear scan of some 40 routes, the route's
request-response wrapper), each with a wrapper around ``send``: some 7 % of the service's CPU in
the flat-out phase of ``manhattan bench tables``. ``Shortcut`` serves the few routes it is
given (a method and the path's last part, below ``/v1/tables/{id}``) straight from the service
middleware: the same handler, the same ``path_params``, the same error handlers (an expected
error through ``on_error``, an HTTP error through ``on_http``, anything else through
``on_crash``), the same metrics and limits (the service middleware wraps it). Every other
request, and a route it does not know, goes the usual way (the routes stay in the router).

The table's event stream is one too (``api/rest/stream.py``): open for hours, it would hold
every frame of those layers. So are the stateless routes (``paths``: a method and an exact path,
such as ``POST /v1/legal-moves`` and ``POST /graphql``), where those layers were a quarter of
what a request costs beyond its rules.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from manhattan.api.errors import to_api_error

Endpoint = Callable[[Request], Awaitable[Response]]
ErrorHandler = Callable[[Request, Exception], Awaitable[Response]]

TABLES_PREFIX = "/v1/tables/"
#: The scope key under which ``takes`` leaves what it found (the shortcut, the endpoint and its
#: path parameters).
_FOUND_KEY = "manhattan.shortcut"


class Shortcut:
    """ASGI app of ``endpoints``, keyed by (method, action): ``action`` is what follows
    ``/v1/tables/{id}/`` (``""`` for the table itself); and of ``paths``, keyed by (method,
    path) for routes without parameters."""

    def __init__(
        self,
        endpoints: Mapping[tuple[str, str], Endpoint],
        on_error: ErrorHandler,
        on_crash: ErrorHandler,
        on_http: ErrorHandler | None = None,
        *,
        paths: Mapping[tuple[str, str], Endpoint] | None = None,
    ) -> None:
        self.endpoints = dict(endpoints)
        self.paths = dict(paths or {})
        self.on_error, self.on_crash = on_error, on_crash
        self.on_http = on_http or on_crash

    def takes(self, scope: Scope) -> bool:
        """Whether ``scope`` is an HTTP request of one of the endpoints (then kept in the scope
        for ``__call__``: found once)."""
        if scope["type"] != "http":
            return False
        found = self._endpoint(scope)
        if found is None:
            return False
        scope[_FOUND_KEY] = (self, found)
        return True

    def _endpoint(self, scope: Scope) -> tuple[Endpoint, dict[str, str]] | None:
        path: str = scope.get("path", "")
        exact = self.paths.get((scope.get("method", ""), path))
        if exact is not None:
            return exact, {}
        if not path.startswith(TABLES_PREFIX):
            return None
        table, slash, action = path[len(TABLES_PREFIX) :].partition("/")
        # (a trailing slash is the router's: it redirects)
        if not table or "/" in action or (slash and not action):
            return None
        endpoint = self.endpoints.get((scope.get("method", ""), action))
        return None if endpoint is None else (endpoint, {"id": table})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kept = scope.get(_FOUND_KEY)
        found = kept[1] if kept is not None and kept[0] is self else self._endpoint(scope)
        assert found is not None, "a request the shortcut does not take"
        endpoint, scope["path_params"] = found
        request = Request(scope, receive)
        try:
            response = await endpoint(request)
        except Exception as exc:
            response = await self._handler(exc)(request, exc)
        del request  # (a stream's request is held no longer than it is needed)
        await response(scope, receive, send)

    def _handler(self, exc: Exception) -> ErrorHandler:
        if to_api_error(exc) is not None:
            return self.on_error
        if isinstance(exc, HTTPException):
            return self.on_http
        return self.on_crash
