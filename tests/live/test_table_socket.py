"""``/v1/tables/{id}/socket``: a table's events and a seat's moves on one websocket."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from types import SimpleNamespace
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Close, Frame, Opcode
from websockets.protocol import Protocol, Side, State
from websockets.streams import StreamReader

from manhattan.live.push import Push
from manhattan.live.websocket import SocketWriter, socket_text, text_frame
from manhattan.server.uvicorn_line import UvicornSocketLine
from tests.tables.conftest import LiveServer, new_table, ok

pytestmark = pytest.mark.anyio


@pytest.fixture
async def live() -> AsyncIterator[LiveServer]:
    async with LiveServer(max_body_bytes=4096) as server:
        yield server


class Socket:
    """A client's table socket: its messages by kind (others that come first are kept for
    later, as a move's event may come before the mover's ack)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.kept: list[dict[str, Any]] = []

    async def next(self, kind: str | None = None) -> dict[str, Any]:
        for i, message in enumerate(self.kept):
            if kind is None or message["event"] == kind:
                return self.kept.pop(i)
        while True:
            heard: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
            if kind is None or heard["event"] == kind:
                return heard
            self.kept.append(heard)

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def closed(self) -> Close:
        """How the service closed it (whatever came before is read and dropped)."""
        with pytest.raises(ConnectionClosed) as ended:
            while True:
                await asyncio.wait_for(self.ws.recv(), 10)
        assert ended.value.rcvd is not None
        return ended.value.rcvd


Opener = Callable[..., Awaitable[Socket]]


@contextlib.asynccontextmanager
async def sockets(live: LiveServer) -> AsyncIterator[Opener]:
    """``open(table_id, token=None, query="")``: a socket, closed when the block ends."""
    opened: list[Socket] = []

    async def open_(
        table_id: str,
        token: str | None = None,
        query: str = "",
        compression: str | None = "deflate",
    ) -> Socket:
        url = f"ws://127.0.0.1:{live.port}/v1/tables/{table_id}/socket{query}"
        headers = {"authorization": f"Bearer {token}"} if token else None
        opened.append(
            Socket(await connect(url, additional_headers=headers, compression=compression))
        )
        return opened[-1]

    try:
        yield open_
    finally:
        for socket in opened:
            await socket.ws.close()


@pytest.mark.parametrize("compression", ["deflate", None])
async def test_two_seats_play_a_whole_game_on_their_sockets(
    live: LiveServer, compression: str | None
) -> None:
    """With compression (a browser's) the pushes are framed by ``websockets``; without (the
    bench's client), by ``text_frame``."""
    tid, _, people = await new_table(live, 2, public=True)
    rng = random.Random(7)
    async with sockets(live) as open_:
        seats = [await open_(tid, p.token, compression=compression) for p in people]
        watcher = await open_(tid, compression=compression)
        snapshots = [await ws.next("snapshot") for ws in seats]
        assert [s["data"]["you"] for s in snapshots] == [0, 1]
        assert all(s["data"]["view"]["hand"] for s in snapshots)  # each seat its own hand
        spectator = (await watcher.next("snapshot"))["data"]["view"]
        assert spectator["hand"] == [] and spectator["player"] is None
        table = snapshots[0]["data"]
        version, to_move, moves = table["version"], table["toMove"], table["moves"]
        played = 0
        while to_move is not None:
            mover = seats[to_move]
            move_id = f"m{played}"
            await mover.send(
                {"type": "move", "version": version, "move": rng.choice(moves), "moveId": move_id}
            )
            ack = await mover.next("ack")
            assert ack["data"] == {"type": "move", "version": version + 1, "moveId": move_id}
            played += 1
            events = [await ws.next("move") for ws in [*seats, watcher]]
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
    # Most pushes went straight to the sockets' connections (live/fanout.py).
    assert live.app.state.tables.hub.direct_writes > played


