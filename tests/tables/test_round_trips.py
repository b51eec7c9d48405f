"""One store round trip per move on Redis: the table's write starts from this
process's last write of it (no read), and the Lua compare-and-set publishes the change notice
itself; this process's streams push the change without reading it back. Seen with ``MONITOR`` on
a redis-server of the test's own: every command the service sends, with its keys."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as redis

from tests.conftest import RedisServer
from tests.tables.conftest import LiveServer, new_table, ok, sse

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


@contextlib.asynccontextmanager
async def monitored(url: str) -> AsyncIterator[list[dict[str, Any]]]:
    """The commands Redis runs meanwhile (those a script runs come from client ``lua``)."""
    seen: list[dict[str, Any]] = []
    client = redis.Redis.from_url(url)
    ready = asyncio.Event()

    async def listen() -> None:
        async with client.monitor() as monitor:
            ready.set()
            async for command in monitor.listen():
                seen.append(command)

    task = asyncio.create_task(listen())
    await asyncio.wait_for(ready.wait(), 5)
    try:
        yield seen
    finally:
        await asyncio.sleep(0.2)  # the last commands reach the monitor
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        await client.aclose()


def from_script(command: dict[str, Any]) -> bool:
    return "lua" in (command.get("client_address"), command.get("client_type"))


async def test_a_move_is_one_redis_round_trip(redis_server: RedisServer) -> None:
    async with LiveServer(redis_url=redis_server.url) as live:
        tid, _, people = await new_table(live, 2)
        table_key = f"manhattan:1:{{table:{tid}}}"
        async with sse(people[0].client, f"/v1/tables/{tid}/events") as stream:
            await stream.until("snapshot")
            sent: list[list[str]] = []
            for n in range(6):
                table = await people[0].table()
                mover = next(p for p in people if p.player == table["toMove"])
                mine = await mover.table()
                async with monitored(redis_server.url) as seen:
                    ok(await mover.move(mine["moves"][0], mine["version"], f"m{n}"))
                    await stream.until("move")  # pushed to the open stream
                ours = [c["command"].split() for c in seen if not from_script(c)]
                sent.extend(c for c in ours if table_key in c)
                assert not [c for c in ours if c[0] in ("SPUBLISH", "PUBLISH")]
                scripted = [c["command"].split()[0] for c in seen if from_script(c)]
                assert scripted.count("SPUBLISH") == 1, scripted  # the notice, by the script
    # per move, the table's key is touched by one command, the script that also publishes
    assert [c[0] for c in sent] == ["EVALSHA"] * 6, sent
