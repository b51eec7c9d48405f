"""Streams under a Redis outage: an open stream is never cut by
a store error; heartbeats go on, a snapshot follows once the store is back, and changes made on
another replica right after the recovery reach it within about a second."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import RedisServer
from tests.tables.conftest import LiveServer, new_table, ok

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


@pytest.fixture
def durable_redis() -> Iterator[RedisServer]:
    server = RedisServer(append_only=True)  # a restart keeps the tables
    server.start()
    try:
        yield server
    finally:
        server.stop()


def shared_key() -> str:
    """One token key for both replicas, so a seat token works on either."""
    return "faults:" + base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")


class Collector:
    """An SSE reader in a task of its own: events queue up, heartbeats are counted, and waiting
    for the next event with a timeout does not disturb the reading."""

    def __init__(self) -> None:
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.heartbeats = 0
        self.ended = False

    async def read(self, response: httpx.Response) -> None:
        fields: dict[str, str] = {}
        async for line in response.aiter_lines():
            if line == "":
                if "data" in fields:
                    data = json.loads(fields["data"])
                    self.events.put_nowait(
                        {"event": fields["event"], "id": int(fields["id"]), **data}
                    )
                fields = {}
            elif line.startswith(":"):
                self.heartbeats += 1
            else:
                name, _, value = line.partition(":")
                fields[name] = value.lstrip(" ")
        self.ended = True

    async def next(self, timeout: float) -> dict[str, Any]:
        return await asyncio.wait_for(self.events.get(), timeout)


@contextlib.asynccontextmanager
async def collect(live: LiveServer, path: str) -> AsyncIterator[Collector]:
    collector = Collector()
    async with live.client() as c, c.stream("GET", path) as response:
        assert response.status_code == 200
        task = asyncio.create_task(collector.read(response))
        try:
            yield collector
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                await task


async def move_until_done(client: httpx.AsyncClient, tid: str, seconds: float = 10) -> int:
    """The seat to move plays its first legal move, retrying while the store recovers."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            table = ok(await client.get(f"/v1/tables/{tid}"))
            body = {"move": table["moves"][0], "version": table["version"]}
            moved = ok(await client.post(f"/v1/tables/{tid}/moves", json=body))
            return int(moved["version"])
        except (AssertionError, httpx.HTTPError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def test_a_stream_outlives_a_redis_outage_and_resumes_with_a_snapshot(
    durable_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    settings = {
        "redis_url": durable_redis.url,
        "table_heartbeat_seconds": 0.3,
        "token_key": shared_key(),
    }
    async with LiveServer(**settings) as live, LiveServer(**settings) as other:
        tid, _, people = await new_table(live, 2, public=True)
        async with collect(live, f"/v1/tables/{tid}/events") as stream:
            first = await stream.next(timeout=5.0)
            durable_redis.stop()
            began = stream.heartbeats
            with pytest.raises(asyncio.TimeoutError):
                await stream.next(timeout=2.0)  # nothing but heartbeats, and no end
            assert stream.heartbeats >= began + 3 and not stream.ended
            durable_redis.start()
            again = await stream.next(timeout=5.0)
            assert again["event"] == "snapshot" and again["id"] == first["id"]
            # A move through the other replica, once the store is back, arrives here promptly.
            mover = people[again["toMove"]]
            async with other.client(mover.token) as theirs:
                version = await move_until_done(theirs, tid)
            pushed = await stream.next(timeout=5.0)
            assert pushed["id"] == version
    assert not [r for r in caplog.records if r.exc_info], "no traceback in the logs"


async def test_changes_right_after_recovery_reach_streams_without_a_heartbeat(
    durable_redis: RedisServer,
) -> None:
    """Default heartbeat (15 s): what a stream hears after the outage comes from the store's
    notices (and the re-reads after a reconnect), not from its heartbeat."""
    settings = {"redis_url": durable_redis.url, "token_key": shared_key()}
    async with LiveServer(**settings) as live, LiveServer(**settings) as other:
        tid, _, people = await new_table(live, 2, public=True)
        table = ok(await people[0].client.get(f"/v1/tables/{tid}"))
        mover = people[table["toMove"]]
        async with collect(live, f"/v1/tables/{tid}/events") as stream:
            await stream.next(timeout=5.0)
            durable_redis.stop()
            await asyncio.sleep(1.0)
            durable_redis.start()
            async with other.client(mover.token) as theirs:
                version = await move_until_done(theirs, tid)
            moved = time.monotonic()
            while True:
                event = await stream.next(timeout=3.0)
                if event["id"] >= version:
                    break
            assert time.monotonic() - moved < 5.0  # not the 15 s heartbeat


async def test_a_subscription_refused_by_an_outage_carries_a_code(
    durable_redis: RedisServer,
) -> None:
    from tests.tables.test_graphql import SUBSCRIBE, ws_events

    async with LiveServer(redis_url=durable_redis.url) as live:
        tid, _, _ = await new_table(live, 2, public=True)
        durable_redis.stop()
        got = await ws_events(live, SUBSCRIBE, {"id": tid}, 1)
        durable_redis.start()
    # graphql-transport-ws's ``error`` (a list of errors) or a ``next`` with errors: coded.
    errors = got[0]["payload"] if got[0].get("type") == "error" else got[0]["errors"]
    assert errors[0]["extensions"]["code"] == "STORE_UNAVAILABLE", got