async def test_refused_moves_answer_an_error_and_the_socket_stays(live: LiveServer) -> None:
    tid, _, (ann, bob) = await new_table(live, 2)
    async with sockets(live) as open_:
        ws_ann, ws_bob = await open_(tid, ann.token), await open_(tid, bob.token)
        move = (await ws_ann.next("snapshot"))["data"]["moves"][0]
        await ws_bob.next("snapshot")
        await ws_bob.send({"type": "move", "version": 4, "move": move})
        assert (await ws_bob.next("error"))["data"]["code"] == "NOT_YOUR_TURN"
        await ws_ann.send({"type": "move", "version": 3, "move": move, "moveId": "a"})
        stale = (await ws_ann.next("error"))["data"]
        assert stale["code"] == "STALE_VERSION" and stale["moveId"] == "a"
        assert stale["type"] == "move"  # what it answers, as the ack says it
        assert stale["table"]["version"] == 4 and stale["table"]["you"] == 0
        for junk in ["{", "[1]", '{"type": "leave"}', '{"type": "move"}']:
            await ws_ann.send(junk)
            error = (await ws_ann.next("error"))["data"]
            assert error["code"] == "INVALID_REQUEST", (junk, error)
        # Still open, and the move goes through; sent twice, it is made once.
        body = {"type": "move", "version": 4, "move": move, "moveId": "b"}
        await ws_ann.send(body)
        first = await ws_ann.next("ack")
        await ws_ann.send(body)
        again = await ws_ann.next("ack")
        assert first["data"]["version"] == again["data"]["version"] == 5
        assert ok(await ann.client.get(f"/v1/tables/{tid}"))["version"] == 5


async def test_a_spectator_may_watch_but_not_move_and_chat_goes_through(
    live: LiveServer,
) -> None:
    tid, _, (ann, _) = await new_table(live, 2, public=True)
    async with sockets(live) as open_:
        watcher, ws_ann = await open_(tid), await open_(tid, ann.token)
        move = (await ws_ann.next("snapshot"))["data"]["moves"][0]
        await watcher.next("snapshot")
        await watcher.send({"type": "move", "version": 4, "move": move})
        assert (await watcher.next("error"))["data"]["code"] == "NOT_SEATED"
        await ws_ann.send({"type": "chat", "text": "hello"})
        assert (await ws_ann.next("ack"))["data"]["type"] == "chat"
        assert (await watcher.next("chat"))["data"]["text"] == "hello"


async def test_a_refused_socket_is_closed_with_the_code(live: LiveServer) -> None:
    tid, _, _ = await new_table(live, 2, public=False)
    cases = [
        ("0" * 32, None, 4404, "TABLE_NOT_FOUND"),
        ("tbl_doesnotexist", None, 4400, "INVALID_REQUEST"),
        (tid, None, 4403, "NOT_SEATED"),
        (tid, "x.y.z", 4401, "BAD_SEAT"),
    ]
    async with sockets(live) as open_:
        for table_id, token, close_code, code in cases:
            ws = await open_(table_id, token)
            error = await ws.next()
            assert error["event"] == "error" and error["data"]["code"] == code
            closed = await ws.closed()
            assert (closed.code, closed.reason) == (close_code, code)


async def test_a_message_over_the_body_limit_closes_the_socket(live: LiveServer) -> None:
    tid, _, (ann, _) = await new_table(live, 2)
    async with sockets(live) as open_:
        ws = await open_(tid, ann.token)
        await ws.next("snapshot")
        await ws.send({"type": "chat", "text": "x" * 5000})
        assert (await ws.closed()).code == 1009


async def test_a_ticket_names_the_seat(live: LiveServer) -> None:
    tid, _, (ann, _) = await new_table(live, 2)
    ticket = ok(await ann.client.post(f"/v1/tables/{tid}/ticket"))["ticket"]
    async with sockets(live) as open_:
        ws = await open_(tid, query=f"?ticket={ticket}")
        assert (await ws.next("snapshot"))["data"]["you"] == 0


async def test_a_socket_over_the_stream_limit_is_closed_with_4429() -> None:
    async with LiveServer(table_streams_per_client=1) as live, sockets(live) as open_:
        tid, _, (ann, bob) = await new_table(live, 2)
        await (await open_(tid, ann.token)).next("snapshot")
        second = await open_(tid, bob.token)
        assert (await second.next())["data"]["code"] == "TOO_MANY_STREAMS"
        assert (await second.closed()).code == 4429


@pytest.mark.parametrize("framed", [False, True])
@pytest.mark.parametrize("size", [10, 125, 126, 3000, 65535, 70000])
def test_a_pushs_frame_is_its_socket_message_in_one_text_frame(size: int, framed: bool) -> None:
    """``text_frame`` read back by ``websockets``' own parser (as a client reads a server's
    frame) is ``socket_text``, whatever the length's encoding (7, 16 or 64 bits), from a push
    that keeps its data or (an SSE stream asked for it) its SSE frame."""
    push = Push(12, "chat", {"text": "x" * size})
    if framed:
        assert push.frame.startswith(b"event: chat\r\ndata: ")
    reader = StreamReader()
    reader.feed_data(text_frame(push))
    parser = Frame.parse(reader.read_exact, mask=False)
    with pytest.raises(StopIteration) as parsed:
        next(parser)
    frame = parsed.value.value
    assert (frame.opcode, frame.fin) == (Opcode.TEXT, True)
    assert frame.data == socket_text(push)
    assert json.loads(frame.data)["data"] == {"text": "x" * size}
    assert not reader.buffer  # nothing after the one frame


