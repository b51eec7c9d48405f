"""The API tests' own fixture: GraphQL requests replayed through both execution paths (the apps,
clients and states they share with other test packages are in ``tests/conftest.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette


@pytest.fixture(autouse=True)
def graphql_paths_agree() -> Iterator[None]:
    """Every request a test sends to ``/graphql`` is replayed when the test ends through both the
    lean path and strawberry's view, which must answer alike (``test_perf_http``).
    Apps on an external cache backend are left out (their connections belong to the test's
    event loop); replays are capped per test."""
    from manhattan.api.encoding import BODY_KEY
    from manhattan.api.graphql.view import GraphQLApp
    from tests.api.graphql.test_perf_http import REPLAY, replay_recorded

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
                # (the body as the middleware kept it, which the app reads without receiving)
                kept = scope.get(BODY_KEY)
                body = b"".join(chunks) if kept is None else kept
                recorded.append((app, dict(scope), body))

    GraphQLApp.__call__ = recording  # type: ignore[method-assign]
    try:
        yield
    finally:
        GraphQLApp.__call__ = original  # type: ignore[method-assign]
    replay_recorded(recorded)


_MAX_REPLAYS = 200
