"""The busiest table routes served by a ``Shortcut`` (``api/rest/shortcut.py``) answer exactly
as through Starlette's router and error middlewares: the same requests, good and bad, against a
service with the shortcut and one without it."""

from __future__ import annotations

from typing import Any

import pytest

from manhattan.api.rest.shortcut import Shortcut
from manhattan.api.rest.tables import BUSIEST_ROUTES
from manhattan.server.app import create_app
from manhattan.settings import Settings
from tests.tables.conftest import LiveServer, new_table

pytestmark = pytest.mark.anyio


async def _answers(live: LiveServer) -> list[tuple[int, Any]]:
    """(status, code or body keys) of a run of requests, good and bad."""
    tid, _, (ann, _bob) = await new_table(live, 2)
    table = await ann.table()
    anon = live.client()
    base = f"/v1/tables/{tid}"
    replies = [
        await ann.move(table["moves"][0], table["version"], "m1"),
        await ann.move(table["moves"][0], table["version"], "m1"),  # the same move id again
        await ann.move(table["moves"][0], table["version"]),  # stale now
        await anon.post(f"{base}/moves", json={"move": table["moves"][0], "version": 5}),
        await ann.client.post(f"{base}/moves", content=b"{not json"),
        await ann.client.post(f"{base}/moves", json=[1, 2]),
        await ann.client.post(f"{base}/moves", json={"version": "x"}),
        await ann.client.post("/v1/tables/nosuchtable/moves", json={"move": {}, "version": 1}),
        await ann.client.get(base),
        await anon.get(base),
        await anon.get("/v1/tables/nosuchtable"),
        await anon.get("/v1/tables/" + "0" * 32),
        await anon.get(f"{base}/", follow_redirects=False),
        await anon.head(base),
        await anon.put(base),
    ]
    live.app.state.tables.tables.move_request = _crash  # a bug in a handler: 500, no details
    replies.append(await ann.move(table["moves"][0], 6))
    return [(r.status_code, _shape(r)) for r in replies]


async def _crash(*_: Any) -> Any:
    raise RuntimeError("a bug")


def _shape(reply: Any) -> Any:
    if not reply.content or not reply.headers.get("content-type", "").startswith("application"):
        return None
    body = reply.json()
    return body.get("code") or sorted(body)


async def test_the_shortcut_answers_as_the_router_does() -> None:
    answers = []
    for shortcut in (True, False):
        live = LiveServer()
        if not shortcut:
            live.app.busiest = None  # type: ignore[attr-defined]
        async with live:
            answers.append(await _answers(live))
    with_shortcut, through_router = answers
    assert with_shortcut == through_router
    codes = [shape for _, shape in with_shortcut]
    assert "STALE_VERSION" in codes and "TABLE_NOT_FOUND" in codes and "INTERNAL_ERROR" in codes


def test_the_shortcut_takes_its_routes_only() -> None:
    shortcut = Shortcut(BUSIEST_ROUTES, _crash, _crash)

    def takes(method: str, path: str) -> bool:
        return shortcut.takes({"type": "http", "method": method, "path": path})

    assert takes("POST", "/v1/tables/abc/moves") and takes("GET", "/v1/tables/abc")
    assert not takes("GET", "/v1/tables/abc/")  # the router redirects a trailing slash
    assert not takes("HEAD", "/v1/tables/abc") and not takes("GET", "/v1/tables/abc/moves")
    assert not takes("POST", "/v1/tables/abc/chat") and not takes("POST", "/v1/tables//moves")
    assert not takes("POST", "/v1/tables/abc/moves/x") and not takes("GET", "/v1/tables")
    assert not shortcut.takes({"type": "websocket", "path": "/v1/tables/abc"})


def test_the_app_serves_its_busiest_routes_by_the_shortcut() -> None:
    app: Any = create_app(Settings(data_dir=":memory:", access_log=False))
    assert app.busiest is not None and app.busiest[0].endpoints == BUSIEST_ROUTES
