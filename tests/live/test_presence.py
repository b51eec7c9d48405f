"""A seat's presence (``connected`` in a table's seats) while its stream is open: marked for three
heartbeats and refreshed by the stream's heartbeats, which a busy stream's writes put off. In a
game whose moves come faster than the heartbeat, every seat with an open stream stays connected,
over the SSE stream and the GraphQL websocket alike, and so at the end."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager

import pytest
from websockets.asyncio.client import connect

from tests.tables.conftest import LiveServer, Seated, new_table, ok, sse

pytestmark = pytest.mark.anyio

HEARTBEAT = 0.5
#: A seat's open stream, over one transport.
Opened = Callable[[LiveServer, Seated], AbstractAsyncContextManager[None]]
SUBSCRIBE = "subscription($id: ID!) { tableEvents(id: $id) { id event data } }"


@contextlib.asynccontextmanager
async def over_sse(live: LiveServer, person: Seated) -> AsyncIterator[None]:
    """The seat's SSE stream, open and read (its events dropped) until the block ends."""
    tid = person.table_id
    ticket = ok(await person.client.post(f"/v1/tables/{tid}/ticket"))["ticket"]
    async with live.client() as c, sse(c, f"/v1/tables/{tid}/events?ticket={ticket}") as stream:
        await stream.next()

        async def read() -> None:
            while True:
                await stream.next(timeout=60)

        reading = asyncio.create_task(read())
        try:
            yield
        finally:
            reading.cancel()


@contextlib.asynccontextmanager
async def over_socket(live: LiveServer, person: Seated) -> AsyncIterator[None]:
    """The seat's ``tableEvents`` subscription on the GraphQL websocket (its token given at
    ``connection_init``, as the page gives it), open and read until the block ends."""
    url = live.url.replace("http", "ws") + "/graphql"
    async with connect(url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        init = {"type": "connection_init", "payload": {"seatToken": person.token}}
        await ws.send(json.dumps(init))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        payload = {"query": SUBSCRIBE, "variables": {"id": person.table_id}}
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        assert json.loads(await ws.recv())["type"] == "next"

        async def read() -> None:
            async for message in ws:
                if json.loads(message)["type"] == "ping":
                    await ws.send(json.dumps({"type": "pong"}))

        reading = asyncio.create_task(read())
        try:
            yield
        finally:
            reading.cancel()


async def busy_game(people: list[Seated], seconds: float) -> list[list[bool]]:
    """Moves as fast as the seats can make them for ``seconds`` (or to the end): each seat's
    ``connected`` as the table said after each move, and once more after the last."""
    seen: list[list[bool]] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        table = await people[0].table()
        seen.append([seat["connected"] for seat in table["seats"]])
        if table["status"] != "playing":
            break
        mover = people[table["toMove"]]
        mine = await mover.table()
        ok(await mover.move(mine["moves"][0], mine["version"]))
        await asyncio.sleep(0.05)
    seen.append([seat["connected"] for seat in (await people[0].table())["seats"]])
    return seen


@pytest.mark.parametrize("transport", [over_sse, over_socket], ids=["sse", "socket"])
async def test_seats_stay_connected_through_a_busy_game(transport: Opened) -> None:
    async with LiveServer(table_heartbeat_seconds=HEARTBEAT) as live:
        _, _, people = await new_table(live, 2, setup={"players": 2, "rounds": 2})
        async with transport(live, people[0]), transport(live, people[1]):
            # Over six heartbeats, twice the presence's own time, with a move every tenth of one.
            seen = await busy_game(people, 6 * HEARTBEAT)
            assert len(seen) > 12, seen  # (the moves did come faster than the heartbeat)
            assert all(row == [True, True] for row in seen), seen
