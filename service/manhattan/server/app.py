"""The app factory: settings, cache, sealer and routes wired into one Starlette application."""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import State
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL

import manhattan
from manhattan.api.encoding import render
from manhattan.api.errors import EXPECTED_ERRORS, INTERNAL_ERROR_MESSAGE, ApiError, to_api_error
from manhattan.api.graphql import fast as graphql_fast
from manhattan.api.graphql.limits import InputLimits
from manhattan.api.graphql.schema import build_schema
from manhattan.api.rest.games import rest_routes, stateless_paths
from manhattan.api.rest.openapi import openapi_document
from manhattan.api.rest.platforms import platform_routes
from manhattan.api.rest.shortcut import Shortcut
from manhattan.api.rest.stream import stream_routes, stream_shortcut
from manhattan.api.rest.table_socket import socket_table_id, table_socket
from manhattan.api.rest.tables import BUSIEST_ROUTES, table_routes
from manhattan.bot_pool import pool_from_settings
from manhattan.engine.build import kernel_build
from manhattan.games import BotBudget, LatestPositions, Operations
from manhattan.live.connection import CONNECTION_KEY
from manhattan.live.runtime import TableRuntime
from manhattan.platforms import Platforms
from manhattan.platforms.webhooks import Webhooks
from manhattan.sealing import Sealer
from manhattan.server.data_directory import open_table_store
from manhattan.server.metrics import CONTENT_TYPE, Metrics
from manhattan.server.middleware import ServiceMiddleware
from manhattan.server.pages import OfflineGraphQLApp, PageHeaders, embed_routes, page_routes
from manhattan.server.quotas import Quotas
from manhattan.server.rate_limit import RateLimiter
from manhattan.server.request_log import configure_logging
from manhattan.server.uvicorn_seam import UvicornSeam, give_back_memory
from manhattan.settings import Settings
from manhattan.store.cache import Backend, StateCache, make_backend
from manhattan.store.cas import ReportsHealth, VersionedStore
from manhattan.store.versioned import make_versioned_store

log = logging.getLogger("manhattan.api")

_HTTP_CODES = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 413: "PAYLOAD_TOO_LARGE"}


async def expected_error(request: Request, exc: Exception) -> Response:
    error = to_api_error(exc)
    assert error is not None
    request.app.state.metrics.count_error(error.code)
    return render(
        request, error.to_json(), status=error.status, headers=error.headers or None, strict=False
    )


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = _HTTP_CODES.get(exc.status_code, "INVALID_REQUEST")
    message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ").lower()
    error = ApiError(code, message)
    return render(request, error.to_json(), exc.status_code, dict(exc.headers or {}), strict=False)


async def internal_error(request: Request, exc: Exception) -> Response:
    log.error("unexpected error", exc_info=exc)
    request.app.state.metrics.count_error("INTERNAL_ERROR")
    return JSONResponse({"code": "INTERNAL_ERROR", "message": INTERNAL_ERROR_MESSAGE}, 500)


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> Response:
    ops: Operations = request.app.state.operations
    cache_ok = await ops.cache.ping()
    sealer = ops.sealer
    store = request.app.state.tables.store
    # A table store that answers errors (the embedded database damaged or failing) serves no
    # table: not ready. (A cache outage only degrades, below.)
    tables_error = await store.health() if isinstance(store, ReportsHealth) else None
    detail: dict[str, Any] = {
        # A cache outage degrades (ids cannot be read) but does not stop adjudication of
        # requests that carry their state, so the service stays ready.
        "status": "not ready" if tables_error else "ready" if cache_ok else "degraded",
        "rulesVersion": manhattan.RULES_VERSION,
        "kernel": kernel_build(),  # "compiled (mypyc)" or "pure Python"
        "cache": {"backend": ops.cache.backend.name, "ok": cache_ok},
        "tokens": {
            "keyId": sealer.current.kid,
            "ephemeral": sealer.ephemeral,
            "acceptedKeyIds": sealer.key_ids,
        },
        "strictStates": ops.strict_states,
        "bots": ops.bot_pool.load().to_json(),
    }
    if sealer.ephemeral:
        detail["tokens"]["warning"] = (
            "tokens are sealed with a key generated at start: they stop working on restart and "
            "are not shared between replicas; set MANHATTAN_TOKEN_KEY"
        )
    detail["tables"] = {"backend": store.name, "ok": tables_error is None}
    if tables_error:
        detail["tables"]["error"] = tables_error
        return JSONResponse(detail, status_code=503)
    return JSONResponse(detail)


