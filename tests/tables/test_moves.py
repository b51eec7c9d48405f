"""Moves at a table (DESIGN §9): versions, move ids, turn order, rules errors, the record."""

from __future__ import annotations

import asyncio

import pytest

from tests.tables.conftest import LiveServer, err, new_table, ok
from tests.tables.test_lobby import play_out

pytestmark = pytest.mark.anyio


async def test_a_move_answers_the_movers_view_and_events(live: LiveServer) -> None:
    _tid, _, (ann, bob) = await new_table(live, 2)
    table = await ann.table()
    assert table["toMove"] == 0 and table["version"] == 4 and table["moves"]
    assert (await bob.table())["moves"] == []  # not bob's turn
    answer = ok(await ann.move(table["moves"][0], 4))
    assert answer["version"] == 5
    assert answer["view"]["player"] == 0 and "hand" in answer["view"]
    assert [e["type"] for e in answer["events"]] == ["piecesSelected"]
    seen = await bob.table()
    assert seen["version"] == 5 and seen["toMove"] == answer["view"]["toMove"]
    assert bool(seen["moves"]) == (seen["toMove"] == 1)


async def test_stale_version_carries_the_current_table(live: LiveServer) -> None:
    _tid, _, people = await new_table(live, 2)
    table = await people[0].table()
    ok(await people[0].move(table["moves"][0], 4))
    mover = people[(await people[0].table())["toMove"]]
    mine = await mover.table()
    body = err(await mover.move(mine["moves"][0], 4), 409, "STALE_VERSION")
    assert body["table"]["version"] == 5 and body["table"]["you"] == mover.player
    assert body["table"]["moves"] == mine["moves"]
    assert body["table"]["view"]["hand"] == mine["view"]["hand"]


async def test_not_your_turn_and_no_seat(live: LiveServer) -> None:
    tid, host, (ann, bob) = await new_table(live, 2)
    table = await ann.table()
    err(await bob.move(table["moves"][0], 4), 409, "NOT_YOUR_TURN")
    async with live.client() as c:
        body = {"move": table["moves"][0], "version": 4}
        err(await c.post(f"/v1/tables/{tid}/moves", json=body), 403, "NOT_SEATED")
        as_host = {"authorization": f"Bearer {host}"}
        err(await c.post(f"/v1/tables/{tid}/moves", json=body, headers=as_host), 403, "NOT_SEATED")
        junk = {"authorization": "Bearer x.y.z"}
        err(await c.post(f"/v1/tables/{tid}/moves", json=body, headers=junk), 401, "BAD_SEAT")
        basic = {"authorization": "Basic abc"}
        err(await c.post(f"/v1/tables/{tid}/moves", json=body, headers=basic), 401, "BAD_SEAT")
    assert (await ann.table())["version"] == 4  # nothing was applied


async def test_rules_errors_as_everywhere_else(live: LiveServer) -> None:
    tid, _, (ann, _) = await new_table(live, 2)
    err(
        await ann.move({"type": "select", "color": 0, "pieces": [9, 9, 9, 9]}, 4),
        422,
        "ILLEGAL_MOVE",
    )
    err(await ann.move({"type": "jump"}, 4), 400, "INVALID_MOVE")
    err(await ann.move("not notation", 4), 400, "INVALID_MOVE")
    err(
        await ann.move({"type": "select", "color": 0, "pieces": [1, 1, 1, 1]}, "4"),
        400,
        "INVALID_REQUEST",
    )
    r = await ann.client.post(f"/v1/tables/{tid}/moves", json={"version": 4})
    err(r, 400, "INVALID_REQUEST")
    assert (await ann.table())["version"] == 4


async def test_a_retried_move_id_is_answered_as_the_first_time(live: LiveServer) -> None:
    _tid, _, (ann, bob) = await new_table(live, 2)
    table = await ann.table()
    first = ok(await ann.move(table["moves"][0], 4, "a-1"))
    again = ok(await ann.move(table["moves"][0], 4, "a-1"))  # the old version: still answered
    assert again == first
    assert (await bob.table())["version"] == 5
    # the same id from another seat is that seat's own id
    while (current := await ann.table())["toMove"] == 0:
        ok(await ann.move(current["moves"][0], current["version"], f"x{current['version']}"))
    bobs = await bob.table()
    ok(await bob.move(bobs["moves"][0], bobs["version"], "a-1"))
    assert (await ann.table())["version"] == bobs["version"] + 1
    # after later moves the retry still gets the first answer, never a second application
    assert ok(await ann.move(table["moves"][0], 4, "a-1")) == first


async def test_a_move_before_the_start_or_after_the_end(live: LiveServer) -> None:
    _, _, (ann, _) = await new_table(live, 2, start=False)
    err(
        await ann.move({"type": "select", "color": 0, "pieces": [1, 1, 1, 1]}, 3),
        409,
        "TABLE_NOT_PLAYING",
    )
    _tid, _, (ann,) = await new_table(live, 1, seats=["open", {"bot": {"level": "random"}}])
    final = await play_out(ann)
    assert final["status"] == "over" and final["ranking"] and final["toMove"] is None
    err(
        await ann.move({"type": "select", "color": 0, "pieces": [1, 1, 1, 1]}, final["version"]),
        409,
        "GAME_OVER",
    )


async def test_the_record_after_the_end_replays(live: LiveServer) -> None:
    tid, _, (ann,) = await new_table(live, 1, seats=["open", {"bot": {"level": "random"}}])
    final = await play_out(ann)
    async with live.client() as c:
        record = ok(await c.get(f"/v1/tables/{tid}/record"))
        assert set(record) == {"setup", "moves"} and record["setup"]["seed"]
        assert record["setup"]["players"] == 2
        replayed = ok(await c.post("/v1/replay", json=record))
    assert replayed["ranking"] == final["ranking"]
    assert replayed["movesApplied"] == len(record["moves"])


async def test_chat_is_bounded_and_rate_limited(live: LiveServer) -> None:
    tid, host, (ann, bob) = await new_table(live, 2)
    path = f"/v1/tables/{tid}/chat"
    err(await ann.client.post(path, json={"text": "x" * 281}), 400, "INVALID_REQUEST")
    err(await ann.client.post(path, json={"text": "   "}), 400, "INVALID_REQUEST")
    async with live.client(host) as as_host:
        err(await as_host.post(path, json={"text": "hi"}), 403, "NOT_SEATED")
    for i in range(5):
        ok(await ann.client.post(path, json={"text": f"m{i}"}))
    err(await ann.client.post(path, json={"text": "one too many"}), 429, "RATE_LIMITED")
    ok(await bob.client.post(path, json={"text": "bob is not limited by ann"}))
    chat = (await bob.table())["chat"]
    assert [m["text"] for m in chat][-2:] == ["m4", "bob is not limited by ann"]
    assert chat[-1]["player"] == 1 and chat[-1]["name"] == "p1"


async def test_tables_expire_after_their_idle_time() -> None:
    async with LiveServer(table_idle_seconds=2) as live:
        tid, _, (ann, _) = await new_table(live, 2)
        assert (await ann.table())["status"] == "playing"
        await asyncio.sleep(2.5)
        err(await ann.client.get(f"/v1/tables/{tid}"), 404, "TABLE_NOT_FOUND")
