"""The spectator relay (docs/architecture.md "A crowd's memory after it
leaves"): public spectators' streams handed over to a process of their own once their first
frame is written, that process let go once they closed. Real sockets, a real service served by
uvicorn with the service's own HTTP protocol (the one ``manhattan serve`` runs: the relay takes
connections only from it), a real relay process."""

from __future__ import annotations

import ast
import asyncio
import os
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from manhattan.live import relay as relay_service
from manhattan.live import relay_process as relay_module
from manhattan.live.push import HEARTBEAT_FRAME
from manhattan.live.relay import Relay
from manhattan.live.relay_process import TERMINATOR
from manhattan.live.runtime import TableRuntime
from manhattan.server.protocol import bounded_protocol, connection_limits
from manhattan.settings import Settings
from tests.tables.conftest import LiveServer, new_table, ok

pytestmark = pytest.mark.anyio


class RelayServer(LiveServer):
    """``LiveServer`` with the service's own HTTP protocol, and a relay let go quickly."""

    def __init__(self, **settings: Any) -> None:
        settings.setdefault("spectator_relay_idle", 0.5)
        super().__init__(**settings)
        self.server.config.http = bounded_protocol(connection_limits(Settings()))

    async def __aenter__(self) -> RelayServer:
        await super().__aenter__()
        return self

    @property
    def runtime(self) -> TableRuntime:
        found: TableRuntime = self.app.state.tables
        return found


class Spectator:
    """A public table's stream over a bare socket, read chunk by chunk (one frame a chunk)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, live: LiveServer, table_id: str) -> Spectator:
        reader, writer = await asyncio.open_connection("127.0.0.1", live.port)
        request = f"GET /v1/tables/{table_id}/events HTTP/1.1\r\nhost: x\r\n\r\n"
        try:
            writer.write(request.encode())
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            assert head.startswith(b"HTTP/1.1 200"), head
            assert b"transfer-encoding: chunked" in head.lower()
        except BaseException:
            writer.close()  # not left for the next test's unraisable warnings
            raise
        return cls(reader, writer)

    async def chunk(self, timeout: float = 5.0) -> bytes:
        """The next chunk's bytes; b"" for the terminator (then the connection closes)."""
        size = int(await asyncio.wait_for(self.reader.readuntil(b"\r\n"), timeout), 16)
        data = await asyncio.wait_for(self.reader.readexactly(size + 2), timeout)
        assert data.endswith(b"\r\n")
        return data[:-2]

    async def event(self, timeout: float = 5.0) -> tuple[str, int]:
        """The next event's (name, id); heartbeats are skipped."""
        while (frame := await self.chunk(timeout)) == HEARTBEAT_FRAME:
            pass
        assert frame, "the stream ended"
        fields = dict(line.split(": ", 1) for line in frame.decode().split("\r\n") if line)
        return fields["event"], int(fields["id"])

    async def ended(self, timeout: float = 5.0) -> bytes:
        """Everything up to the connection's end."""
        return await asyncio.wait_for(self.reader.read(), timeout)

    def close(self) -> None:
        self.writer.close()


async def spectators(live: RelayServer, table_id: str, count: int) -> list[Spectator]:
    """``count`` spectators, each past its snapshot and handed over to the relay."""
    relay = live.runtime.relay
    assert relay is not None
    before = relay.relayed
    opened = [await Spectator.open(live, table_id) for _ in range(count)]
    for spectator in opened:
        assert (await spectator.event())[0] == "snapshot"
    await wait_until(lambda: relay.relayed == before + count)
    return opened


