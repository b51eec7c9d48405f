"""``manhattan bench tables --live N``: does a table request cost more when many tables are live?

The phase measures a probe (``--live-seconds`` of table GETs by several connections, then as
long of moves at a few tables, each move a GET of the table as its seat and the POST), creates
N live tables (half of them playing on a running clock, so the driver has N/2 deadlines
scheduled), and measures the same probe again in the same run. Reported: both rates and their
ratios (the target: both at least 0.9x the run with few live tables).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from manhattan.bench.harness import process_cpu
from manhattan.bench.table_people import SETUP_CONCURRENCY, Endpoint, Pool, bounded, must
from manhattan.bench.table_report import LIVE_TARGET, per_second, ratio

#: Connections the probe keeps busy at once.
PROBE_WORKERS = 8
#: Target: rates with N live tables over rates with a few.


async def new_playing(pool: Pool, clock: int | None) -> tuple[str, list[str]]:
    """A started 2-seat table (with ``turnSeconds`` = ``clock``): (id, seat tokens)."""
    body: dict[str, Any] = {"setup": {"players": 2}, "public": False}
    if clock is not None:
        body["turnSeconds"] = clock
    created = await must(pool, "POST", "/v1/tables", body)
    tid = created["tableId"]
    tokens = []
    for name in ("ann", "bob"):
        joined = await must(pool, "POST", f"/v1/tables/{tid}/join", {"name": name})
        tokens.append(joined["seatToken"])
    await must(pool, "POST", f"/v1/tables/{tid}/start", {}, created["hostToken"])
    return tid, tokens


async def live_tables(endpoint: Endpoint, count: int) -> float:
    """``count`` live tables: every other one playing with a one-hour clock, the rest waiting.
    The seconds it took."""
    pool = Pool(endpoint, SETUP_CONCURRENCY)

    async def one(k: int) -> None:
        if k % 2:
            await new_playing(pool, 3600)
        else:
            await must(pool, "POST", "/v1/tables", {"setup": {"players": 2}, "public": False})

    return await timed_setup(pool, count, one)


async def timed_setup(pool: Pool, count: int, one: Callable[[int], Awaitable[None]]) -> float:
    """``one(k)`` for k in 0..count-1, a bounded number at once; the seconds it took. The
    ``pool`` is closed after."""
    began = time.perf_counter()
    try:
        await bounded(SETUP_CONCURRENCY, [partial(one, k) for k in range(count)])
    finally:
        pool.close()
    return time.perf_counter() - began


async def probe(endpoint: Endpoint, pid: int | None, seconds: float) -> dict[str, Any]:
    """GETs of one table, then moves at ``PROBE_WORKERS`` tables, ``seconds`` each; with the
    service's process id, also its CPU milliseconds per GET and per move (steadier than rates
    on a shared machine)."""
    pool = Pool(endpoint, PROBE_WORKERS)
    try:
        tid, tokens = await new_playing(pool, None)
        path = f"/v1/tables/{tid}"
        tables = [await new_playing(pool, None) for _ in range(PROBE_WORKERS)]
        cpu = process_cpu(pid)
        gets = await _for(seconds, lambda: must(pool, "GET", path, token=tokens[0]))
        cpu_gets = process_cpu(pid)
        moves = await _moves(pool, tables, seconds)
        cpu_moves = process_cpu(pid)
    finally:
        pool.close()
    return {
        "gets_per_s": per_second(gets, seconds),
        "moves_per_s": per_second(moves, seconds),
        "cpu_ms_per_get": _per(cpu, cpu_gets, gets),
        "cpu_ms_per_move": _per(cpu_gets, cpu_moves, moves),
    }


def _per(before: float | None, after: float | None, count: int) -> float | None:
    if before is None or after is None or not count:
        return None
    return 1000 * (after - before) / count


async def _for(seconds: float, request: Any) -> int:
    """Requests made by ``PROBE_WORKERS`` loops in ``seconds``."""
    done = 0
    until = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal done
        while time.perf_counter() < until:
            await request()
            done += 1

    await asyncio.gather(*(worker() for _ in range(PROBE_WORKERS)))
    return done


async def _moves(pool: Pool, tables: list[tuple[str, list[str]]], seconds: float) -> int:
    played = 0
    until = time.perf_counter() + seconds

    async def play(table: tuple[str, list[str]]) -> None:
        nonlocal played
        tid, tokens = table
        while time.perf_counter() < until:
            seen = await must(pool, "GET", f"/v1/tables/{tid}", token=tokens[0])
            if seen["status"] != "playing":
                tid, tokens = await new_playing(pool, None)
                continue
            if seen["toMove"] != 0:
                seen = await must(pool, "GET", f"/v1/tables/{tid}", token=tokens[seen["toMove"]])
            body = {"move": seen["moves"][0], "version": seen["version"]}
            await must(pool, "POST", f"/v1/tables/{tid}/moves", body, tokens[seen["toMove"]])
            played += 1

    await asyncio.gather(*(play(table) for table in tables))
    return played


async def live_phase(
    endpoint: Endpoint, pid: int | None, live: int, seconds: float
) -> dict[str, Any]:
    """The probe with a few live tables, then with ``live`` more, in one run."""
    few = await probe(endpoint, pid, seconds)
    created_in = await live_tables(endpoint, live)
    many = await probe(endpoint, pid, seconds)
    return {
        "live": live,
        "created_in_s": created_in,
        "few": few,
        "many": many,
        "get_ratio": ratio(many["gets_per_s"], few["gets_per_s"]),
        "move_ratio": ratio(many["moves_per_s"], few["moves_per_s"]),
        "cpu_per_get_ratio": _ratio(many["cpu_ms_per_get"], few["cpu_ms_per_get"]),
        "cpu_per_move_ratio": _ratio(many["cpu_ms_per_move"], few["cpu_ms_per_move"]),
        "target": LIVE_TARGET,
    }


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or denominator is None:
        return None
    return ratio(numerator, denominator)
