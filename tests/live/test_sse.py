"""The lean SSE response of the table streams (issue 26 item 5): one task per open stream (the
request's own), heartbeats from the hub's one shared timer, a hang-up noticed at once without a
task of its own, and the streams served past the router."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

import pytest

from manhattan.live.listener import Hangup
from manhattan.live.sse import HangupWatch
from tests.tables.conftest import LiveServer, new_table

pytestmark = pytest.mark.anyio

#: The task uvicorn runs a request in, and so an open stream.
REQUEST_TASK = "RequestResponseCycle.run_asgi"


async def open_raw(live: LiveServer, path: str) -> tuple[asyncio.StreamReader, Any]:
    """A stream opened over a bare socket (no client library, no task of its own) once its
    first event is in."""
    reader, writer = await asyncio.open_connection("127.0.0.1", live.port)
    writer.write(f"GET {path} HTTP/1.1\r\nhost: x\r\naccept: text/event-stream\r\n\r\n".encode())
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert head.startswith(b"HTTP/1.1 200"), head
    assert b"content-type: text/event-stream" in head.lower()
    await asyncio.wait_for(reader.readuntil(b"event: snapshot"), 5)
    return reader, writer


async def wait_until(check: Any, timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not in time"
        await asyncio.sleep(0.02)


async def fewest_tasks(samples: int = 5) -> Counter[str]:
    """The tasks alive, by their coroutine's name, at the fewest of a few looks 0.1 s apart: a
    stream's task stays, while a task that comes and goes (a request of the test's own, a write
    in flight) is mostly left out."""
    seen = []
    for _ in range(samples):
        seen.append(
            Counter(getattr(t.get_coro(), "__qualname__", "?") for t in asyncio.all_tasks())
        )
        await asyncio.sleep(0.1)
    return min(seen, key=lambda kinds: kinds.total())


async def test_an_open_stream_costs_its_request_task_and_nothing_more() -> None:
    async with LiveServer(table_heartbeat_seconds=0.2) as live:
        tid, _, _ = await new_table(live, 2, public=True)
        path = f"/v1/tables/{tid}/events"
        # The hub's shared timer starts with the first stream.
        opened = [await open_raw(live, path)]
        try:
            await asyncio.sleep(0.3)
            before = await fewest_tasks()
            opened += [await open_raw(live, path) for _ in range(10)]
            await asyncio.sleep(0.5)  # heartbeats come and go meanwhile
            grown = await fewest_tasks() - before
            # Each stream is its request's task; nothing else grows per stream. (A background
            # task of the service that happens to be alive then, on a loaded machine, is no
            # stream's: one such made this test fail when it compared the totals.)
            assert grown[REQUEST_TASK] == 10, grown
            assert all(n <= 2 for kind, n in grown.items() if kind != REQUEST_TASK), grown
            for reader, _ in opened[1:]:  # every stream beats, from the one timer
                await asyncio.wait_for(reader.readuntil(b": heartbeat\r\n\r\n"), 2)
        finally:  # (left open, a failure's sockets failed the next test as unclosed)
            for _, writer in opened:
                writer.close()


async def test_a_hang_up_ends_the_stream_at_once() -> None:
    async with LiveServer() as live:  # a 15 s heartbeat: the end is not found by writing
        tid, _, _ = await new_table(live, 2, public=True)
        hub = live.app.state.tables.hub
        _, writer = await open_raw(live, f"/v1/tables/{tid}/events")
        assert hub.stream_count == 1
        writer.close()
        await wait_until(lambda: hub.stream_count == 0, timeout=5.0)  # not the heartbeat's 15 s


async def test_refusals_keep_their_codes_past_the_router() -> None:
    async with LiveServer() as live, live.client() as c:
        missing = await c.get("/v1/tables/tZZZZZZZZZZZZZZZZZZZZZZZZZ/events")
        assert missing.status_code in (400, 404) and "code" in missing.json()
        assert missing.headers.get("x-request-id")  # the service middleware ran
        private, _, _ = await new_table(live, 2, public=False)
        refused = await c.get(f"/v1/tables/{private}/events")
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == "NOT_SEATED"


async def test_the_hangup_watch_reads_a_queue_like_a_server_would() -> None:
    messages: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def receive() -> dict[str, Any]:
        return await messages.get()

    hangup = Hangup()
    watch = HangupWatch(receive, hangup)
    watch.start()
    messages.put_nowait({"type": "http.request", "body": b"", "more_body": False})
    await asyncio.sleep(0.05)
    assert not hangup.gone  # a body is no hang-up
    messages.put_nowait({"type": "http.disconnect"})
    await asyncio.sleep(0.05)
    assert hangup.gone

    quiet = Hangup()
    idle = HangupWatch(receive, quiet)
    idle.start()
    idle.close()  # the stream ended first: nothing is left waiting on the queue
    messages.put_nowait({"type": "http.disconnect"})
    await asyncio.sleep(0.05)
    assert not quiet.gone and messages.qsize() == 1
