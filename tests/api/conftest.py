"""Fixtures for the service tests: apps built inline and driven in-process through httpx."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

import manhattan
from manhattan.api.app import create_app
from manhattan.bench.engine import mid_game_state
from manhattan.settings import Settings

from .service_client import connect


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def mid_state() -> manhattan.State:
    """A 4-player classic state in round 2's build phase."""
    return mid_game_state()


@pytest.fixture(scope="session")
def mid_json(mid_state: manhattan.State) -> dict[str, Any]:
    return mid_state.to_json()


@pytest.fixture(scope="session")
def select_state() -> manhattan.State:
    return manhattan.new_game(players=4, seed="select")


MakeApp = Callable[..., Starlette]


@pytest.fixture
def make_app() -> MakeApp:
    def make(**settings: Any) -> Starlette:
        settings.setdefault("access_log", False)
        return create_app(Settings(**settings))

    return make


@pytest.fixture
async def client(make_app: MakeApp) -> AsyncIterator[httpx.AsyncClient]:
    async with connect(make_app()) as c:
        yield c


@pytest.fixture(autouse=True)
def graphql_paths_agree() -> Iterator[None]:
    """Every request a test sends to ``/graphql`` is replayed when the test ends through both the
    lean path and strawberry's view, which must answer alike (``test_perf_graphql_http``).
    Apps on an external cache backend are left out (their connections belong to the test's
    event loop); replays are capped per test."""
    from manhattan.api.graphql_schema import GraphQLApp

    from .test_perf_graphql_http import REPLAY, replay_recorded

    recorded: list[tuple[Starlette, dict[str, Any], bytes]] = []
    original = GraphQLApp.__call__

    async def recording(self: GraphQLApp, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or REPLAY in scope or len(recorded) >= _MAX_REPLAYS:
            await original(self, scope, receive, send)
            return
        chunks: list[bytes] = []

        async def tap() -> Any:
            message = await receive()
            chunks.append(message.get("body", b""))
            return message

        try:
            await original(self, scope, tap, send)
        finally:
            app = scope.get("app")
            if app is not None and app.state.operations.cache.backend.name == "memory":
                recorded.append((app, dict(scope), b"".join(chunks)))

    GraphQLApp.__call__ = recording  # type: ignore[method-assign]
    try:
        yield
    finally:
        GraphQLApp.__call__ = original  # type: ignore[method-assign]
    replay_recorded(recorded)


_MAX_REPLAYS = 200