async def metrics_endpoint(request: Request) -> Response:
    return Response(request.app.state.metrics.render(), media_type=CONTENT_TYPE)


async def openapi_endpoint(request: Request) -> Response:
    return JSONResponse(request.app.state.openapi)


@dataclass(frozen=True)
class Services:
    """What one app runs on, built once from the settings: one cache, one sealer, one bot pool
    (the games' operations and the tables share it), one tables runtime."""

    settings: Settings
    metrics: Metrics
    backend: Backend
    cache: StateCache
    sealer: Sealer
    positions: VersionedStore | None  # strict mode's latest positions
    operations: Operations
    tables: TableRuntime
    platforms: Platforms
    webhooks: Webhooks


def build_services(
    settings: Settings,
    *,
    backend: Backend | None = None,
    sealer: Sealer | None = None,
    positions: VersionedStore | None = None,
    seam: UvicornSeam | None = None,
) -> Services:
    seam = seam or UvicornSeam.from_settings(settings)
    metrics = Metrics()
    # First: the data directory's checks come before the token key is read (or made).
    table_store = open_table_store(settings)
    if backend is None:
        backend = make_backend(
            settings.redis_url,
            lru_size=settings.lru_size,
            retry_after=settings.redis_retry_after,
            **settings.redis_options,
        )
    if sealer is None:
        sealer = Sealer.from_settings(
            settings.token_key,
            settings.token_old_keys,
            max_token_chars=settings.max_token_chars,
            key_dir=settings.data_path,
        )
    cache = StateCache(
        backend,
        rules_version=manhattan.RULES_VERSION,
        ttl=settings.cache_ttl,
        observer=metrics.observe_cache,
    )
    if positions is None and settings.strict_states:
        positions = make_versioned_store(settings.redis_url, **settings.redis_options)
    bot_pool = pool_from_settings(settings)
    operations = Operations(
        cache,
        sealer,
        strict_states=settings.strict_states,
        positions=None if positions is None else LatestPositions(positions, settings.cache_ttl),
        max_moves=settings.max_moves_per_request,
        bot_budget=BotBudget(settings.bot_max_iterations, settings.bot_max_time_ms),
        bot_pool=bot_pool,
    )
    tables = TableRuntime.from_settings(
        settings,
        sealer,
        bot_pool,
        exiting=seam.exiting(),
        give_back=give_back_memory,
        store=table_store,
    )
    webhooks = Webhooks.from_settings(
        settings,
        tables.tables,
        functools.partial(configure_logging, settings.log_level),
        read=tables.hub.fresh,  # one read of a changed table for streams and webhooks
    )
    platforms = Platforms(webhooks.keys, tables.tables, tables.store, webhooks)
    tables.changes.hear(platforms)
    return Services(
        settings,
        metrics,
        backend,
        cache,
        sealer,
        positions,
        operations,
        tables,
        platforms,
        webhooks,
    )


