"""Tables over GraphQL: the queries, the mutations and ``tableEvents`` over graphql-transport-ws,
which gives the same events as the SSE stream."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from websockets.asyncio.client import connect

import manhattan
from manhattan.api.graphql.types import PlayerView
from tests.doc_examples import FRONTEND, TABLES_GRAPHQL, graphql_operations
from tests.tables.conftest import LiveServer, Seated, new_table, ok, sse
from tests.tables.test_lobby import play_out

pytestmark = pytest.mark.anyio

TABLE = (
    "tableId status version you toMove players seats { player kind name } "
    "moves { type card neighborhood floors color pieces notation } "
    "view { player phase hand json } chat { player text at } raw"
)
# ``table`` (set for STALE_VERSION) is selected only where the answer has no ``table: Table!``:
# GraphQL refuses one response name with two types in one selection.
REJECTED = "... on TableRejected { code message path }"


async def gql(live: LiveServer, query: str, token: str | None = None, **variables: Any) -> Any:
    async with live.client(token) as c:
        body = ok(await c.post("/graphql", json={"query": query, "variables": variables}))
    return body


def field(answer: Any, name: str) -> Any:
    assert "errors" not in answer, answer
    return answer["data"][name]


CREATE = f"""mutation($seats: [SeatInput!], $setup: GameSetup) {{
  createTable(seats: $seats, setup: $setup, name: "g") {{
    __typename
    ... on CreatedTable {{ tableId hostToken table {{ status version seats {{ kind name }} }} }}
    {REJECTED}
  }}
}}"""
JOIN = f"""mutation($id: ID!, $name: String!) {{
  joinTable(id: $id, name: $name) {{ ... on SeatedAtTable {{ player seatToken }} {REJECTED} }}
}}"""
TABLE_QUERY = f"query($id: ID!) {{ table(id: $id) {{ ... on Table {{ {TABLE} }} {REJECTED} }} }}"
MOVE = """mutation($id: ID!, $move: MoveInput!, $version: Int!, $moveId: String) {
  tableMove(id: $id, move: $move, version: $version, moveId: $moveId) {
    __typename
    ... on TableMoved { version view { player hand json } events }
    ... on TableRejected { code message path table { version you } }
  }
}"""


async def test_lobby_and_moves_over_graphql(live: LiveServer) -> None:
    created = field(await gql(live, CREATE, seats=[{"open": True}, {"open": True}]), "createTable")
    assert created["__typename"] == "CreatedTable"
    tid = created["tableId"]
    assert created["table"]["status"] == "waiting" and created["table"]["version"] == 1
    listed = field(await gql(live, "{ tables { tableId status } }"), "tables")
    assert {"tableId": tid, "status": "waiting"} in listed
    ann = field(await gql(live, JOIN, id=tid, name="ann"), "joinTable")
    bob = field(await gql(live, JOIN, id=tid, name="bob"), "joinTable")
    full = field(await gql(live, JOIN, id=tid, name="cy"), "joinTable")
    assert full["code"] == "TABLE_FULL"
    started = field(
        await gql(
            live,
            f"mutation($id: ID!) {{ startTable(id: $id) {{ ... on Table {{ {TABLE} }} }} }}",
            created["hostToken"],
            id=tid,
        ),
        "startTable",
    )
    assert started["status"] == "playing" and started["players"] == 2
    # the host is not seated: the public view, no player, no hand, no moves
    assert started["view"]["player"] is None and started["view"]["hand"] == []
    assert started["moves"] == [] and started["view"]["json"] == started["raw"]["view"]
    mine = field(await gql(live, TABLE_QUERY, ann["seatToken"], id=tid), "table")
    assert mine["you"] == 0 and mine["view"]["player"] == 0 and mine["view"]["hand"]
    assert mine["view"]["json"] == mine["raw"]["view"]
    assert [m["notation"] for m in mine["moves"]] == [m["notation"] for m in mine["raw"]["moves"]]
    assert mine["moves"][0]["type"] == "select"
    move = {k: v for k, v in mine["moves"][0].items() if v is not None}
    done = await gql(
        live, MOVE, ann["seatToken"], id=tid, move=move, version=mine["version"], moveId="g1"
    )
    moved = field(done, "tableMove")
    assert moved["__typename"] == "TableMoved" and moved["version"] == mine["version"] + 1
    assert moved["view"]["player"] == 0 and moved["events"][0]["type"] == "piecesSelected"
    again = await gql(
        live, MOVE, ann["seatToken"], id=tid, move=move, version=mine["version"], moveId="g1"
    )
    assert again == done
    stale = field(
        await gql(live, MOVE, bob["seatToken"], id=tid, move=move, version=mine["version"]),
        "tableMove",
    )
    assert stale["code"] == "STALE_VERSION"
    assert stale["table"] == {"version": mine["version"] + 1, "you": 1}
    # ChatSent.message (the message, as in REST) and TableRejected.message (a string) need an
    # alias when both are selected
    chat = """mutation($id: ID!, $text: String!) {
      sendChat(id: $id, text: $text) {
        ... on ChatSent { version sent: message { player name text at } }
        ... on TableRejected { code message path }
      }
    }"""
    sent = field(await gql(live, chat, bob["seatToken"], id=tid, text="gg"), "sendChat")
    assert sent["sent"]["text"] == "gg" and sent["sent"]["name"] == "bob"
    assert sent["sent"]["at"] > 1.6e12  # epoch milliseconds: beyond GraphQL's Int
    refused = field(await gql(live, chat, id=tid, text="x"), "sendChat")
    assert refused["code"] == "NOT_SEATED"
    blank = field(await gql(live, chat, bob["seatToken"], id=tid, text=" "), "sendChat")
    assert (blank["code"], blank["path"]) == ("INVALID_REQUEST", "$.text")
    left = field(
        await gql(
            live,
            "mutation($id: ID!) { leaveTable(id: $id) { ... on Table { seats { kind away } } } }",
            bob["seatToken"],
            id=tid,
        ),
        "leaveTable",
    )
    assert left["seats"][1] == {"kind": "bot", "away": True}
    revoked = field(await gql(live, TABLE_QUERY, bob["seatToken"], id=tid), "table")
    assert revoked["code"] == "BAD_SEAT"
    missing = field(await gql(live, TABLE_QUERY, id="nope"), "table")
    assert missing["code"] == "TABLE_NOT_FOUND"


async def rest_fault(live: LiveServer, body: dict[str, Any]) -> tuple[str, str | None]:
    async with live.client() as c:
        response = await c.post("/v1/tables", json=body)
    assert response.status_code in (400, 422), response.text
    answer = response.json()
    return answer["code"], answer.get("path")


@pytest.mark.parametrize(
    ("bot", "rest_bot"),
    [
        ({"level": "random", "seed": 5}, {"level": "random", "seed": 5}),
        ({"level": "ismcts", "iterations": 0}, {"level": "ismcts", "iterations": 0}),
        ({"level": "ismcts", "iterations": 20001}, {"level": "ismcts", "iterations": 20001}),
        ({"level": "greedy", "timeMs": 2001}, {"level": "greedy", "timeMs": 2001}),
    ],
)
async def test_a_bot_seat_is_refused_as_rest_refuses_it(
    live: LiveServer, bot: dict[str, Any], rest_bot: dict[str, Any]
) -> None:
    rejected = field(await gql(live, CREATE, seats=[{"open": True}, {"bot": bot}]), "createTable")
    assert rejected["__typename"] == "TableRejected"
    code, path = await rest_fault(live, {"seats": ["open", {"bot": rest_bot}]})
    assert (rejected["code"], rejected["path"]) == (code, path)
    assert code == "INVALID_BOT" and path is not None and path.startswith("$.seats[1].bot")


async def test_seats_are_open_or_a_bot_choice(live: LiveServer) -> None:
    seats = [
        {"open": True},
        {"bot": {"level": "ismcts", "iterations": 50, "timeMs": 100}},
        {"bot": {}},
    ]
    created = field(await gql(live, CREATE, seats=seats), "createTable")
    kinds = [(s["kind"], s["name"]) for s in created["table"]["seats"]]
    assert kinds == [("open", None), ("bot", "bot 2 (ismcts)"), ("bot", "bot 3 (greedy)")]
    # a setup fault is typed as well, with REST's code and path
    wrong = field(
        await gql(live, CREATE, seats=[{"open": True}] * 2, setup={"players": 3}), "createTable"
    )
    assert (wrong["code"], wrong["path"]) == ("INVALID_SETUP", "$.seats")
    closed = field(await gql(live, CREATE, seats=[{"open": False}, {"open": True}]), "createTable")
    assert (closed["code"], closed["path"]) == await rest_fault(live, {"seats": [False, "open"]})
    # exactly one of open or bot (@oneOf), and bot levels are an enum
    both = await gql(live, CREATE, seats=[{"open": True, "bot": {}}, {"open": True}])
    assert both["errors"] and both["data"] is None
    inline = await gql(
        live,
        'mutation { createTable(seats: [{open: true}, {bot: {level: "greedy"}}]) { __typename } }',
    )
    assert inline["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"


async def test_rematch_and_ticket_are_typed(live: LiveServer) -> None:
    tid, host, (ann,) = await new_table(live, 1, seats=["open", {"bot": {"level": "random"}}])
    rematch = f"""mutation($id: ID!) {{
      rematch(id: $id) {{
        ... on TableRematch {{
          tableId player seatToken hostToken table {{ status seats {{ kind }} }}
        }}
        {REJECTED}
      }}
    }}"""
    early = field(await gql(live, rematch, ann.token, id=tid), "rematch")
    assert early["code"] == "TABLE_NOT_OVER"
    over = await play_out(ann)
    final = field(await gql(live, TABLE_QUERY, ann.token, id=tid), "table")
    assert final["status"] == "over" and final["raw"]["ranking"] == over["ranking"]
    ranked = (
        "query($id: ID!) { table(id: $id) { ... on Table { ranking { player place score } } } }"
    )
    assert field(await gql(live, ranked, id=tid), "table")["ranking"] == over["ranking"]
    again = field(await gql(live, rematch, ann.token, id=tid), "rematch")
    assert again["player"] == 0 and again["seatToken"] and again["hostToken"] is None
    assert again["table"] == {"status": "waiting", "seats": [{"kind": "human"}, {"kind": "bot"}]}
    hosts = field(await gql(live, rematch, host, id=tid), "rematch")
    assert hosts["tableId"] == again["tableId"] and hosts["hostToken"] and hosts["player"] is None
    ticket = """mutation($id: ID!) {
      tableTicket(id: $id) { ... on TableTicket { ticket expiresIn } ... on TableRejected { code } }
    }"""
    issued = field(await gql(live, ticket, ann.token, id=tid), "tableTicket")
    assert issued["expiresIn"] == 60 and issued["ticket"]
    assert field(await gql(live, ticket, id=tid), "tableTicket") == {"code": "NOT_SEATED"}
    garbage = field(await gql(live, ticket, "not-a-token", id=tid), "tableTicket")
    assert garbage == {"code": "BAD_SEAT"}


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
    assert reused[0]["type"] == "error"  # refused the protocol's way (tests/api/graphql)
    assert reused[0]["payload"][0]["extensions"]["code"] == "BAD_SEAT"


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


async def test_the_tutorial_tables_graphql_examples_run(live: LiveServer) -> None:
    """Each operation of the frontend tutorial's GraphQL block for tables, in order, as a seated
    person whose turn it is: none is refused, and the created table is the one the others use."""
    operations = graphql_operations(FRONTEND, TABLES_GRAPHQL)
    assert len(operations) >= 3 and "createTable" in operations[0]
    created = field(await gql(live, operations[0]), "createTable")
    assert [s["kind"] for s in created["table"]["seats"]] == ["open", "bot"]
    tid = created["tableId"]
    async with live.client() as c:
        joined = ok(await c.post(f"/v1/tables/{tid}/join", json={"name": "ann"}))
    ann = Seated(live, tid, joined)
    ok(await live.client(created["hostToken"]).post(f"/v1/tables/{tid}/start"))
    for operation in operations[1:]:
        mine = await ann.table()
        for _ in range(500):  # the bot's turn first, maybe
            if mine["toMove"] == mine["you"]:
                break
            await asyncio.sleep(0.02)
            mine = await ann.table()
        kinds = dict(re.findall(r"\$(\w+)\s*:\s*(\w+)!", operation))
        given = {"ID": tid, "MoveInput": mine["moves"][0], "Int": mine["version"]}
        answer = await gql(live, operation, ann.token, **{k: given[v] for k, v in kinds.items()})
        assert "errors" not in answer, (operation, answer)
        assert "TableRejected" not in json.dumps(answer) and '"code"' not in json.dumps(answer)


def test_a_view_read_from_json_answers_as_the_engine_view() -> None:
    """``PlayerView.from_json`` (tables) and ``from_domain`` (stateless) give the same fields."""
    state = manhattan.new_game_from_setup({"players": 3, "seed": "views"})
    view = manhattan.view(state, 1)
    names = ("player", "round", "phase", "to_move", "hand", "hand_sizes", "deck_size", "scores")
    engine, wire = PlayerView.from_domain(view), PlayerView.from_json(view.to_json())
    assert [getattr(wire, n)() for n in names] == [getattr(engine, n)() for n in names]
    assert wire.json() == engine.json()
