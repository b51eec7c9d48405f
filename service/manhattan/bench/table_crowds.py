"""``manhattan bench tables``: the phases with many open streams, each in a service process of
its own (``fresh_service``) so that memory is measured from a clean start, not in a heap that
earlier phases grew and freed.

* **idle** (``--idle-streams``): seats open their streams and stay silent (``idle_streams``);
  RSS growth per stream, per 1,000 streams, and after they close.
* **spectators** (``--spectators N``): ``--tables`` tables of four people
  play at a person's pace (``--spectator-think`` seconds a move) while N spectators hold the
  SSE stream of one public table, whose four people play about ``--spectator-rate`` moves a
  second. Measured: the spectators' push latency (from just before a move's POST to its
  arrival on each spectator's stream), a cheap request's latency (a table GET and
  ``/healthz``) before the spectators come and while they watch, and RSS at the start, with the
  spectators open and after they closed: of the service and the processes below it (its
  spectator relay holds the spectators' streams), and of the service alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from manhattan.bench.harness import (
    latency_summary,
    process_cpu,
    resident_kib,
    spawned_service,
    tree_resident_kib,
)
from manhattan.bench.table_crowd_process import Crowd
from manhattan.bench.table_idle import idle_streams
from manhattan.bench.table_people import (
    BenchError,
    Endpoint,
    Person,
    Pool,
    TableRun,
    Tally,
    must,
    play_tables,
    seated_table,
)
from manhattan.bench.table_probe_process import Prober
from manhattan.bench.table_report import PERCENTILES, SEATS, per_second, ratio

#: The targets for the spectators phase.
SPECTATOR_TARGETS = {"push_p99_ms": 250.0, "cheap_p99_vs_idle": 3.0, "rss_back_mib": 10.0}
#: The per-stream idle memory target.
IDLE_KIB_TARGET = 16.0
#: The share of a move's interval the watched table's people think (0.5-1.5x of it); the rest
#: is the move's POST and its push to the next mover, a few ms now that the table's people get
#: a change before its spectators (0.7 when they waited behind the crowd: 13 moves/s since).
THINK_SHARE = 0.9
#: Every bench client connects from loopback: the fresh services allow them all.
STREAMS_PER_CLIENT = "1000000"


@contextlib.asynccontextmanager
async def fresh_service(
    redis_url: str | None, name: str, *, python_path: Path | None = None
) -> AsyncIterator[tuple[Endpoint, int]]:
    """A service process started for one phase (embedded store, or ``redis_url``; the package
    from ``python_path`` when given); started and stopped in a thread (the harness waits for it
    with blocking requests)."""
    settings = {"MANHATTAN_TABLE_STREAMS_PER_CLIENT": STREAMS_PER_CLIENT}
    if redis_url is not None:
        settings["REDIS_URL"] = redis_url
    if python_path is not None:
        settings["PYTHONPATH"] = str(python_path)
    service = spawned_service(settings, name=name, timeout=120.0)
    url, pid = await asyncio.to_thread(service.__enter__)
    try:
        address = urlsplit(url)
        yield Endpoint(address.hostname or "127.0.0.1", address.port or 80), pid
    finally:
        await asyncio.to_thread(service.__exit__, None, None, None)


async def fresh_idle(redis_url: str | None, streams: int, hold: float) -> dict[str, Any]:
    async with fresh_service(redis_url, "bench-idle") as (endpoint, pid):
        report = await idle_streams(endpoint, pid, streams, hold)
    report["fresh_process"] = True
    return report


# -- spectators -------------------------------------------------------------------------------
async def public_table(pool: Pool) -> TableRun:
    """A public table of four people, joined, not started."""
    body = {"setup": {}, "seats": ["open"] * SEATS, "public": True, "name": "watched"}
    return await seated_table(pool, body, SEATS, "w")


async def _probe(endpoint: Endpoint, table_id: str, seconds: float) -> dict[str, Any]:
    prober = Prober(endpoint, table_id)
    try:
        await prober.start()
        await asyncio.sleep(seconds)
        return await prober.stop()
    finally:
        prober.kill()


async def spectators_phase(
    endpoint: Endpoint,
    pid: int | None,
    spectators: int,
    tables: int,
    *,
    think: float,
    rate: float,
    seed: int,
    probe_seconds: float = 5.0,
) -> dict[str, Any]:
    """The spectators phase (module doc) against a service of its own."""
    pool = Pool(endpoint, 4)
    stop_play = asyncio.Event()
    play = asyncio.create_task(
        play_tables(endpoint, tables, 3600.0, seed, {}, think=think, until=stop_play)
    )
    try:
        watched = await public_table(pool)
        await asyncio.sleep(max(3.0, think * 2))  # the tables set up and playing
        idle = await _probe(endpoint, watched.table_id, probe_seconds)
        rss_start = _rss_now(pid)
        watching = await _watch_one_game(endpoint, pid, watched, spectators, rate, seed)
        await asyncio.sleep(10.0)  # the closed streams noticed, their memory given back
        rss_end = _rss_now(pid)
    finally:
        stop_play.set()
        played = await play
        pool.close()
    busy = watching.pop("cheap")
    rss_open = watching.pop("rss_open")
    report = {
        "spectators": spectators,
        "tables": tables,
        "think_seconds": think,
        "beside": {k: played[k] for k in ("moves", "moves_per_s", "errors", "error_samples")},
        "cheap_idle": idle,
        "cheap_watched": busy,
        "cheap_p99_vs_idle": ratio(busy["table_get"]["p99_ms"], idle["table_get"]["p99_ms"]),
        "healthz_p99_vs_idle": ratio(busy["healthz"]["p99_ms"], idle["healthz"]["p99_ms"]),
        **watching,
        "rss": _rss(rss_start[0], rss_open[0], rss_end[0], spectators),
        "rss_service_alone": _rss(rss_start[1], rss_open[1], rss_end[1], spectators),
        "targets": SPECTATOR_TARGETS,
    }
    report["errors"] = played["errors"] + report["watched_errors"]
    report["cheap_failed"] = idle["failed"] + busy["failed"]
    return report


async def _watch_one_game(
    endpoint: Endpoint,
    pid: int | None,
    watched: TableRun,
    count: int,
    rate: float,
    seed: int,
) -> dict[str, Any]:
    """``count`` spectators (in a process of their own: ``table_crowd_process.py``) open the
    public table's stream; its people play one game at about ``rate`` moves a second while a
    cheap request is timed; then everyone hangs up."""
    tally, stop = Tally(), asyncio.Event()
    rng = random.Random(seed)
    think = THINK_SHARE / rate  # the rest of a move's time is its POST and its push
    people = [
        Person(endpoint, watched, seat, tally, random.Random(rng.getrandbits(64)), stop, think)
        for seat in range(SEATS)
    ]
    began = time.perf_counter()
    prober = Prober(endpoint, watched.table_id)
    pool = Pool(endpoint, 4)
    crowd = Crowd(endpoint, watched.table_id, count)
    arrivals: dict[int, list[float]] = {}
    try:
        await crowd.open()
        opened_in = time.perf_counter() - began
        if crowd.errors:
            raise BenchError(f"{len(crowd.errors)} spectator streams failed: {crowd.errors[:3]}")
        await asyncio.sleep(2.0)
        rss_open = _rss_now(pid)
        seated = [asyncio.create_task(p.run()) for p in people]
        await asyncio.gather(*(p.ready.wait() for p in people))
        # New connections: the service closes keep-alive ones idle for 30 s, as the pool's may
        # have been while a crowd of streams opened.
        pool.close()
        pool = Pool(endpoint, 4)
        await prober.start()
        played_from, cpu_from = time.perf_counter(), process_cpu(pid)
        await must(pool, "POST", f"/v1/tables/{watched.table_id}/start", {}, watched.host_token)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*seated), 120.0)
        played_for, cpu_to = time.perf_counter() - played_from, process_cpu(pid)
        await asyncio.sleep(0.5)  # the last pushes on their way
        busy = await prober.stop()
    finally:
        stop.set()
        prober.kill()
        pool.close()
        await asyncio.gather(*(p.close() for p in people))
        try:
            arrivals = await crowd.close()
        finally:
            crowd.kill()
    latencies = [
        arrived - watched.sent[version]
        for version, times in arrivals.items()
        if version in watched.sent
        for arrived in times
    ]
    return {
        "opened_in_s": opened_in,
        "watched_moves": tally.moves,
        "watched_moves_per_s": per_second(tally.moves, played_for),
        "watched_game_over": watched.over,
        # The service's CPU while the watched game was played (beside it, the other tables),
        # as a share of one core: near 1.0, the service itself is the bottleneck.
        "service_core_share": None
        if cpu_from is None or cpu_to is None
        else (cpu_to - cpu_from) / played_for,
        "push_latency": latency_summary(latencies, PERCENTILES),
        "deliveries_expected": tally.moves * count,
        "watched_errors": tally.errors + len(crowd.errors),
        "watched_error_samples": tally.samples[:4],
        "cheap": busy,
        "rss_open": rss_open,
    }


def _rss_now(pid: int | None) -> tuple[int | None, int | None]:
    """KiB resident: the service with the processes below it, and the service alone."""
    if pid is None:
        return None, None
    return tree_resident_kib(pid), resident_kib(pid)


def _rss(start: int | None, opened: int | None, end: int | None, count: int) -> dict[str, Any]:
    if start is None or opened is None or end is None:
        return {"available": False}
    return {
        "available": True,
        "start_mib": start / 1024,
        "open_mib": opened / 1024,
        "end_mib": end / 1024,
        "per_stream_kib": (opened - start) / count if count else 0.0,
        "back_within_mib": (end - start) / 1024,
    }
