"""``/v1/tables/{id}/socket``: a table's events and a seat's moves on one websocket."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.tables.conftest import LiveServer, new_table, ok

pytestmark = pytest.mark.anyio


@pytest.fixture
async def live() -> AsyncIterator[LiveServer]:
    async with LiveServer(max_body_bytes=4096) as server:
        yield server


def socket_url(live: LiveServer, table_id: str, query: str = "") -> str:
    return f"ws://127.0.0.1:{live.port}/v1/tables/{table_id}/socket{query}"


async def opened(live: LiveServer, table_id: str, token: str | None) -> ClientConnection:
    headers = {"authorization": f"Bearer {token}"} if token else None
    return await connect(socket_url(live, table_id), additional_headers=headers)


_kept: dict[int, list[dict[str, Any]]] = {}


async def next_message(ws: ClientConnection, kind: str | None = None) -> dict[str, Any]:
    """The next message (of ``kind``: others that come first are kept for later calls, as
    a move's event may come before the mover's ack)."""
    kept = _kept.setdefault(id(ws), [])
    for i, message in enumerate(kept):
        if kind is None or message["event"] == kind:
            return kept.pop(i)
    while True:
        heard: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if kind is None or heard["event"] == kind:
            return heard
        kept.append(heard)


async def test_two_seats_play_a_whole_game_on_their_sockets(live: LiveServer) -> None:
    tid, _, people = await new_table(live, 2, public=True)
    sockets = [await opened(live, tid, p.token) for p in people]
    watcher = await opened(live, tid, None)
    rng = random.Random(7)
    try:
        snapshots = [await next_message(ws, "snapshot") for ws in sockets]
        assert [s["data"]["you"] for s in snapshots] == [0, 1]
        spectator = await next_message(watcher, "snapshot")
        assert "hand" not in json.dumps(spectator["data"].get("view", {}).get("players", []))
        table = snapshots[0]["data"]
        version, to_move, moves = table["version"], table["toMove"], table["moves"]
        played = 0
        while to_move is not None:
            mover = sockets[to_move]
            move = {"type": "move", "version": version, "move": rng.choice(moves)}
            await mover.send(json.dumps({**move, "moveId": f"m{played}"}))
            ack = await next_message(mover, "ack")
            assert ack["data"] == {"type": "move", "version": version + 1, "moveId": f"m{played}"}
            played += 1
            events = [await next_message(ws, "move") for ws in [*sockets, watcher]]
            assert {e["id"] for e in events} == {version + 1}  # everyone hears it
            version, to_move = version + 1, events[0]["data"]["toMove"]
            if to_move is None or events[0]["data"].get("over"):
                break
            # The next mover's own event carries its legal moves: no GET a turn.
            moves = events[to_move]["data"]["moves"]
            assert moves and "moves" not in events[1 - to_move]["data"]
        assert played > 10
        record = ok(await people[0].client.get(f"/v1/tables/{tid}/record"))
        assert len(record["moves"]) == played
        # Most pushes went straight to the sockets' connections (tables/fanout.py).
        assert live.app.state.tables.hub.direct_writes > played
    finally:
        for ws in [*sockets, watcher]:
            await ws.close()


async def test_refused_moves_answer_an_error_and_the_socket_stays(live: LiveServer) -> None:
    tid, _, (ann, bob) = await new_table(live, 2)
    ws_ann, ws_bob = await opened(live, tid, ann.token), await opened(live, tid, bob.token)
    try:
        table = (await next_message(ws_ann, "snapshot"))["data"]
        await next_message(ws_bob, "snapshot")
        move = table["moves"][0]
        await ws_bob.send(json.dumps({"type": "move", "version": 4, "move": move}))
        assert (await next_message(ws_bob, "error"))["data"]["code"] == "NOT_YOUR_TURN"
        await ws_ann.send(json.dumps({"type": "move", "version": 3, "move": move, "moveId": "a"}))
        stale = (await next_message(ws_ann, "error"))["data"]
        assert stale["code"] == "STALE_VERSION" and stale["moveId"] == "a"
        assert stale["table"]["version"] == 4 and stale["table"]["you"] == 0
        for junk in ["{", "[1]", '{"type": "leave"}', '{"type": "move"}']:
            await ws_ann.send(junk)
            error = (await next_message(ws_ann, "error"))["data"]
            assert error["code"] == "INVALID_REQUEST", (junk, error)
        # Still open, and the move goes through; sent twice, it is made once.
        body = json.dumps({"type": "move", "version": 4, "move": move, "moveId": "b"})
        await ws_ann.send(body)
        first = await next_message(ws_ann, "ack")
        await ws_ann.send(body)
        again = await next_message(ws_ann, "ack")
        assert first["data"]["version"] == again["data"]["version"] == 5
        assert ok(await ann.client.get(f"/v1/tables/{tid}"))["version"] == 5
    finally:
        await ws_ann.close()
        await ws_bob.close()


async def test_a_spectator_may_watch_but_not_move_and_chat_goes_through(
    live: LiveServer,
) -> None:
    tid, _, (ann, _) = await new_table(live, 2, public=True)
    watcher, ws_ann = await opened(live, tid, None), await opened(live, tid, ann.token)
    try:
        table = (await next_message(ws_ann, "snapshot"))["data"]
        await next_message(watcher, "snapshot")
        await watcher.send(json.dumps({"type": "move", "version": 4, "move": table["moves"][0]}))
        assert (await next_message(watcher, "error"))["data"]["code"] == "NOT_SEATED"
        await ws_ann.send(json.dumps({"type": "chat", "text": "hello"}))
        assert (await next_message(ws_ann, "ack"))["data"]["type"] == "chat"
        chat = await next_message(watcher, "chat")
        assert chat["data"]["text"] == "hello"
    finally:
        await watcher.close()
        await ws_ann.close()


async def test_a_refused_socket_is_closed_with_the_code(live: LiveServer) -> None:
    tid, _, _ = await new_table(live, 2, public=False)
    cases = [
        ("tbl_doesnotexist", None, 4404, "TABLE_NOT_FOUND"),
        (tid, None, 4403, "NOT_SEATED"),
        (tid, "x.y.z", 4401, "BAD_SEAT"),
    ]
    for table_id, token, close_code, code in cases:
        ws = await opened(live, table_id, token)
        error = await next_message(ws)
        assert error["event"] == "error" and error["data"]["code"] == code
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10)
        assert closed.value.rcvd is not None
        assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (close_code, code)


async def test_a_message_over_the_body_limit_closes_the_socket(live: LiveServer) -> None:
    tid, _, (ann, _) = await new_table(live, 2)
    ws = await opened(live, tid, ann.token)
    await next_message(ws, "snapshot")
    await ws.send(json.dumps({"type": "chat", "text": "x" * 5000}))
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await asyncio.wait_for(ws.recv(), 10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


async def test_a_ticket_names_the_seat(live: LiveServer) -> None:
    tid, _, (ann, _) = await new_table(live, 2)
    ticket = ok(await ann.client.post(f"/v1/tables/{tid}/ticket"))["ticket"]
    ws = await connect(socket_url(live, tid, f"?ticket={ticket}"))
    try:
        assert (await next_message(ws, "snapshot"))["data"]["you"] == 0
    finally:
        await ws.close()


async def test_a_socket_over_the_stream_limit_is_closed_with_4429() -> None:
    async with LiveServer(table_streams_per_client=1) as live:
        tid, _, (ann, bob) = await new_table(live, 2)
        first = await opened(live, tid, ann.token)
        try:
            await next_message(first, "snapshot")
            second = await opened(live, tid, bob.token)
            error = await next_message(second)
            assert error["data"]["code"] == "TOO_MANY_STREAMS"
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(second.recv(), 10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        finally:
            await first.close()
