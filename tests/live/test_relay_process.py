"""The spectator relay's process on its own (``live/relay_process.py``): started as the
service starts it, driven through its channel with the service's messages, writing to real
loopback TCP connections."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from manhattan.live.relay import RELAY_SCRIPT
from manhattan.live.relay_process import (
    CLOSED,
    PENDING_CAP,
    TERMINATOR,
    chunk,
    decode,
    encode_end,
    encode_frame,
    encode_handoff,
    encode_heartbeat,
)

HEARTBEAT = b": heartbeat\r\n\r\n"


def frame(event: str, version: int, data: bytes = b"{}") -> bytes:
    return b"event: %s\r\ndata: %s\r\nid: %d\r\n\r\n" % (event.encode(), data, version)


@contextlib.contextmanager
def relay() -> Iterator[tuple[socket.socket, subprocess.Popen[bytes]]]:
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    process = subprocess.Popen(
        [sys.executable, "-I", "-S", RELAY_SCRIPT, str(theirs.fileno())],
        pass_fds=(theirs.fileno(),),
    )
    theirs.close()
    ours.settimeout(5)
    try:
        yield ours, process
    finally:
        ours.close()
        process.wait(timeout=5)


@contextlib.contextmanager
def listener() -> Iterator[socket.socket]:
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server


def handed_over(
    channel: socket.socket,
    server: socket.socket,
    table: str,
    version: int,
    handle: int,
    *,
    buffers: int | None = None,
) -> socket.socket:
    """A client connection whose server side the relay now holds at ``version`` (the kernel's
    send and receive buffers of the connection made small: ``buffers`` bytes)."""
    client = socket.create_connection(server.getsockname())
    client.settimeout(5)
    accepted, _ = server.accept()
    if buffers is not None:
        accepted.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, buffers)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, buffers)
    socket.send_fds(
        channel, [encode_handoff(table, version, "127.0.0.1", handle)], [accepted.fileno()]
    )
    accepted.close()
    return client


def read_exactly(client: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        more = client.recv(size - len(data))
        assert more, f"the connection ended after {data!r}"
        data += more
    return data


def closed_report(channel: socket.socket) -> int:
    report = decode(channel.recv(64))
    assert report.kind == CLOSED
    return report.handle


def test_frames_after_the_handover_in_order_a_snapshot_resets_and_end_terminates() -> None:
    with relay() as (channel, _), listener() as server:
        early = handed_over(channel, server, "t1", 4, handle=1)
        late = handed_over(channel, server, "t1", 5, handle=2)
        other = handed_over(channel, server, "t2", 4, handle=3)
        for message in (
            encode_frame("t1", 5, frame("move", 5)),
            encode_frame("t1", 6, frame("move", 6)),
            encode_heartbeat("t1", HEARTBEAT),
            encode_frame("t1", 3, frame("snapshot", 3), snapshot=True),  # (a gap: all reset)
            encode_frame("t1", 4, frame("move", 4)),
            encode_end("t1"),
        ):
            channel.send(message)
        tail = [chunk(frame("move", 6)), chunk(HEARTBEAT), chunk(frame("snapshot", 3))]
        tail += [chunk(frame("move", 4)), TERMINATOR]
        expected_early = b"".join([chunk(frame("move", 5)), *tail])
        assert read_exactly(early, len(expected_early)) == expected_early
        expected_late = b"".join(tail)
        assert read_exactly(late, len(expected_late)) == expected_late
        assert early.recv(1) == b"" and late.recv(1) == b""  # closed after the terminator
        assert {closed_report(channel), closed_report(channel)} == {1, 2}
        other.setblocking(False)
        with pytest.raises(BlockingIOError):  # nothing for another table's stream
            other.recv(1)
        for client in (early, late, other):
            client.close()


def test_a_client_that_hangs_up_is_reported_closed() -> None:
    with relay() as (channel, _), listener() as server:
        client = handed_over(channel, server, "t1", 1, handle=7)
        client.close()
        assert closed_report(channel) == 7


def test_a_client_that_does_not_read_is_dropped_once_too_far_behind() -> None:
    with relay() as (channel, _), listener() as server:
        client = handed_over(channel, server, "t1", 0, handle=9, buffers=4096)
        big = frame("move", 0, b"x" * 32_000)
        reported = None
        # What the kernel's buffers take, then PENDING_CAP held by the relay, then dropped.
        for version in range(1, 100):
            channel.settimeout(10.0)  # the relay reads its channel, if late on a busy machine
            channel.send(encode_frame("t1", version, big))
            channel.settimeout(0.05)  # a look for the report, not a wait
            with contextlib.suppress(TimeoutError):
                reported = closed_report(channel)
                break
        assert reported == 9, "never dropped"
        assert version * len(big) > PENDING_CAP
        client.close()


def test_the_channel_ending_terminates_every_stream_and_the_process_exits() -> None:
    with relay() as (channel, process), listener() as server:
        clients = [handed_over(channel, server, f"t{k}", 1, handle=k) for k in range(3)]
        channel.send(encode_frame("t0", 2, frame("move", 2)))
        time.sleep(0.2)
        channel.close()
        started = time.monotonic()
        assert process.wait(timeout=3) == 0
        assert time.monotonic() - started < 1.5
        assert read_exactly(clients[0], len(chunk(frame("move", 2)))) == chunk(frame("move", 2))
        for client in clients:
            assert read_exactly(client, len(TERMINATOR)) == TERMINATOR
            assert client.recv(1) == b""
            client.close()