def build_graphql(settings: Settings) -> OfflineGraphQLApp:
    """The GraphQL app (HTTP and graphql-transport-ws) with the settings' limits."""
    fast_path = graphql_fast.enabled(settings.graphql_fast_path)
    schema = build_schema(
        max_depth=settings.graphql_max_depth,
        max_aliases=settings.graphql_max_aliases,
        max_tokens=settings.graphql_max_tokens,
        introspection=settings.introspection,
        inputs=InputLimits(
            max_list_items=settings.max_moves_per_request,
            max_values=settings.graphql_max_input_values,
            max_cost=settings.graphql_max_cost,
            max_query_chars=settings.graphql_max_query_chars,
        ),
        cache_bytes=settings.graphql_cache_bytes,
        fast_path=fast_path,
    )
    graphql = OfflineGraphQLApp(
        schema,
        graphql_ide="graphiql" if settings.graphql_ide else None,
        fast_path=fast_path,
        subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
    )
    graphql.max_subscriptions_per_connection = settings.graphql_max_subscriptions
    return graphql


def build_routes(settings: Settings, graphql: OfflineGraphQLApp | None = None) -> list[BaseRoute]:
    """Every route: GraphQL, REST (games, tables, the tables' stream), health, metrics, the
    OpenAPI document, the service's pages and, unless off, the web page at ``/play``."""
    graphql = graphql or build_graphql(settings)
    routes: list[BaseRoute] = [
        Route("/graphql", graphql, methods=["GET", "POST"]),
        WebSocketRoute("/graphql", graphql),
        *rest_routes(),
        *table_routes(),
        *platform_routes(),
        *stream_routes(),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics_endpoint, methods=["GET"]),
        Route("/openapi.json", openapi_endpoint, methods=["GET"]),
        *page_routes(),
    ]
    web_dir = Path(settings.web_dir)
    if settings.web_dir != "off" and web_dir.is_dir():
        # Only the page's own directory: clients/web/e2e (the test driver) is never served.
        # Embeddable in this origin's pages and in MANHATTAN_EMBED_ORIGINS' (frame-ancestors).
        files = StaticFiles(directory=web_dir, html=True)
        play = PageHeaders(files, frame_ancestors=settings.embed_origins)
        routes.extend(embed_routes(settings.embed_origins))
        routes.append(Mount("/play", play, name="play"))
    return routes