def _line(protocol: Any) -> UvicornSocketLine:
    """The server's line over a stand-in for uvicorn's websocket protocol."""
    return UvicornSocketLine(protocol, protocol.conn, protocol.transport, protocol.writable)


async def test_a_turns_frames_go_out_together_at_its_end() -> None:
    """Without extensions, what the service writes to a socket in one turn of its loop goes
    out in one write at the turn's end: the mover's push, then the ack of its move. Real
    sockets; ``websockets``' own protocol object in the open state, as uvicorn's holds it."""
    ours, theirs = socket.socketpair()
    theirs.setblocking(False)
    loop = asyncio.get_running_loop()
    transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, ours)
    writable = asyncio.Event()
    writable.set()
    server = SimpleNamespace(
        conn=Protocol(Side.SERVER), transport=transport, writable=writable, close_sent=False
    )
    try:
        writer = SocketWriter(_line(server))
        push = Push(5, "move", {"toMove": 1})
        assert writer(push) and writer.text(b'{"event":"ack","data":{"version":5}}')
        with pytest.raises(BlockingIOError):
            theirs.recv(1 << 16)  # nothing yet: the turn goes on
        await asyncio.sleep(0)
        arrived = theirs.recv(1 << 16)
        assert [m["event"] for m in _frames(arrived)] == ["move", "ack"]
        server.conn.receive_data(b"\x88\x82\x00\x00\x00\x00\x03\xe8")  # the client closes
        assert server.conn.state is not State.OPEN  # (websockets would refuse to frame)
        assert not writer(push) and not writer.text(b"{}")  # the stream writes itself
        ours_sent = SimpleNamespace(**{**vars(server), "conn": Protocol(Side.SERVER)})
        ours_sent.close_sent = True  # the service's close sent: the same
        assert not SocketWriter(_line(ours_sent))(push)
        paused = asyncio.Event()  # flow control: the transport holds its high-water mark
        backed_up = SimpleNamespace(**{**vars(server), "conn": Protocol(Side.SERVER)})
        backed_up.writable = paused
        assert not SocketWriter(_line(backed_up))(push)
        paused.set()  # resumed: framed here again
        assert SocketWriter(_line(backed_up))(push)
    finally:
        transport.close()
        theirs.close()


async def test_the_sockets_written_in_a_turn_are_flushed_together_at_its_end() -> None:
    """A move's fan-out writes to several sockets in one turn: each gets its frames at the
    turn's end, in the order written, also one flushed early (before a write of its own)."""
    loop = asyncio.get_running_loop()
    pairs, writers = [], []
    for _ in range(3):
        ours, theirs = socket.socketpair()
        theirs.setblocking(False)
        transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, ours)
        writable = asyncio.Event()
        writable.set()
        server = SimpleNamespace(
            conn=Protocol(Side.SERVER), transport=transport, writable=writable, close_sent=False
        )
        pairs.append((transport, theirs))
        writers.append(SocketWriter(_line(server)))
    try:
        for version, writer in enumerate(writers):
            assert writer(Push(version, "move", {"n": version}))
        writers[0].flush()  # (as before the socket's own write)
        assert writers[0].text(b'{"event":"ack","data":{"version":0}}')
        assert [m["id"] for m in _frames(pairs[0][1].recv(1 << 16))] == [0]
        await asyncio.sleep(0)
        arrived = [_frames(theirs.recv(1 << 16)) for _, theirs in pairs]
        assert [[m["event"] for m in frames] for frames in arrived] == [["ack"], ["move"], ["move"]]
        assert [frames[0]["data"] for frames in arrived[1:]] == [{"n": 1}, {"n": 2}]
    finally:
        for transport, theirs in pairs:
            transport.close()
            theirs.close()


def _frames(data: bytes) -> list[dict[str, Any]]:
    """The server's text frames in ``data``, as JSON."""
    reader, out = StreamReader(), []
    reader.feed_data(data)
    while reader.buffer:
        with pytest.raises(StopIteration) as parsed:
            next(Frame.parse(reader.read_exact, mask=False))
        out.append(json.loads(parsed.value.value.data))
    return out
