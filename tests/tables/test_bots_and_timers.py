"""Bot seats, people who run out of turnSeconds, and people who leave a started game."""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.tables.conftest import LiveServer, new_table, ok, sse
from tests.tables.test_lobby import play_out

pytestmark = pytest.mark.anyio


async def test_bots_play_their_seats_from_their_own_view(live: LiveServer) -> None:
    seats = [{"bot": {"level": "random"}}, "open", {"bot": {"level": "greedy"}}]
    tid, _, (ann,) = await new_table(live, 1, seats=seats)
    table = await ann.table()
    assert [s["kind"] for s in table["seats"]] == ["bot", "human", "bot"]
    final = await play_out(ann)
    assert final["status"] == "over"
    async with live.client() as c:
        record = ok(await c.get(f"/v1/tables/{tid}/record"))
    assert {m["player"] for m in record["moves"]} == {0, 1, 2}


async def test_a_bot_only_table_plays_to_the_end(live: LiveServer) -> None:
    async with live.client() as c:
        body = {"seats": [{"bot": {"level": "random"}}, {"bot": {"level": "random"}}]}
        created = ok(await c.post("/v1/tables", json=body), 201)
        tid = created["tableId"]
        host = {"authorization": f"Bearer {created['hostToken']}"}
        # The stream opens before the start: two random bots can finish a game before a stream
        # opened after the start is served (its snapshot would then be the end, with no event).
        async with sse(c, f"/v1/tables/{tid}/events") as stream:
            assert (await stream.next())["event"] == "snapshot"
            ok(await c.post(f"/v1/tables/{tid}/start", headers=host))
            over = await stream.until("over", timeout=30)
        assert over["data"]["ranking"]
        table = ok(await c.get(f"/v1/tables/{tid}"))
        assert table["status"] == "over" and table["version"] == over["id"]


async def test_turn_seconds_run_out_a_bot_plays_and_the_seat_is_away(live: LiveServer) -> None:
    tid, _, (ann, _bob) = await new_table(live, 2, turnSeconds=1)
    table = await ann.table()
    assert table["deadline"] is not None
    assert abs(table["deadline"] - (time.time() * 1000 + 1000)) < 1500
    async with live.client() as c, sse(c, f"/v1/tables/{tid}/events") as stream:
        await stream.next()
        timeout = await stream.until("timeout", timeout=5)
        assert timeout["data"]["player"] == 0
        move = await stream.next(timeout=5)
        assert move["event"] == "move" and move["data"]["bot"] and move["data"]["player"] == 0
    table = await ann.table()
    assert table["seats"][0]["away"] is True
    # the person takes the seat back by acting
    for _ in range(50):
        table = await ann.table()
        if table["toMove"] == 0 and table["moves"]:
            answer = await ann.move(table["moves"][0], table["version"])
            if answer.status_code == 200:
                break
        await asyncio.sleep(0.05)
    assert (await ann.table())["seats"][0]["away"] is False


async def test_a_person_who_leaves_a_started_game_is_replaced_by_a_bot(live: LiveServer) -> None:
    tid, _, (ann, bob) = await new_table(live, 2)
    ok(await bob.client.post(f"/v1/tables/{tid}/leave"))
    table = await ann.table()
    assert table["seats"][1]["kind"] == "bot" and table["seats"][1]["away"] is True
    assert table["seats"][1]["name"] == "p1"
    final = await play_out(ann)
    assert final["status"] == "over"