def lifespan_of(services: Services) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    """Starts the bot pool and the tables' background tasks, and closes what was opened."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        sealer = services.sealer
        if sealer.ephemeral:
            log.warning(
                "no MANHATTAN_TOKEN_KEY: sealing tokens with an ephemeral key %s; tokens stop "
                "working on restart and are not shared between replicas",
                sealer.current.kid,
                extra={"keyId": sealer.current.kid},
            )
        log.info("cache backend", extra={"backend": services.backend.name})
        await services.operations.bot_pool.start()
        services.tables.start()
        services.webhooks.start()
        try:
            yield
        finally:
            await services.webhooks.close()
            await services.tables.close()
            await services.operations.bot_pool.close()
            await services.cache.close()
            if services.positions is not None:
                await services.positions.close()

    return lifespan


class AppState(State):
    """Starlette's ``app.state``, each value also the object's own attribute. Starlette keeps
    them in a dict behind ``__getattr__``, which Python calls only once the ordinary lookup has
    failed and formatted an ``AttributeError``: a few microseconds a read, and a request reads
    several."""

    def __setattr__(self, key: Any, value: Any) -> None:
        super().__setattr__(key, value)
        object.__setattr__(self, key, value)

    def __delattr__(self, key: Any) -> None:
        super().__delattr__(key)
        object.__delattr__(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self.__setattr__(key, value)

    def __delitem__(self, key: str) -> None:
        self.__delattr__(key)


class ServiceApp(Starlette):
    """Starlette, but a table's event stream (open for hours, holding every frame of the call
    that serves it) and the busiest routes (a table's move and GET, the stateless API) are
    served by
    ``Shortcut``s (``api/rest/shortcut.py``): the service middleware and the handler only, the
    same rate limiter, metrics and error handlers, without the error and exception middlewares
    and the router. Each shortcut is kept beside itself behind the service middleware."""

    def __init__(
        self,
        *,
        seam: UvicornSeam,
        streams: tuple[Shortcut, ASGIApp] | None,
        busiest: tuple[Shortcut, ASGIApp] | None,
        routes: list[BaseRoute],
        exception_handlers: dict[Any, Any],
        lifespan: Callable[[Starlette], AbstractAsyncContextManager[None]],
    ) -> None:
        super().__init__(routes=routes, exception_handlers=exception_handlers, lifespan=lifespan)
        self.state = AppState()
        #: What a stream or socket may use of the server beyond ASGI (``uvicorn_seam.py``).
        self.seam = seam
        self.streams = streams
        self.busiest = busiest

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.streams is not None and self.streams[0].takes(scope):
            scope["app"] = self
            if (connection := self.seam.connection(send)) is not None:
                scope[CONNECTION_KEY] = connection
            await self.streams[1](scope, receive, send)
            return
        if scope["type"] == "websocket" and (tid := socket_table_id(scope["path"])):
            # A table's socket, open for hours: without the router and the error middlewares
            # (it answers its own errors), and with the connection for the hub's writes.
            scope["app"], scope["path_params"] = self, {"id": tid}
            if (connection := self.seam.connection(send)) is not None:
                scope[CONNECTION_KEY] = connection
            await table_socket(WebSocket(scope, receive, send))
            return
        if self.busiest is not None and self.busiest[0].takes(scope):
            scope["app"] = self
            await self.busiest[1](scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def create_app(
    settings: Settings | None = None,
    *,
    backend: Backend | None = None,
    sealer: Sealer | None = None,
    positions: VersionedStore | None = None,
) -> ServiceApp:
    """The service. ``backend``, ``sealer`` and ``positions`` (strict mode's latest positions)
    override what ``settings`` would make (tests)."""
    settings = settings or Settings.from_env()
    seam = UvicornSeam.from_settings(settings)
    services = build_services(
        settings, backend=backend, sealer=sealer, positions=positions, seam=seam
    )
    graphql = build_graphql(settings)
    routes = build_routes(settings, graphql)
    handlers: dict[Any, Any] = {cls: expected_error for cls in EXPECTED_ERRORS}
    handlers[HTTPException] = http_error
    handlers[Exception] = internal_error
    # Shared with the GraphQL socket's operations (api/graphql/table_socket.py).
    rate_limiter = (
        RateLimiter(settings.rate_limit, settings.rate_burst) if settings.rate_limit else None
    )
    middleware: dict[str, Any] = {
        "metrics": services.metrics,
        "max_body_bytes": settings.max_body_bytes,
        "known_routes": frozenset(r.path for r in routes if isinstance(r, Route)),
        "rate_limiter": rate_limiter,
        "log_requests": settings.access_log,
    }
    streams = stream_shortcut(expected_error, internal_error)
    # The busiest routes: a table's move and GET, and the stateless API (REST and GraphQL).
    stateless = {**stateless_paths(), ("POST", "/graphql"): graphql.respond}
    busiest = Shortcut(BUSIEST_ROUTES, expected_error, internal_error, http_error, paths=stateless)
    app = ServiceApp(
        seam=seam,
        streams=(streams, ServiceMiddleware(streams, **middleware, replay_empty_body=False)),
        busiest=(busiest, ServiceMiddleware(busiest, **middleware)),
        routes=routes,
        exception_handlers=handlers,
        lifespan=lifespan_of(services),
    )
    app.state.operations = services.operations
    app.state.tables = services.tables
    app.state.platforms = services.platforms
    app.state.webhooks = services.webhooks
    app.state.metrics = services.metrics
    app.state.settings = settings
    app.state.quotas = Quotas.from_settings(settings, services.tables.store)
    app.state.openapi = openapi_document()
    app.state.rate_limiter = rate_limiter
    services.metrics.ephemeral_key.set(1 if services.sealer.ephemeral else 0)
    app.add_middleware(ServiceMiddleware, **middleware)
    return app
