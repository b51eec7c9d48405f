"""The app factory: what one app runs on is built once and shared."""

from __future__ import annotations

from starlette.routing import Route

from manhattan.server.app import build_services, create_app
from manhattan.settings import Settings


def test_one_bot_pool_serves_games_and_tables() -> None:
    services = build_services(Settings(access_log=False))
    assert services.tables.bots.pool is services.operations.bot_pool
    app = create_app(Settings(access_log=False))
    assert app.state.tables.bots.pool is app.state.operations.bot_pool


def test_every_route_is_served_once() -> None:
    app = create_app(Settings(access_log=False))
    routes = [(r.path, tuple(sorted(r.methods or ()))) for r in app.routes if isinstance(r, Route)]
    assert len(routes) == len(set(routes))
    assert ("/v1/tables/{id}/events", ("GET", "HEAD")) in routes
