"""The service's own pages for people with a browser: ``GET /`` (where to go next), the favicon,
GraphiQL at ``GET /graphql`` and the REST reference (Swagger UI) at ``GET /docs``, their scripts
served from ``/static/graphiql`` and ``/static/swagger-ui`` rather than a CDN, so both work on a
machine without internet. Those files are vendored (the npm packages' bytes, in ``vendor/``),
kept apart from ``static/`` (the service's own files).

Every page, and every file under ``/static`` and ``/play`` (the web page keeps seat tokens in
its storage), is sent with ``PAGE_HEADERS``: scripts only from files of this origin (no inline
script: GraphiQL's start-up is ``/static/graphiql/start.js``), no framing, no type sniffing, no
referrer. Styles may be inline: GraphiQL's editor injects its own. The files of ``PageHeaders``
(``/play``, whose page holds the table's GraphQL websocket) may also connect to ``ws://`` and
``wss://`` of the host they were asked from: CSP Level 3 lets ``'self'`` match them, browsers
that predate it do not.
"""

from __future__ import annotations

import html
import re
from functools import cache, lru_cache
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import manhattan
from manhattan.api.graphql.view import GraphQLApp

STATIC_DIR = Path(__file__).with_name("static")
#: Served at ``/static/graphiql``: the npm packages' files byte for byte (see its README).
GRAPHIQL_DIR = Path(__file__).with_name("vendor") / "graphiql"
#: Served at ``/static/swagger-ui``: swagger-ui-dist's files byte for byte (see its README).
SWAGGER_UI_DIR = Path(__file__).with_name("vendor") / "swagger-ui"

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
PAGE_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}
_RAW_PAGE_HEADERS = [(k.encode(), v.encode()) for k, v in PAGE_HEADERS.items()]


# A Host header as a browser sends it: a name or an address, and a port. Anything else (spaces,
# a semicolon that would start another directive) gets the policy without the socket sources.
_HOST = re.compile(r"(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


@lru_cache(maxsize=64)
def _raw_headers_for(host: str, ancestors: tuple[str, ...] | None) -> list[tuple[bytes, bytes]]:
    """``PAGE_HEADERS`` for a file asked from ``host``: ``connect-src`` names its websockets;
    with ``ancestors`` (the web page's), ``frame-ancestors`` is ``'self'`` and those origins."""
    policy = CONTENT_SECURITY_POLICY
    if _HOST.fullmatch(host):
        policy = policy.replace(
            "connect-src 'self'", f"connect-src 'self' ws://{host} wss://{host}"
        )
    if ancestors is not None:
        framers = " ".join(("'self'", *ancestors))
        policy = policy.replace("frame-ancestors 'none'", f"frame-ancestors {framers}")
    return [
        (k.encode(), (policy if k == "content-security-policy" else v).encode())
        for k, v in PAGE_HEADERS.items()
    ]


class PageHeaders:
    """An ASGI app (static files) whose every response carries ``PAGE_HEADERS``, its
    ``connect-src`` with the websockets of the host asked (``ws://host wss://host``); with
    ``frame_ancestors`` (the web page, embeddable), the page of this origin and of those origins
    may frame it."""

    def __init__(self, app: ASGIApp, *, frame_ancestors: tuple[str, ...] | None = None) -> None:
        self.app = app
        self.frame_ancestors = frame_ancestors

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = next((v for k, v in scope.get("headers", ()) if k == b"host"), b"")
        headers = _raw_headers_for(host.decode("latin-1"), self.frame_ancestors)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *headers]
            await send(message)

        await self.app(scope, receive, with_headers)


def embed_routes(origins: tuple[str, ...]) -> list[BaseRoute]:
    """``GET /play/embed.json``: the origins allowed to frame the web page, which it posts its
    events to (and to no other): ``{"origins": [...]}``."""
    body = {"origins": list(origins)}

    async def embed(request: Request) -> Response:
        headers = {**PAGE_HEADERS, "cache-control": "no-cache"}
        return JSONResponse(body, headers=headers)

    return [Route("/play/embed.json", embed, methods=["GET"])]


