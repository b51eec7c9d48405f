"""A table's history (``GET /v1/tables/{id}/history``, GraphQL ``tableHistory``): what a page opened
mid-game shows in "What happened". Each receiver gets what its stream would have given it from
the start: every move with the events it may see (a drawn card to its drawer alone), in order,
also for moves older than the table's recent events; the start, the joins and the end."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.tables.conftest import LiveServer, Seated, Sse, err, new_table, ok, sse

pytestmark = pytest.mark.anyio

#: More changes than the table's log keeps (24): the oldest moves come from the game replayed.
MOVES = 40


async def play(people: list[Seated], moves: int) -> None:
    for _ in range(moves):
        table = await people[0].table()
        if table["status"] != "playing":
            return
        mover = people[table["toMove"]]
        mine = await mover.table()
        ok(await mover.move(mine["moves"][0], mine["version"]))


async def streamed_moves(stream: Sse, until: int) -> list[dict[str, Any]]:
    """The move events of ``stream`` up to version ``until``, as (player, move, events)."""
    found = []
    while True:
        event = await stream.next(timeout=10)
        if event["event"] == "move":
            data = event["data"]
            found.append({"player": data["player"], "move": data["move"], "events": data["events"]})
        if event["id"] >= until:
            return found


def history_moves(history: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {key: event["data"][key] for key in ("player", "move", "events")}
        for event in history["events"]
        if event["event"] == "move"
    ]


def drawn(moves: list[dict[str, Any]]) -> set[int]:
    """The players whose drawn cards the moves show."""
    return {e["player"] for m in moves for e in m["events"] if e["type"] == "cardDrawn"}


async def test_a_page_opened_mid_game_gets_what_it_would_have_seen_from_the_start(
    live: LiveServer,
) -> None:
    tid, _, people = await new_table(live, 2)
    ann, bob = people
    ticket = ok(await bob.client.post(f"/v1/tables/{tid}/ticket"))["ticket"]
    async with (
        live.client() as c,
        sse(c, f"/v1/tables/{tid}/events?ticket={ticket}") as bobs,
        sse(c, f"/v1/tables/{tid}/events") as watched,
    ):
        await bobs.next()
        await watched.next()
        await play(people, MOVES)
        version = (await ann.table())["version"]
        seen_by_bob, seen_by_all = await asyncio.gather(
            streamed_moves(bobs, version), streamed_moves(watched, version)
        )
        for_bob = ok(await bob.client.get(f"/v1/tables/{tid}/history"))
        for_anyone = ok(await c.get(f"/v1/tables/{tid}/history"))
    assert for_bob["version"] == for_anyone["version"] == version
    assert len(seen_by_bob) == MOVES
    assert history_moves(for_bob) == seen_by_bob
    assert history_moves(for_anyone) == seen_by_all
    # Hidden information stays hidden: Bob's drawn cards to Bob, nobody's to a spectator.
    assert drawn(seen_by_bob) == {bob.player} and drawn(seen_by_all) == set()
    kinds = [event["event"] for event in for_anyone["events"]]
    assert kinds == ["started"] + ["move"] * MOVES
    started = for_anyone["events"][0]["data"]
    assert started["players"] == 2 and [s["name"] for s in started["seats"]] == ["p0", "p1"]
    # Asked again, one move later: the same, and that move after it.
    await play(people, 1)
    again = ok(await ann.client.get(f"/v1/tables/{tid}/history"))
    assert again["version"] == version + 1 and len(history_moves(again)) == MOVES + 1
    assert drawn(history_moves(again)) <= {ann.player}


async def test_a_waiting_table_has_its_joins_and_a_finished_one_its_end(
    live: LiveServer,
) -> None:
    tid, host, people = await new_table(live, 2, start=False, setup={"players": 2, "rounds": 1})
    waiting = ok(await people[0].client.get(f"/v1/tables/{tid}/history"))
    assert [(e["event"], e["data"]["name"]) for e in waiting["events"]] == [
        ("joined", "p0"),
        ("joined", "p1"),
    ]
    async with live.client(host) as c:
        ok(await c.post(f"/v1/tables/{tid}/start"))
    await play(people, 200)
    table = await people[0].table()
    assert table["status"] == "over"
    over = ok(await people[1].client.get(f"/v1/tables/{tid}/history"))
    assert over["events"][-1] == {"event": "over", "data": {"ranking": table["ranking"]}}


async def test_a_private_table_tells_its_history_to_its_people_only(live: LiveServer) -> None:
    tid, _, (ann, _) = await new_table(live, 2, public=False)
    await play([ann], 1)
    history = ok(await ann.client.get(f"/v1/tables/{tid}/history"))
    assert [e["event"] for e in history["events"]] == ["joined", "joined", "started", "move"]
    async with live.client() as c:
        err(await c.get(f"/v1/tables/{tid}/history"), 403, "NOT_SEATED")
        err(await c.get(f"/v1/tables/{'0' * 32}/history"), 404, "TABLE_NOT_FOUND")


HISTORY = (
    "query($id: ID!) { tableHistory(id: $id) { __typename "
    "... on TableHistory { tableId version events { event data } } "
    "... on TableRejected { code } } }"
)


async def test_graphql_gives_the_same_history(live: LiveServer) -> None:
    tid, _, people = await new_table(live, 2)
    await play(people, 6)
    rest = ok(await people[1].client.get(f"/v1/tables/{tid}/history"))
    asked = {"query": HISTORY, "variables": {"id": tid}}
    answer = ok(await people[1].client.post("/graphql", json=asked))["data"]["tableHistory"]
    assert answer == {"__typename": "TableHistory", **rest}
    async with live.client() as c:
        private, _, _ = await new_table(live, 2, public=False)
        asked = {"query": HISTORY, "variables": {"id": private}}
        refused = ok(await c.post("/graphql", json=asked))["data"]["tableHistory"]
        assert refused == {"__typename": "TableRejected", "code": "NOT_SEATED"}
