"""The driver's cost does not grow with the number of tables: deadlines and bot
turns wait in a due-time index, nothing is watched per request, and ids that name no table
never reach the driver (nor the log)."""

from __future__ import annotations

import asyncio
import logging
import secrets
import statistics
import time

import pytest

from manhattan.live.runtime import TableRuntime
from manhattan.tables.due import HeapDue
from tests.conftest import RedisServer
from tests.tables.conftest import LiveServer, new_table, ok

pytestmark = pytest.mark.anyio


async def live_tables(live: LiveServer, count: int) -> None:
    """``count`` tables in the server's store; every other one playing on a running clock."""
    rt: TableRuntime = live.app.state.tables
    for k in range(count):
        created = await rt.tables.create({"setup": {"players": 2}, "turnSeconds": 3600})
        if k % 2:
            tid = created["tableId"]
            for name in ("ann", "bob"):
                await rt.tables.join(tid, {"name": name})
            host = rt.tables.authenticate(tid, created["hostToken"])
            await rt.tables.start(tid, host)


async def get_rate(live: LiveServer, path: str, count: int) -> float:
    async with live.client() as c:
        began = time.perf_counter()
        for _ in range(count):
            ok(await c.get(path))
        return count / (time.perf_counter() - began)


async def test_a_get_costs_the_same_with_thousands_of_live_tables() -> None:
    async with LiveServer() as few, LiveServer() as many:
        await live_tables(few, 10)
        await live_tables(many, 4000)
        paths = {}
        for server in (few, many):
            tid, _, _ = await new_table(server, 2, turnSeconds=3600)
            paths[server] = f"/v1/tables/{tid}"
        await asyncio.sleep(0.5)  # the drivers' checks of the new tables are done
        assert many.app.state.tables.driver.scheduled >= 2000  # the running clocks
        rates: dict[LiveServer, list[float]] = {few: [], many: []}
        for _ in range(6):  # alternating, so the shared machine's load hits both alike
            for server in (few, many):
                rates[server].append(await get_rate(server, paths[server], 150))
        ratio = statistics.median(rates[many]) / statistics.median(rates[few])
        # What this rules out is a GET whose cost grows with the tables (a scan of 4,000 would
        # be a small fraction); a loaded machine moves the same rate by half from one run to
        # the next.
        assert ratio >= 0.4, (ratio, rates)


def driver_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("manhattan.tables")]


async def test_gets_of_unknown_ids_schedule_and_log_nothing(
    live: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with live.client() as c:
        for _ in range(2000):
            response = await c.get(f"/v1/tables/{secrets.token_hex(16)}")
            assert response.status_code == 404
    await asyncio.sleep(0.2)
    assert live.app.state.tables.driver.scheduled == 0
    assert driver_records(caplog) == []


@pytest.mark.redis
async def test_gets_of_unknown_ids_during_a_redis_outage_log_nothing_per_request(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with LiveServer(redis_url=redis_server.url, redis_timeout=0.2) as live:
        await new_table(live, 2, turnSeconds=3600)
        redis_server.stop()
        try:
            async with live.client() as c:
                for _ in range(2000):
                    response = await c.get(f"/v1/tables/{secrets.token_hex(16)}")
                    assert response.status_code == 503
        finally:
            redis_server.start()
    # A warning when the outage begins and one when it ends, per kind: never one per request.
    assert len(driver_records(caplog)) <= 6, [r.getMessage() for r in driver_records(caplog)]


async def test_the_heap_index_keeps_the_latest_due_time_per_table() -> None:
    due = HeapDue()
    await due.put("a", 300)
    await due.put("b", 100)
    await due.put("a", 200)  # moved earlier: the 300 entry is stale
    assert due.next_ms() == 100 and len(due) == 2
    assert await due.take(150, 10) == [("b", 100)]
    await due.put("c", 250)
    await due.done("c", 240)  # moved since the claim: kept
    assert await due.take(1000, 10) == [("a", 200), ("c", 250)]
    assert await due.take(1000, 10) == [] and due.next_ms() is None


@pytest.mark.redis
async def test_a_clock_runs_out_on_a_replica_that_never_saw_the_table(
    redis_server: RedisServer,
) -> None:
    """The deadline is in the shared index: a second replica that never served the table (nor
    is asked about it) times the turn out once the first one is gone."""
    async with LiveServer(redis_url=redis_server.url) as first:
        tid, _, (ann, _bob) = await new_table(first, 2, turnSeconds=1)
        version = (await ann.table())["version"]
    async with LiveServer(redis_url=redis_server.url) as second:
        tables = second.app.state.tables.tables
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            table, now = await tables.load(tid)  # a plain read: nothing asks the driver
            if now > version:
                break
            await asyncio.sleep(0.2)
        assert now > version and table.has_event("timeout")
