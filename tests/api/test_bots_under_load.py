"""Bots cannot starve the service: every bot move of suggest, advance and
GraphQL runs in the bot pool's worker processes, within one deadline per request; a full pool
answers 503 ``BOTS_BUSY`` with ``Retry-After``; a client that goes away stops its search."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest

import manhattan
from manhattan.bot_pool import BotFailed, BotPool
from tests.api.graphql.test_perf_http import REPLAY
from tests.conftest import MakeApp
from tests.service_client import connect

pytestmark = pytest.mark.anyio

MAX_ISMCTS = {"bot": "ismcts", "iterations": 20_000, "seed": 1}


def counting(pool: BotPool) -> list[str]:
    """The levels of the calls the pool serves from now on."""
    calls: list[str] = []
    original = pool.suggest

    async def spy(state: Any, player: int, choice: Any, **options: Any) -> Any:
        calls.append(choice.level)
        return await original(state, player, choice, **options)

    pool.suggest = spy  # type: ignore[method-assign]
    return calls


async def test_cheap_requests_answer_while_a_maximum_budget_bot_runs(
    make_app: MakeApp, mid_json: dict[str, Any]
) -> None:
    # A deadline shorter than the budget takes even the compiled kernel (some 10,000 ISMCTS
    # iterations a second here): the search runs until the deadline stops it.
    app = make_app(bot_workers=1, bot_deadline_ms=1_000)
    async with connect(app) as client:
        await client.post("/v1/suggest", json={"state": mid_json, "bot": "random"})  # warm
        started = time.monotonic()
        bot = asyncio.ensure_future(
            client.post("/v1/suggest", json={"state": mid_json, **MAX_ISMCTS})
        )
        await asyncio.sleep(0.2)
        slowest = 0.0
        while not bot.done():
            start = time.monotonic()
            health = await client.get("/healthz")
            moves = await client.post("/v1/legal-moves", json={"state": mid_json})
            slowest = max(slowest, time.monotonic() - start)
            assert health.status_code == 200 and moves.status_code == 200
            await asyncio.sleep(0.1)
        answer = await bot
        assert answer.status_code == 200, answer.text
        assert slowest < 1.0  # the search runs in another process: the loop stays free
        assert time.monotonic() - started < 3.0 + 1.5
        assert answer.json()["stats"]["stoppedBy"] == "deadline"


async def test_the_deadline_cuts_a_budget_and_the_cut_suggestion_is_not_cached(
    make_app: MakeApp, mid_json: dict[str, Any]
) -> None:
    app = make_app(bot_workers=1, bot_deadline_ms=400)
    await app.state.operations.bot_pool.start()
    calls = counting(app.state.operations.bot_pool)
    async with connect(app) as client:
        request = {"state": mid_json, **MAX_ISMCTS}
        for _ in range(2):
            start = time.monotonic()
            body = (await client.post("/v1/suggest", json=request)).json()
            assert time.monotonic() - start < 0.4 + 2.5  # (slack for a busy machine)
            assert body["stats"]["stoppedBy"] == "deadline"
            assert 1 <= body["stats"]["iterations"] < 20_000
            assert "timeMs" in body["stats"] and "time_ms" not in body["stats"]
        assert calls == ["ismcts", "ismcts"]  # computed twice: never served from the cache
        small = {"state": mid_json, "bot": "ismcts", "iterations": 30, "seed": 2}
        first = (await client.post("/v1/suggest", json=small)).json()
        again = (await client.post("/v1/suggest", json=small)).json()
        assert first == again and first["stats"]["stoppedBy"] == "iterations"
        assert calls == ["ismcts", "ismcts", "ismcts"]  # the reproducible one was cached


async def test_a_full_pool_is_503_bots_busy_with_retry_after(
    make_app: MakeApp, mid_json: dict[str, Any]
) -> None:
    app = make_app(bot_workers=1, bot_queue=0, bot_deadline_ms=1_500)
    async with connect(app) as client:
        await app.state.operations.bot_pool.start()
        long = asyncio.ensure_future(
            client.post("/v1/suggest", json={"state": mid_json, **MAX_ISMCTS})
        )
        await asyncio.sleep(0.3)
        busy = await client.post("/v1/suggest", json={"state": mid_json, "bot": "greedy"})
        assert busy.status_code == 503
        assert busy.json()["code"] == "BOTS_BUSY"
        assert 1 <= int(busy.headers["retry-after"]) <= 2
        gql = await client.post(
            "/graphql",
            json={
                "query": "query($s: JSON!) { suggestMove(state: {json: $s}) "
                "{ ... on MoveRejected { code } } }",
                "variables": {"s": mid_json},
            },
        )
        assert gql.json()["data"]["suggestMove"] == {"code": "BOTS_BUSY"}
        assert (await long).status_code == 200


GRAPHQL_LONG = (
    "query($s: JSON!) { a: suggestMove(state: {json: $s}, bot: {level: ismcts, iterations: 20000}) "
    "{ ... on Suggestion { stats } } }"
)


@pytest.mark.parametrize("path", ["/v1/suggest", "/v1/advance", "/graphql"])
async def test_a_client_that_disconnects_cancels_its_search(
    make_app: MakeApp, mid_state: manhattan.State, mid_json: dict[str, Any], path: str
) -> None:
    app = make_app(bot_workers=1, bot_queue=1, bot_deadline_ms=30_000)
    pool: BotPool = app.state.operations.bot_pool
    await pool.start()
    payload: dict[str, Any] = {
        "/v1/suggest": {"state": mid_json, **MAX_ISMCTS},
        "/v1/advance": {
            "state": mid_json,
            "player": ((mid_state.to_move or 0) + 3) % 4,
            "bot": {"level": "ismcts", "iterations": 20_000},
        },
        "/graphql": {"query": GRAPHQL_LONG, "variables": {"s": mid_json}},
    }[path]
    body = json.dumps(payload).encode()
    sent: list[dict[str, Any]] = []
    disconnect = asyncio.Event()
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await disconnect.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"host", b"service")],
        "client": ("127.0.0.1", 1234),
        "server": ("service", 80),
        REPLAY: True,  # not replayed through both GraphQL paths: the client hung up mid-way
    }
    request = asyncio.ensure_future(app(scope, receive, send))
    start = time.monotonic()
    while pool.load().busy == 0:  # until the 20,000-iteration search runs
        assert time.monotonic() - start < 5
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.3)
    disconnect.set()
    await asyncio.wait_for(request, 5)
    start = time.monotonic()
    async with connect(app) as client:  # the only worker is free again at once
        after = await client.post("/v1/suggest", json={"state": mid_json, "bot": "greedy"})
    assert after.status_code == 200 and time.monotonic() - start < 2.0
    assert sent[0]["status"] == 499  # nobody reads it


async def test_suggest_advance_and_graphql_all_go_through_the_pool(
    make_app: MakeApp, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    app = make_app(bot_deadline_ms=2_000)
    calls = counting(app.state.operations.bot_pool)
    async with connect(app) as client:
        await client.post("/v1/suggest", json={"state": mid_json, "bot": "random"})
        assert calls == ["random"]
        mover = mid_state.to_move or 0
        seat = (mover + 1) % mid_state.rules.players
        advance = {"state": mid_json, "player": seat, "bot": {"level": "greedy", "seed": 3}}
        body = (await client.post("/v1/advance", json=advance)).json()
        assert len(body["moves"]) >= 1 and calls[1:] == ["greedy"] * len(body["moves"])
        before = len(calls)
        query = (
            "query($s: JSON!) { a: suggestMove(state: {json: $s}, bot: {level: random, seed: 8}) "
            "{ ... on Suggestion { bot } } b: suggestMove(state: {json: $s}, bot: {level: greedy}) "
            "{ ... on Suggestion { bot } } }"
        )
        gql = await client.post("/graphql", json={"query": query, "variables": {"s": mid_json}})
        assert gql.json()["data"] == {"a": {"bot": "random"}, "b": {"bot": "greedy"}}
        assert calls[before:] == ["random", "greedy"]


async def test_one_deadline_bounds_a_whole_advance_and_fifteen_aliases(
    make_app: MakeApp, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    app = make_app(bot_deadline_ms=1_000)
    await app.state.operations.bot_pool.start()
    async with connect(app) as client:
        mover = mid_state.to_move or 0
        seat = (mover + mid_state.rules.players - 1) % mid_state.rules.players  # 3 bot moves
        bot = {"level": "ismcts", "iterations": 20_000}
        start = time.monotonic()
        body = await client.post(
            "/v1/advance", json={"state": mid_json, "player": seat, "bot": bot}
        )
        assert body.status_code == 200, body.text
        assert len(body.json()["moves"]) == 3
        assert time.monotonic() - start < 1.0 + 1.5  # the deadline, plus slack for a busy machine
        fields = " ".join(
            f"a{i}: suggestMove(state: {{json: $s}}, "
            f"bot: {{level: ismcts, iterations: 20000, seed: {i}}})"
            " { ... on Suggestion { stats } ... on MoveRejected { code } }"
            for i in range(15)
        )
        start = time.monotonic()
        gql = await client.post(
            "/graphql",
            json={"query": f"query($s: JSON!) {{ {fields} }}", "variables": {"s": mid_json}},
        )
        assert time.monotonic() - start < 1.0 + 1.5  # the deadline, plus slack for a busy machine
        answers = gql.json()["data"]
        assert len(answers) == 15
        assert all(a["stats"]["stoppedBy"] == "deadline" for a in answers.values())


async def test_a_bug_inside_a_bot_is_a_logged_500_not_invalid_bot(
    make_app: MakeApp,
    mid_json: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = make_app()

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise BotFailed("the greedy bot failed")

    monkeypatch.setattr(app.state.operations.bot_pool, "suggest", broken)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://service") as client:
        response = await client.post("/v1/suggest", json={"state": mid_json, "bot": "greedy"})
    assert response.status_code == 500 and response.json()["code"] == "INTERNAL_ERROR"
    assert any("unexpected error" in r.getMessage() for r in caplog.records)


async def test_readyz_shows_the_pool(make_app: MakeApp) -> None:
    app = make_app(bot_workers=1, bot_queue=3, bot_deadline_ms=2_500)
    async with connect(app) as client:
        bots = (await client.get("/readyz")).json()["bots"]
    assert bots == {
        "workers": 1,
        "running": 0,
        "busy": 0,
        "queued": 0,
        "queueLimit": 3,
        "deadlineMs": 2500,
    }


async def test_unknown_levels_stay_invalid_bot(
    client: httpx.AsyncClient, mid_json: dict[str, Any]
) -> None:
    response = await client.post("/v1/suggest", json={"state": mid_json, "bot": "smart"})
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_BOT")
    advance = {"state": mid_json, "player": 0, "bot": {"level": "smart"}}
    response = await client.post("/v1/advance", json=advance)
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_BOT")