async def wait_until(check: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not in time"
        await asyncio.sleep(0.02)


def running(relay: Relay) -> int | None:
    """The relay process's id now (mypy keeps no narrowing of it across awaits this way)."""
    return relay.pid


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def play(people: list[Any], moves: int) -> list[int]:
    """``moves`` moves by whoever is to move: the versions they made."""
    made = []
    for _ in range(moves):
        table = await people[0].table()
        mover = people[table["toMove"]]
        table = await mover.table()
        made.append(ok(await mover.move(table["moves"][0], table["version"]))["version"])
    return made


async def test_relayed_spectators_get_every_move_in_order_and_heartbeats() -> None:
    async with RelayServer(table_heartbeat_seconds=0.3) as live:
        tid, _, people = await new_table(live, 2, public=True)
        crowd = await spectators(live, tid, 5)
        try:
            relay, hub = live.runtime.relay, live.runtime.hub
            assert relay is not None and relay.pid is not None and alive(relay.pid)
            assert hub.stream_count == 1  # the table's feed: the streams are the relay's
            made = await play(people, 6)
            for spectator in crowd:
                assert [await spectator.event() for _ in made] == [("move", v) for v in made]
            for spectator in crowd:  # the hub's heartbeats, through the relay
                assert await spectator.chunk(timeout=2) == HEARTBEAT_FRAME
        finally:
            for spectator in crowd:
                spectator.close()


async def test_the_relay_exits_once_idle_and_a_new_crowd_gets_a_new_one() -> None:
    async with RelayServer(spectator_relay_idle=0.3) as live:
        tid, _, _ = await new_table(live, 2, public=True)
        relay, hub = live.runtime.relay, live.runtime.hub
        assert relay is not None
        assert running(relay) is None  # started on the first handover
        crowd = await spectators(live, tid, 3)
        first = running(relay)
        assert first is not None and alive(first)
        for spectator in crowd:
            spectator.close()
        await wait_until(lambda: relay.relayed == 0)
        assert hub.stream_count == 0  # the feed ended with the table's last relayed stream
        await wait_until(lambda: not alive(first), timeout=3.0)
        assert running(relay) is None
        again = await spectators(live, tid, 2)
        assert relay.pid not in (None, first)
        for spectator in again:
            spectator.close()


async def test_relayed_streams_count_against_the_per_client_limit() -> None:
    async with RelayServer(table_streams_per_client=2) as live, live.client() as c:
        tid, _, _ = await new_table(live, 2, public=True)
        relay = live.runtime.relay
        assert relay is not None
        crowd = await spectators(live, tid, 2)
        refused = await c.get(f"/v1/tables/{tid}/events")
        assert refused.status_code == 429 and refused.json()["code"] == "TOO_MANY_STREAMS"
        crowd.pop().close()  # a hang-up seen by the relay gives the place back
        await wait_until(lambda: relay.relayed == 1)
        crowd += await spectators(live, tid, 1)
        for spectator in crowd:
            spectator.close()


async def test_relayed_streams_count_against_the_spectators_per_table() -> None:
    async with RelayServer(table_spectators_per_table=2) as live, live.client() as c:
        tid, _, _ = await new_table(live, 2, public=True)
        crowd = await spectators(live, tid, 2)  # (the table's feed is not counted)
        refused = await c.get(f"/v1/tables/{tid}/events")
        assert refused.status_code == 429 and refused.json()["code"] == "TOO_MANY_STREAMS"
        for spectator in crowd:
            spectator.close()


async def test_spectators_opening_while_the_table_plays_miss_nothing() -> None:
    """Handed over at the feed's version (waited for when it is a little behind), or kept in
    the service: either way every version after a spectator's snapshot comes once, in order."""
    async with RelayServer() as live:
        tid, _, people = await new_table(live, 2, public=True)
        playing = asyncio.create_task(play(people, 12))
        crowd: list[tuple[Spectator, int]] = []
        try:
            for _ in range(8):
                spectator = await Spectator.open(live, tid)
                kind, version = await spectator.event()
                assert kind == "snapshot"
                crowd.append((spectator, version))
                await asyncio.sleep(0.02)
            made = await playing
            relay = live.runtime.relay
            assert relay is not None and relay.relayed > 0  # (8 of 8 when tried)
            for spectator, version in crowd:
                later = [v for v in made if v > version]
                assert [await spectator.event() for _ in later] == [("move", v) for v in later]
        finally:
            for spectator, _ in crowd:
                spectator.close()


async def test_a_killed_relay_ends_its_streams_and_the_next_stream_works() -> None:
    async with RelayServer() as live:
        tid, _, people = await new_table(live, 2, public=True)
        relay, hub = live.runtime.relay, live.runtime.hub
        assert relay is not None
        crowd = await spectators(live, tid, 3)
        killed = relay.pid
        assert killed is not None
        os.kill(killed, signal.SIGKILL)
        for spectator in crowd:
            await spectator.ended()
            spectator.close()
        await wait_until(lambda: relay.relayed == 0 and relay.pid is None)
        assert hub._clients == {} and hub._spectators == {}  # every place given back
        (late,) = await spectators(live, tid, 1)
        assert relay.pid not in (None, killed)
        (made,) = await play(people, 1)
        assert await late.event() == ("move", made)
        late.close()


async def test_a_relay_that_stops_reading_is_let_go_not_buffered_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A relay process that takes no more messages (stopped here) is let go once the service
    holds ``OUTBOX_BYTES`` of them: killed, its streams ended, its places given back; the
    service's memory does not grow with every frame of its tables."""
    monkeypatch.setattr(relay_service, "OUTBOX_BYTES", 20_000)
    async with RelayServer() as live:
        tid, _, people = await new_table(live, 2, public=True)
        relay, hub = live.runtime.relay, live.runtime.hub
        assert relay is not None
        crowd = await spectators(live, tid, 2)
        stopped = relay.pid
        assert stopped is not None and relay._channel is not None
        relay._channel.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        os.kill(stopped, signal.SIGSTOP)
        try:
            for _ in range(60):
                if running(relay) is None:
                    break
                await play(people, 1)
            assert running(relay) is None and relay._outbox_bytes == 0
            assert hub._clients == {} and hub._spectators == {}  # every place given back
            await wait_until(lambda: not alive(stopped), timeout=relay_service.EXIT_SECONDS + 3)
            for spectator in crowd:
                await spectator.ended()
        finally:
            for spectator in crowd:
                spectator.close()
            if alive(stopped):
                os.kill(stopped, signal.SIGKILL)


async def test_a_shutdown_ends_relayed_streams_with_the_terminator() -> None:
    live = RelayServer()
    await live.__aenter__()
    tid, _, _ = await new_table(live, 2, public=True)
    relay = live.runtime.relay
    assert relay is not None
    crowd = await spectators(live, tid, 3)
    pid = relay.pid
    assert pid is not None
    started = time.monotonic()
    await live.__aexit__(None, None, None)
    assert time.monotonic() - started < 4.0  # well under the 5 s graceful timeout
    for spectator in crowd:
        assert (await spectator.ended(timeout=2)).endswith(TERMINATOR)
        spectator.close()
    await wait_until(lambda: not alive(pid), timeout=3.0)


async def test_a_table_that_ends_ends_its_relayed_streams() -> None:
    # An idle table expires (three seconds here: time enough for two streams to open on a
    # busy machine); its feed's look on a heartbeat finds it gone.
    async with RelayServer(table_idle_seconds=3, table_heartbeat_seconds=0.3) as live:
        tid, _, _ = await new_table(live, 2, public=True, start=False)
        relay = live.runtime.relay
        assert relay is not None
        crowd = await spectators(live, tid, 2)
        for spectator in crowd:
            assert (await spectator.ended(timeout=10)).endswith(TERMINATOR)
            spectator.close()
        await wait_until(lambda: relay.relayed == 0)


async def test_a_relay_that_cannot_start_leaves_the_streams_in_the_service(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Where there is no ``SOCK_SEQPACKET`` (macOS, Windows) or no process can be started,
    spectators' streams stay in the service, as with the relay off, after one warning."""
    monkeypatch.delattr(socket, "SOCK_SEQPACKET")
    async with RelayServer() as live:
        tid, _, people = await new_table(live, 2, public=True)
        relay, hub = live.runtime.relay, live.runtime.hub
        assert relay is not None
        crowd = [await Spectator.open(live, tid) for _ in range(3)]
        try:
            for spectator in crowd:
                assert (await spectator.event())[0] == "snapshot"
            made = await play(people, 2)
            for spectator in crowd:
                assert [await spectator.event() for _ in made] == [("move", v) for v in made]
            assert relay.relayed == 0 and relay.pid is None
            assert hub.stream_count == 3
            warned = [r for r in caplog.records if "relay not started" in r.getMessage()]
            assert len(warned) == 1
        finally:
            for spectator in crowd:
                spectator.close()


async def test_with_the_relay_off_streams_stay_in_the_service() -> None:
    async with RelayServer(spectator_relay=False) as live:
        tid, _, people = await new_table(live, 2, public=True)
        assert live.runtime.relay is None
        crowd = [await Spectator.open(live, tid) for _ in range(3)]
        for spectator in crowd:
            assert (await spectator.event())[0] == "snapshot"
        assert live.runtime.hub.stream_count == 3
        (made,) = await play(people, 1)
        for spectator in crowd:
            assert await spectator.event() == ("move", made)
            spectator.close()


def test_the_relay_process_imports_only_the_standard_library() -> None:
    """It stays small (some 11 MiB resident, most of it the interpreter's)."""
    tree = ast.parse(Path(relay_module.__file__).read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    }
    assert imported - {"__future__"} <= set(sys.stdlib_module_names), imported
