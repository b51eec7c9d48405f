"""Moves over the GraphQL websocket (graphql-transport-ws): the seat's credential given once in
``connection_init``, then ``tableMove``/``sendChat`` on the same connection as ``tableEvents``,
with the HTTP mutations' codes, idempotency by ``moveId`` and compare-and-set. A real uvicorn
and a real websocket client."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from tests.tables.conftest import LiveServer, Seated, live, new_table

__all__ = ["live"]  # the fixture

pytestmark = pytest.mark.anyio

EVENTS = "subscription($id: ID!) { tableEvents(id: $id) { id event data } }"
MOVE = """mutation($id: ID!, $move: MoveInput!, $version: Int!, $moveId: String) {
  tableMove(id: $id, move: $move, version: $version, moveId: $moveId) {
    __typename
    ... on TableMoved { version events }
    ... on TableRejected { code message table { version } }
  }
}"""
CHAT = """mutation($id: ID!, $text: String!) {
  sendChat(id: $id, text: $text) {
    __typename ... on ChatSent { version } ... on TableRejected { code message }
  }
}"""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Socket:
    """One graphql-transport-ws connection: operations by id, their messages kept apart."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.count = 0
        self.inbox: dict[str, list[dict[str, Any]]] = {}

    async def start(self, query: str, **variables: Any) -> str:
        self.count += 1
        op = f"op{self.count}"
        payload = {"query": query, "variables": variables}
        await self.ws.send(json.dumps({"id": op, "type": "subscribe", "payload": payload}))
        return op

    async def message(self, op: str, timeout: float = 5.0) -> dict[str, Any]:
        """The next message of operation ``op`` (others are kept for their own readers)."""
        while not self.inbox.get(op):
            frame = await asyncio.wait_for(self.ws.recv(), timeout)
            assert isinstance(frame, str), "graphql-transport-ws messages are text frames"
            got = json.loads(frame)
            if got["type"] == "ping":
                await self.ws.send(json.dumps({"type": "pong"}))
            elif "id" in got:
                self.inbox.setdefault(got["id"], []).append(got)
        return self.inbox[op].pop(0)

    async def call(self, query: str, **variables: Any) -> dict[str, Any]:
        """A mutation's ``data`` (its ``next``, then its ``complete``)."""
        op = await self.start(query, **variables)
        answer = await self.message(op)
        assert answer["type"] == "next", answer
        assert (await self.message(op))["type"] == "complete"
        assert "errors" not in answer["payload"], answer
        data: dict[str, Any] = answer["payload"]["data"]
        return data

    async def event(self, op: str, kind: str) -> dict[str, Any]:
        while True:
            got = await self.message(op)
            assert got["type"] == "next", got
            event: dict[str, Any] = got["payload"]["data"]["tableEvents"]
            if event["event"] == kind:
                return event


