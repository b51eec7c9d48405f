"""The stateless routes (REST and ``POST /graphql``) served by the app's ``Shortcut`` answer
exactly as through Starlette's router and error middlewares: the same requests, good and bad,
against a service with the shortcut and one without it."""

from __future__ import annotations

import json
from typing import Any

import httpx
import msgpack
import pytest

from manhattan.api.rest.games import stateless_paths
from manhattan.server.app import create_app
from manhattan.settings import Settings

pytestmark = pytest.mark.anyio

MOVES = "query($s: StateRef!) { legalMoves(state: $s) { notation } }"


async def _answers(app: Any) -> list[tuple[int, str, Any]]:
    """(status, content type, body) of a run of requests, good and bad."""
    # (Starlette's error middleware raises again after its 500, as a server would log it.)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://service") as client:
        game = (await client.post("/v1/games", json={"players": 4, "seed": "lane"})).json()
        ref = {"id": game["stateId"]}
        packed = {"content-type": "application/msgpack", "accept": "application/msgpack"}
        replies = [
            await client.post("/v1/legal-moves", json={"state": ref}),
            await client.post("/v1/legal-moves", json={"state": game["state"]}),
            await client.post(
                "/v1/legal-moves", content=msgpack.packb({"state": ref}), headers=packed
            ),
            await client.post(
                "/v1/legal-moves", json={"state": ref}, headers={"accept": "text/csv"}
            ),
            await client.post("/v1/legal-moves", content=b"{not json"),
            await client.post("/v1/legal-moves", json={"state": ref, "extra": 1}),
            await client.post("/v1/legal-moves", json={"state": {"id": "0" * 32}}),
            await client.post(
                "/v1/legal-moves", content=b"x", headers={"content-type": "text/plain"}
            ),
            await client.get("/v1/legal-moves"),
            await client.post("/v1/legal-moves/"),
            await client.post("/v1/apply", json={"state": ref, "move": "s0:2,2,1,1"}),
            await client.post("/v1/apply", json={"state": ref}),
            await client.post("/v1/score", json={"state": ref}),
            await client.post("/v1/states", json={"state": game["state"]}),
            await client.get("/v1/rules"),
            await client.head("/v1/rules"),
            await client.post("/v1/render.svg", json={"state": ref}),
            await client.post("/graphql", json={"query": MOVES, "variables": {"s": ref}}),
            await client.post("/graphql", json={"query": "{ nope }"}),
            await client.post("/graphql", content=b"[1, 2"),
            await client.post("/graphql", content=b"query=x", headers={"content-type": "text/x"}),
        ]
        app.state.operations.readings.score = _crash  # a bug in a handler: 500, no details
        replies.append(await client.post("/v1/score", json={"state": ref}))
    return [(r.status_code, r.headers.get("content-type", ""), _shape(r.content)) for r in replies]


async def _crash(*_: Any) -> Any:
    raise RuntimeError("a bug")


def _shape(content: bytes) -> Any:
    try:
        body = json.loads(content)
    except ValueError:
        return len(content)
    if isinstance(body, dict) and "token" in body:  # (a token differs every time)
        body["token"] = "..."
    return body


async def test_the_stateless_shortcut_answers_as_the_router_does() -> None:
    answers = []
    for shortcut in (True, False):
        app: Any = create_app(Settings(access_log=False))
        if not shortcut:
            app.busiest = None
        answers.append(await _answers(app))
    with_shortcut, through_router = answers
    assert with_shortcut == through_router
    statuses = [status for status, _, _ in with_shortcut]
    assert {200, 201, 307, 400, 404, 405, 406, 415, 500} <= set(statuses)


def test_the_app_serves_the_stateless_routes_by_the_shortcut() -> None:
    app: Any = create_app(Settings(access_log=False))
    shortcut = app.busiest[0]
    for method, path in (("POST", "/v1/legal-moves"), ("POST", "/graphql"), ("GET", "/v1/rules")):
        assert shortcut.takes({"type": "http", "method": method, "path": path})
    for method, path in (("GET", "/graphql"), ("HEAD", "/v1/rules"), ("GET", "/v1/states/x")):
        assert not shortcut.takes({"type": "http", "method": method, "path": path})
    assert ("POST", "/v1/apply") in stateless_paths()
