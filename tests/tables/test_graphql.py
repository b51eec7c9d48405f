"""Tables over GraphQL: the queries, the mutations and ``tableEvents`` over graphql-transport-ws,
which gives the same events as the SSE stream."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.asyncio.client import connect

from .conftest import LiveServer, new_table, ok, sse

pytestmark = pytest.mark.anyio

TABLE = "tableId status version you toMove moves view seats { player kind name }"


async def gql(live: LiveServer, query: str, token: str | None = None, **variables: Any) -> Any:
    async with live.client(token) as c:
        body = ok(await c.post("/graphql", json={"query": query, "variables": variables}))
    return body


async def test_lobby_and_moves_over_graphql(live: LiveServer) -> None:
    created = (
        await gql(
            live,
            'mutation($seats: [String!]) { createTable(seats: $seats, name: "g") '
            "{ tableId hostToken table { status version } } }",
            seats=["open", "open"],
        )
    )["data"]["createTable"]
    tid = created["tableId"]
    assert created["table"] == {"status": "waiting", "version": 1}
    listed = (await gql(live, "{ tables { tableId } }"))["data"]["tables"]
    assert tid in [t["tableId"] for t in listed]
    join = (
        "mutation($id: ID!, $name: String!) "
        "{ joinTable(id: $id, name: $name) { player seatToken } }"
    )
    ann = (await gql(live, join, id=tid, name="ann"))["data"]["joinTable"]
    bob = (await gql(live, join, id=tid, name="bob"))["data"]["joinTable"]
    started = await gql(
        live,
        f"mutation($id: ID!) {{ startTable(id: $id) {{ {TABLE} }} }}",
        created["hostToken"],
        id=tid,
    )
    assert started["data"]["startTable"]["status"] == "playing"
    mine = (
        await gql(
            live, f"query($id: ID!) {{ table(id: $id) {{ {TABLE} }} }}", ann["seatToken"], id=tid
        )
    )["data"]["table"]
    assert mine["you"] == 0 and mine["moves"]
    move = """mutation($id: ID!, $move: MoveInput!, $version: Int!, $moveId: String) {
      tableMove(id: $id, move: $move, version: $version, moveId: $moveId) {
        __typename
        ... on TableMoved { version view events }
        ... on TableRejected { code message table { version you } }
      }
    }"""
    done = await gql(
        live,
        move,
        ann["seatToken"],
        id=tid,
        move=mine["moves"][0],
        version=mine["version"],
        moveId="g1",
    )
    assert done["data"]["tableMove"]["__typename"] == "TableMoved"
    again = await gql(
        live,
        move,
        ann["seatToken"],
        id=tid,
        move=mine["moves"][0],
        version=mine["version"],
        moveId="g1",
    )
    assert again["data"]["tableMove"] == done["data"]["tableMove"]
    stale = await gql(
        live, move, bob["seatToken"], id=tid, move=mine["moves"][0], version=mine["version"]
    )
    assert stale["data"]["tableMove"]["code"] == "STALE_VERSION"
    assert stale["data"]["tableMove"]["table"] == {"version": mine["version"] + 1, "you": 1}
    chat = await gql(
        live,
        'mutation($id: ID!) { sendChat(id: $id, text: "gg") { version message } }',
        bob["seatToken"],
        id=tid,
    )
    assert chat["data"]["sendChat"]["message"]["text"] == "gg"
    refused = await gql(
        live, 'mutation($id: ID!) { sendChat(id: $id, text: "x") { version } }', id=tid
    )
    assert refused["errors"][0]["extensions"]["code"] == "NOT_SEATED"
    left = await gql(
        live,
        "mutation($id: ID!) { leaveTable(id: $id) { seats { kind away } } }",
        bob["seatToken"],
        id=tid,
    )
    assert left["data"]["leaveTable"]["seats"][1] == {"kind": "bot", "away": True}
    missing = await gql(live, 'query { table(id: "nope") { status } }')
    assert missing["errors"][0]["extensions"]["code"] == "TABLE_NOT_FOUND"


async def ws_events(
    live: LiveServer, query: str, variables: dict[str, Any], count: int
) -> list[Any]:
    url = live.url.replace("http", "ws") + "/graphql"
    out = []
    async with connect(url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init"}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        await ws.send(
            json.dumps(
                {
                    "id": "1",
                    "type": "subscribe",
                    "payload": {"query": query, "variables": variables},
                }
            )
        )
        while len(out) < count:
            message = json.loads(await ws.recv())
            if message["type"] == "next":
                out.append(message["payload"])
            elif message["type"] in ("error", "complete"):
                out.append(message)
                break
    return out


SUBSCRIBE = (
    "subscription($id: ID!, $ticket: String, $last: Int) "
    "{ tableEvents(id: $id, ticket: $ticket, lastEventId: $last) { id event data } }"
)


async def test_table_events_match_the_sse_stream(live: LiveServer) -> None:
    tid, _, (ann, bob) = await new_table(live, 2)
    for _ in range(2):
        table = await ann.table()
        mover = ann if table["toMove"] == 0 else bob
        mine = await mover.table()
        ok(await mover.move(mine["moves"][0], mine["version"]))
    ticket = ok(await bob.client.post(f"/v1/tables/{tid}/ticket"))["ticket"]
    got = await ws_events(live, SUBSCRIBE, {"id": tid, "ticket": ticket, "last": 3}, 3)
    events = [g["data"]["tableEvents"] for g in got]
    assert [(e["id"], e["event"]) for e in events] == [(4, "started"), (5, "move"), (6, "move")]
    ticket = ok(await bob.client.post(f"/v1/tables/{tid}/ticket"))["ticket"]
    async with (
        live.client() as c,
        sse(c, f"/v1/tables/{tid}/events?ticket={ticket}", {"last-event-id": "3"}) as stream,
    ):
        over_sse = [await stream.next() for _ in range(3)]
    assert [(e["id"], e["event"], e["data"]) for e in over_sse] == [
        (e["id"], e["event"], e["data"]) for e in events
    ]
    # a snapshot for a spectator, and the ticket is single use
    spectator = await ws_events(live, SUBSCRIBE, {"id": tid}, 1)
    snapshot = spectator[0]["data"]["tableEvents"]
    assert snapshot["event"] == "snapshot" and snapshot["data"]["view"]["hand"] == []
    reused = await ws_events(live, SUBSCRIBE, {"id": tid, "ticket": ticket}, 1)
    assert reused[0]["errors"][0]["extensions"]["code"] == "BAD_SEAT"


async def test_subscriptions_are_bounded_per_connection() -> None:
    async with LiveServer(graphql_max_subscriptions=2) as live:
        tid, _, _ = await new_table(live, 2)
        url = live.url.replace("http", "ws") + "/graphql"
        async with connect(url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
            await ws.send(json.dumps({"type": "connection_init"}))
            await ws.recv()
            for i in range(3):
                await ws.send(
                    json.dumps(
                        {
                            "id": str(i),
                            "type": "subscribe",
                            "payload": {"query": SUBSCRIBE, "variables": {"id": tid}},
                        }
                    )
                )
            answers: dict[str, str] = {}
            while len(answers) < 3:
                message = json.loads(await asyncio.wait_for(ws.recv(), 5))
                answers.setdefault(message["id"], message["type"])
                if message["type"] == "error":
                    assert message["payload"][0]["message"] == "Subscription limit reached"
            assert sorted(answers.values()) == ["error", "next", "next"]