# Where a newcomer goes next; the JSON answer and the HTML page list the same places.
LINKS: tuple[tuple[str, str, str], ...] = (
    ("play", "/play/", "play Manhattan in the browser: open a table, invite people or bots"),
    ("graphql", "/graphql", "GraphQL endpoint (POST); GraphiQL when opened in a browser"),
    ("docs", "/docs", "the REST API's interactive reference (REST lives under /v1)"),
    ("openapi", "/openapi.json", "the REST API's OpenAPI document"),
    ("rules", "/v1/rules", "what the service adjudicates: editions, variants, bots, codes"),
    ("health", "/healthz", "liveness; /readyz for readiness, /metrics for Prometheus"),
)
DOCS = (
    "/docs for the REST API; the documentation site (docs/ in the source tree, built with "
    "mkdocs): tutorials, how-to guides, the reference and how it works"
)


def wants_html(request: Request) -> bool:
    """A browser asks for text/html first; curl (``*/*``) and API clients get JSON."""
    accept = request.headers.get("accept", "")
    return "text/html" in accept.split(",")[0] or accept.startswith("text/html")


async def landing(request: Request) -> Response:
    if not wants_html(request):
        return JSONResponse(
            {
                "service": "manhattan-rules",
                "rulesVersion": manhattan.RULES_VERSION,
                "links": {name: path for name, path, _ in LINKS},
                "docs": DOCS,
            },
            headers=PAGE_HEADERS,
        )
    return HTMLResponse(_landing_html(), headers=PAGE_HEADERS)


@cache
def _landing_html() -> str:
    items = "\n".join(
        f'    <li><a href="{path}">{html.escape(path)}</a>: {html.escape(what)}</li>'
        for _, path, what in LINKS
    )
    return f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Manhattan rules-as-a-service</title>
  <link rel="icon" href="/favicon.svg" type="image/svg+xml">
  <style>
    body {{ font-family: system-ui, Helvetica, Arial, sans-serif; max-width: 42rem;
      margin: 2rem auto; padding: 0 1rem; color: #22252b; background: #fbfaf7; line-height: 1.5; }}
    a {{ color: #2e6fd8; }} .play {{ font-size: 1.3rem; font-weight: bold; }}
  </style>
</head>
<body>
  <h1>Manhattan rules-as-a-service</h1>
  <p>Adjudicates the skyscraper board game <em>Manhattan</em> (rules version
  {manhattan.RULES_VERSION}) for any program that asks, and hosts tables where
  people and bots play together.</p>
  <p class="play"><a href="/play/">Play in the browser &rarr;</a></p>
  <ul>
{items}
  </ul>
  <p>Documentation: {html.escape(DOCS)}.</p>
</body>
</html>
"""


async def favicon(request: Request) -> Response:
    return Response(_favicon(), media_type="image/svg+xml", headers=_CACHED)


_CACHED = {"cache-control": "public, max-age=86400", **PAGE_HEADERS}


@cache
def _favicon() -> bytes:
    return (STATIC_DIR / "favicon.svg").read_bytes()


@cache
def graphiql_html() -> str:
    return (GRAPHIQL_DIR / "index.html").read_text(encoding="utf-8")


@cache
def rest_reference_html() -> str:
    return (SWAGGER_UI_DIR / "index.html").read_text(encoding="utf-8")


async def rest_reference(request: Request) -> Response:
    """``GET /docs``: Swagger UI over ``/openapi.json``, every file from this service."""
    return HTMLResponse(rest_reference_html(), headers=PAGE_HEADERS)


class OfflineGraphQLApp(GraphQLApp):
    """The GraphQL app whose IDE page loads GraphiQL from this service, not from unpkg."""

    @property
    def graphql_ide_html(self) -> str:
        return graphiql_html()

    async def render_graphql_ide(self, request: Request) -> Response:
        return HTMLResponse(self.graphql_ide_html, headers=PAGE_HEADERS)


def page_routes() -> list[BaseRoute]:
    return [
        Route("/", landing, methods=["GET"]),
        Route("/favicon.ico", favicon, methods=["GET"]),
        Route("/favicon.svg", favicon, methods=["GET"]),
        Route("/docs", rest_reference, methods=["GET"]),
        Mount(
            "/static/graphiql", PageHeaders(StaticFiles(directory=GRAPHIQL_DIR)), name="graphiql"
        ),
        Mount(
            "/static/swagger-ui",
            PageHeaders(StaticFiles(directory=SWAGGER_UI_DIR)),
            name="swagger-ui",
        ),
        Mount("/static", PageHeaders(StaticFiles(directory=STATIC_DIR)), name="static"),
    ]
