"""The app factory: what one app runs on is built once and shared."""

from __future__ import annotations

import pytest
from starlette.routing import Route

from manhattan.api.rest.tables import BUSIEST_ROUTES
from manhattan.server.app import AppState, ServiceApp, build_services, create_app
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


def test_the_app_is_given_its_shortcuts_and_seam_when_made() -> None:
    """Nothing is attached once the app exists: a ``ServiceApp`` made without its seam or
    shortcuts is refused, and the factory's has the ones it was built with."""
    with pytest.raises(TypeError):
        ServiceApp(routes=[], exception_handlers={}, lifespan=None)  # type: ignore[call-arg,arg-type]
    app = create_app(Settings(access_log=False, uvicorn_fast_path=False))
    assert app.seam.fast is False
    assert app.streams is not None and app.streams[0].takes(
        {"type": "http", "method": "GET", "path": "/v1/tables/abc/events"}
    )
    assert app.busiest is not None and app.busiest[0].endpoints == BUSIEST_ROUTES
    assert app.state.rate_limiter is None


def test_the_app_state_reads_as_attributes_and_as_starlette_s() -> None:
    state = AppState()
    state.operations = "ops"
    state["tables"] = "tables"
    assert (state.operations, state.tables, state["operations"]) == ("ops", "tables", "ops")
    assert sorted(state) == ["operations", "tables"] and len(state) == 2
    del state.operations
    del state["tables"]
    assert len(state) == 0
    for gone in ("operations", "tables"):
        with pytest.raises(AttributeError):
            getattr(state, gone)
    assert isinstance(create_app(Settings(data_dir=":memory:")).state, AppState)