@asynccontextmanager
async def socket(live: LiveServer, init: dict[str, Any] | None = None) -> AsyncIterator[Socket]:
    url = live.url.replace("http", "ws") + "/graphql"
    async with connect(url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        message: dict[str, Any] = {"type": "connection_init"}
        if init is not None:
            message["payload"] = init
        await ws.send(json.dumps(message))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        yield Socket(ws)


def playable(moves: list[dict[str, Any]]) -> dict[str, Any]:
    """A legal move as MoveInput takes it (the wire's move, no nulls)."""
    return {k: v for k, v in moves[0].items() if v is not None}


async def mover(seated: list[Seated]) -> tuple[Seated, dict[str, Any]]:
    table = await seated[0].table()
    person = next(p for p in seated if p.player == table["toMove"])
    return person, await person.table()


async def test_a_move_over_the_socket_that_holds_the_stream(live: LiveServer) -> None:
    tid, _, people = await new_table(live, 2)
    person, table = await mover(people)
    async with socket(live, {"seatToken": person.token}) as ws:
        stream = await ws.start(EVENTS, id=tid)
        snapshot = await ws.event(stream, "snapshot")
        assert snapshot["data"]["you"] == person.player  # the seat's stream, without a ticket
        assert snapshot["data"]["moves"] == table["moves"]
        move = playable(snapshot["data"]["moves"])
        version = snapshot["data"]["version"]
        moved = (await ws.call(MOVE, id=tid, move=move, version=version, moveId="m1"))["tableMove"]
        assert moved["__typename"] == "TableMoved" and moved["version"] == version + 1
        pushed = await ws.event(stream, "move")
        assert pushed["id"] == version + 1 and pushed["data"]["player"] == person.player
        # a retry with the same moveId (and the old version) is the first answer, not a move
        again = (await ws.call(MOVE, id=tid, move=move, version=version, moveId="m1"))["tableMove"]
        assert again == moved
        # a new move at the old version loses the compare-and-set
        stale = (await ws.call(MOVE, id=tid, move=move, version=version, moveId="m2"))["tableMove"]
        assert stale["code"] == "STALE_VERSION" and stale["table"]["version"] == version + 1
        chat = (await ws.call(CHAT, id=tid, text="hi"))["sendChat"]
        assert chat == {"__typename": "ChatSent", "version": version + 2}
        said = await ws.event(stream, "chat")
        assert said["id"] == version + 2
    assert (await person.table())["version"] == version + 2  # the move was applied once


async def test_the_authorization_form_and_the_same_answers_as_http(live: LiveServer) -> None:
    tid, _, people = await new_table(live, 2)
    person, table = await mover(people)
    other = next(p for p in people if p is not person)
    move = playable(table["moves"])
    async with socket(live, {"authorization": f"Bearer {other.token}"}) as ws:
        early = (await ws.call(MOVE, id=tid, move=move, version=table["version"]))["tableMove"]
        assert early["code"] == "NOT_YOUR_TURN"
        said = (await ws.call(CHAT, id=tid, text="gl"))["sendChat"]
        assert said["__typename"] == "ChatSent"
    http = await other.move(move, table["version"] + 1)
    assert http.status_code == 409 and http.json()["code"] == "NOT_YOUR_TURN"


@pytest.mark.parametrize(
    "init",
    [
        {"seatToken": "forged"},
        {"seatToken": 7},
        {"authorization": "Basic abc"},
        {"authorization": "Bearer "},
    ],
)
async def test_a_bad_credential_is_refused_with_a_code(
    live: LiveServer, init: dict[str, Any]
) -> None:
    tid, _, people = await new_table(live, 2)
    _, table = await mover(people)
    async with socket(live, init) as ws:
        moved = await ws.call(MOVE, id=tid, move=playable(table["moves"]), version=table["version"])
        assert moved["tableMove"]["code"] == "BAD_SEAT"
        chat = await ws.call(CHAT, id=tid, text="x")
        assert chat["sendChat"]["code"] == "BAD_SEAT"
        stream = await ws.start(EVENTS, id=tid)
        refused = await ws.message(stream)
        assert refused["type"] == "error"
        assert refused["payload"][0]["extensions"]["code"] == "BAD_SEAT"
    assert (await people[0].table())["version"] == table["version"]


async def test_another_tables_token_is_refused(live: LiveServer) -> None:
    tid, _, people = await new_table(live, 2)
    _, _, elsewhere = await new_table(live, 2)
    _, table = await mover(people)
    async with socket(live, {"seatToken": elsewhere[0].token}) as ws:
        moved = await ws.call(MOVE, id=tid, move=playable(table["moves"]), version=table["version"])
        assert moved["tableMove"]["code"] == "BAD_SEAT"


async def test_a_spectator_cannot_move(live: LiveServer) -> None:
    tid, host, people = await new_table(live, 2, public=True)
    _, table = await mover(people)
    move = playable(table["moves"])
    async with socket(live) as ws:  # no credential: a spectator of a public table
        stream = await ws.start(EVENTS, id=tid)
        snapshot = await ws.event(stream, "snapshot")
        assert snapshot["data"]["you"] is None and snapshot["data"]["moves"] == []
        moved = (await ws.call(MOVE, id=tid, move=move, version=table["version"]))["tableMove"]
        assert moved["code"] == "NOT_SEATED"
        chat = (await ws.call(CHAT, id=tid, text="x"))["sendChat"]
        assert chat["code"] == "NOT_SEATED"
    async with socket(live, {"seatToken": host}) as ws:  # the host is not seated either
        moved = (await ws.call(MOVE, id=tid, move=move, version=table["version"]))["tableMove"]
        assert moved["code"] == "NOT_SEATED"
    assert (await people[0].table())["version"] == table["version"]


async def test_the_socket_counts_against_the_rate_limit() -> None:
    async with LiveServer(rate_limit=0.001, rate_burst=30) as live:
        tid, _, people = await new_table(live, 2)
        person, _ = await mover(people)
        async with socket(live, {"seatToken": person.token}) as ws:
            codes = [(await ws.call(CHAT, id=tid, text="x"))["sendChat"] for _ in range(40)]
        refused = [c for c in codes if c["__typename"] != "ChatSent"]
        assert refused and {c["code"] for c in refused} == {"RATE_LIMITED"}
