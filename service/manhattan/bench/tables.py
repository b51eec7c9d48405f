"""``manhattan bench tables``: many people at many tables (DESIGN §9), each with a live stream.

Starts the service (``manhattan serve``: one uvicorn worker, embedded store unless
``--redis-url``) on a free loopback port, or drives one already running on loopback (``--url``,
with ``--pid`` for its memory and CPU), and runs, in one process and in this order:

1. **stateless** (``--stateless-seconds``): as many players as there are tables play random
   4-player games the stateless way, each move one ``POST /v1/legal-moves`` and one
   ``POST /v1/apply`` on the sealed token (the two requests per move a table player made
   before its events carried its legal moves).
2. **tables** (``--seconds``): ``--tables`` tables of four people. Every person joins, holds
   the table's SSE stream open and, when the stream says it is their turn, plays one of the
   legal moves that event carries for them at random (``POST .../moves`` with the event's
   version and a move id): one request per move (a ``GET /v1/tables/{id}`` only when an event
   carries no moves; the report counts them). The move's **push latency** is the time
   from just before its POST to its arrival on each of the other three seats' streams.
3. **stateless** again, so the comparison does not depend on the order; its rate is the mean of
   both.
4. **idle streams** (``--idle-streams``): that many seats (four per table) open their streams
   and stay silent for ``--idle-hold`` seconds; the service's resident memory is read before
   the streams open (tables created and joined) and after the hold.

Reported against the issue's targets: push latency p99 < 50 ms, table moves per second at least
0.5x the stateless moves per second, and at most 100 MiB of RSS growth for 2,000 idle streams.
The simulated people speak HTTP/1.1 through the tools' one client, ``http_client`` (asyncio
streams, no client library: its CPU would be the bottleneck on a small machine, and this process
shares the machine with the service), and read their streams with ``sse_reader``.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import secrets
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar
from urllib.parse import urlsplit

import orjson

from ..http_client import Connection, Origin, Stream, open_stream
from ..sse_reader import SSEParser
from .harness import (
    HarnessError,
    add_service_arguments,
    cpu_seconds,
    emit,
    latency_summary,
    resident_kib,
    service_under_test,
)

TARGETS = {"push_p99_ms": 50.0, "moves_vs_stateless": 0.5, "idle_growth_mib": 100.0}
#: The latency percentiles reported.
PERCENTILES = (0.50, 0.90, 0.99)
SEATS = 4
#: Requests in flight while tables are created and joined (not measured).
SETUP_CONCURRENCY = 32
STREAM_OPEN_CONCURRENCY = 100
REQUEST_TIMEOUT = 30.0
#: A stream silent this long is dead (the service's heartbeat comes every 15 s by default).
STREAM_IDLE_TIMEOUT = 120.0
#: The started service's limit on open streams per client address (all of them are loopback).
STREAMS_PER_CLIENT = 1_000_000

T = TypeVar("T")


class BenchError(RuntimeError):
    """The run cannot go on (the service refused the setup, a stream did not open)."""


# -- arithmetic -------------------------------------------------------------------------------
def per_second(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else 0.0


def ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator > 0 else None


def memory_growth(before_kib: int | None, after_kib: int | None, streams: int) -> dict[str, Any]:
    """RSS growth between two readings, in MiB, and per stream in KiB."""
    if before_kib is None or after_kib is None:
        return {"available": False}
    grown = after_kib - before_kib
    return {
        "available": True,
        "before_mib": before_kib / 1024,
        "after_mib": after_kib / 1024,
        "growth_mib": grown / 1024,
        "per_stream_kib": grown / streams if streams else 0.0,
    }


def verdicts(report: dict[str, Any]) -> dict[str, bool | None]:
    """Each target met (True), missed (False) or not measured (None)."""
    # The push target is judged where people play at a person's pace when that was measured
    # (--think); flat out, pushes queue behind the moves of a saturated service.
    push = (report.get("tables_paced") or report.get("tables", {})).get("push_latency", {})
    p99 = push.get("p99_ms") if push.get("count") else None
    versus = report.get("moves_vs_stateless")
    memory = report.get("idle", {}).get("memory", {})
    growth = memory.get("growth_mib") if memory.get("available") else None
    return {
        "push_p99_ms": None if p99 is None else p99 < TARGETS["push_p99_ms"],
        "moves_vs_stateless": None if versus is None else versus >= TARGETS["moves_vs_stateless"],
        "idle_growth_mib": None if growth is None else growth <= TARGETS["idle_growth_mib"],
    }


@dataclass
class Tally:
    push: list[float] = field(default_factory=list)
    post: list[float] = field(default_factory=list)
    moves: int = 0
    conflicts: int = 0
    #: Table GETs a mover needed (its event carried no legal moves).
    gets: int = 0
    errors: int = 0
    samples: list[str] = field(default_factory=list)

    def fail(self, detail: str) -> None:
        self.errors += 1
        if len(self.samples) < 8:
            self.samples.append(detail[:240])


# -- HTTP ------------------------------------------------------------------------------------
class Endpoint:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.origin = Origin(host, port, tls=False)

    def connection(self) -> Connection:
        return Connection(self.origin, REQUEST_TIMEOUT)


async def call(
    connection: Connection,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
) -> tuple[int, Any]:
    """One JSON request: (status, decoded body)."""
    headers = {"accept": "application/json"}
    content = None
    if body is not None:
        content = orjson.dumps(body)
        headers["content-type"] = "application/json"
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    reply = await connection.request(method, path, content, headers)
    return reply.status, orjson.loads(reply.body) if reply.body else None


async def must(
    connection: Connection, method: str, path: str, body: Any = None, token: str = ""
) -> Any:
    status, answer = await call(connection, method, path, body, token or None)
    if not 200 <= status < 300:
        raise BenchError(f"{method} {path}: HTTP {status} {str(answer)[:200]}")
    return answer


class EventStream:
    """One table stream: ``http_client.open_stream`` parsed by ``sse_reader.SSEParser``.

    ``events`` yields ``(event, id, data)`` (the id -1 until one came); heartbeats (comments)
    dispatch nothing."""

    def __init__(self, endpoint: Endpoint, path: str, token: str | None) -> None:
        self.endpoint, self.path, self.token = endpoint, path, token
        self._stream: Stream | None = None

    async def open(self) -> None:
        headers = {"accept": "text/event-stream"}
        if self.token is not None:
            headers["authorization"] = f"Bearer {self.token}"
        self._stream = await open_stream(
            self.endpoint.origin, "GET", self.path, headers=headers, timeout=STREAM_IDLE_TIMEOUT
        )
        if self._stream.status != 200:
            status = self._stream.status
            self.close()
            raise BenchError(f"stream {self.path}: HTTP {status}")

    async def events(self) -> AsyncIterator[tuple[str, int, str]]:
        assert self._stream is not None
        parser = SSEParser()
        async for line in self._stream.lines():
            event = parser.feed(line)
            if event is not None:
                ident = int(event.id) if event.id and event.id.isdigit() else -1
                yield event.event, ident, event.data

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None


class Pool:
    """``size`` keep-alive connections, each lent to one request at a time."""

    def __init__(self, endpoint: Endpoint, size: int) -> None:
        self._all = [endpoint.connection() for _ in range(size)]
        self._free: asyncio.Queue[Connection] = asyncio.Queue()
        for connection in self._all:
            self._free.put_nowait(connection)

    async def must(self, method: str, path: str, body: Any = None, token: str = "") -> Any:
        connection = await self._free.get()
        try:
            return await must(connection, method, path, body, token)
        finally:
            self._free.put_nowait(connection)

    def close(self) -> None:
        for connection in self._all:
            connection.close()


async def bounded(limit: int, jobs: Sequence[Callable[[], Awaitable[T]]]) -> list[T]:
    gate = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Awaitable[T]]) -> T:
        async with gate:
            return await job()

    return list(await asyncio.gather(*(one(job) for job in jobs)))


# -- the stateless baseline -------------------------------------------------------------------
async def stateless(endpoint: Endpoint, players: int, seconds: float, seed: int) -> dict[str, Any]:
    """Random 4-player games by legal-moves + apply on the sealed token, ``players`` at once."""
    tally = Tally()
    deadline = time.monotonic() + seconds

    async def player(rng: random.Random) -> None:
        connection = endpoint.connection()
        try:
            while time.monotonic() < deadline:
                game = await must(connection, "POST", "/v1/games", {"players": SEATS})
                token = game["token"]
                while time.monotonic() < deadline:
                    listed = await must(
                        connection, "POST", "/v1/legal-moves", {"state": {"token": token}}
                    )
                    if not listed["moves"]:
                        break
                    move = rng.choice(listed["moves"])
                    body = {"state": {"token": token}, "move": move}
                    token = (await must(connection, "POST", "/v1/apply", body))["token"]
                    tally.moves += 1
        except (BenchError, OSError) as exc:  # an HttpError is an OSError
            tally.fail(f"stateless: {exc!r}")
        finally:
            connection.close()

    master = random.Random(seed)
    started = time.perf_counter()
    await asyncio.gather(*(player(random.Random(master.getrandbits(64))) for _ in range(players)))
    elapsed = time.perf_counter() - started
    return {
        "players": players,
        "seconds": elapsed,
        "moves": tally.moves,
        "moves_per_s": per_second(tally.moves, elapsed),
        "errors": tally.errors,
        "error_samples": tally.samples,
    }


# -- people at tables -------------------------------------------------------------------------
@dataclass
class TableRun:
    table_id: str
    host_token: str
    tokens: list[str]
    #: version a move makes -> perf_counter() just before its POST was written
    sent: dict[int, float] = field(default_factory=dict)
    over: bool = False


async def make_tables(
    endpoint: Endpoint, count: int, setup: dict[str, Any], *, seats: int = SEATS
) -> list[TableRun]:
    """``count`` tables of ``seats`` open seats, every seat joined."""
    pool = Pool(endpoint, SETUP_CONCURRENCY)

    async def one(k: int) -> TableRun:
        body = {"setup": setup, "seats": ["open"] * seats, "public": False, "name": f"b{k}"}
        created = await pool.must("POST", "/v1/tables", body)
        tid = created["tableId"]
        tokens = []
        for seat in range(seats):
            joined = await pool.must("POST", f"/v1/tables/{tid}/join", {"name": f"p{seat}"})
            tokens.append(joined["seatToken"])
        return TableRun(tid, created["hostToken"], tokens)

    try:
        return await bounded(SETUP_CONCURRENCY, [partial(one, k) for k in range(count)])
    finally:
        pool.close()


class Person:
    """One seat: reads its stream, records the push latency of others' moves, moves on its turn."""

    def __init__(
        self,
        endpoint: Endpoint,
        table: TableRun,
        seat: int,
        tally: Tally,
        rng: random.Random,
        stop: asyncio.Event,
        think: float = 0.0,
    ) -> None:
        self.table, self.seat, self.tally, self.rng, self.stop = table, seat, tally, rng, stop
        self.think = think
        self.token = table.tokens[seat]
        self.stream = EventStream(endpoint, f"/v1/tables/{table.table_id}/events", self.token)
        self.rest = endpoint.connection()
        self.me: int | None = None
        self.moving: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()

    async def run(self) -> None:
        try:
            await self.stream.open()
            async for kind, version, data in self.stream.events():
                arrived = time.perf_counter()
                to_move: int | None = None
                parsed: dict[str, Any] = {}
                if kind == "move":
                    sent = self.table.sent.get(version)
                    parsed = orjson.loads(data)
                    if sent is not None and parsed.get("player") != self.me:
                        self.tally.push.append(arrived - sent)
                    to_move = parsed.get("toMove")
                elif kind == "snapshot":
                    parsed = orjson.loads(data)
                    self.me = parsed.get("you")
                    self.ready.set()
                    if parsed["status"] == "playing":
                        to_move = parsed.get("toMove")
                elif kind == "started":
                    parsed = orjson.loads(data)
                    to_move = parsed.get("toMove")
                elif kind == "over":
                    self.table.over = True
                    return
                if to_move is not None and to_move == self.me and not self.stop.is_set():
                    # The event carries the mover's legal moves at its version: no GET.
                    known = (parsed.get("moves"), parsed.get("version"))
                    self.moving = asyncio.create_task(self.move(*known))
            if not self.stop.is_set():
                self.tally.fail(f"stream of {self.table.table_id}/{self.seat} ended early")
        except (BenchError, OSError, ValueError) as exc:
            if not self.stop.is_set():
                self.tally.fail(f"stream of {self.table.table_id}/{self.seat}: {exc!r}")
        finally:
            self.ready.set()
            self.stream.close()

    async def move(self, moves: list[Any] | None, version: int | None) -> None:
        """Play one of ``moves`` at ``version`` (from the event); without them, GET the table."""
        path = f"/v1/tables/{self.table.table_id}"
        try:
            if self.think:  # a person looks at the board for a while (0.5 to 1.5 x think)
                await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))
            if not moves or version is None:
                table = await must(self.rest, "GET", path, token=self.token)
                moves, version = table["moves"], table["version"]
                self.tally.gets += 1
            if not moves or self.stop.is_set():
                return
            move = self.rng.choice(moves)
            body = {"move": move, "version": version, "moveId": secrets.token_hex(8)}
            started = time.perf_counter()
            self.table.sent[version + 1] = started
            status, answer = await call(self.rest, "POST", path + "/moves", body, self.token)
            if status == 200:
                self.tally.post.append(time.perf_counter() - started)
                self.tally.moves += 1
            elif status == 409:
                self.tally.conflicts += 1  # a stale view; the stream brings the next turn
            else:
                self.tally.fail(f"move: HTTP {status} {str(answer)[:200]}")
        except (BenchError, OSError, ValueError) as exc:
            self.tally.fail(f"move at {self.table.table_id}: {exc!r}")

    async def close(self) -> None:
        """Stop moving first (a move half-sent on a closed connection is no error), then hang
        up."""
        if self.moving is not None:
            self.moving.cancel()
            await asyncio.gather(self.moving, return_exceptions=True)
        self.stream.close()
        self.rest.close()


async def play_tables(
    endpoint: Endpoint,
    tables: int,
    seconds: float,
    seed: int,
    setup: dict[str, Any],
    think: float = 0.0,
) -> dict[str, Any]:
    runs = await make_tables(endpoint, tables, setup)
    tally = Tally()
    stop = asyncio.Event()
    master = random.Random(seed)
    people = [
        Person(endpoint, run, seat, tally, random.Random(master.getrandbits(64)), stop, think)
        for run in runs
        for seat in range(SEATS)
    ]
    readers = [asyncio.create_task(p.run()) for p in people]
    await asyncio.gather(*(p.ready.wait() for p in people))
    if tally.errors:
        stop.set()
        raise BenchError(f"streams did not open: {tally.samples}")
    pool = Pool(endpoint, SETUP_CONCURRENCY)
    started = time.perf_counter()
    try:
        starts = [
            lambda r=r: pool.must("POST", f"/v1/tables/{r.table_id}/start", {}, r.host_token)
            for r in runs
        ]
        await bounded(SETUP_CONCURRENCY, starts)
        with suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*readers), max(0.0, seconds))
    finally:
        elapsed = time.perf_counter() - started
        stop.set()
        await asyncio.gather(*(person.close() for person in people))
        pool.close()
        await asyncio.gather(*readers, return_exceptions=True)
    return {
        "tables": tables,
        "think_seconds": think,
        "people": len(people),
        "seconds": elapsed,
        "moves": tally.moves,
        "moves_per_s": per_second(tally.moves, elapsed),
        "tables_finished": sum(run.over for run in runs),
        "push_latency": latency_summary(tally.push, PERCENTILES),
        "post_latency": latency_summary(tally.post, PERCENTILES),
        "conflicts": tally.conflicts,
        "gets": tally.gets,
        "errors": tally.errors,
        "error_samples": tally.samples,
    }


# -- idle streams -----------------------------------------------------------------------------
async def idle_streams(
    endpoint: Endpoint, pid: int | None, streams: int, hold: float
) -> dict[str, Any]:
    runs = await make_tables(endpoint, math.ceil(streams / SEATS), {})
    seats = [(run, k) for run in runs for k in range(SEATS)][:streams]
    await asyncio.sleep(1.0)  # let the setup's garbage settle before the baseline
    before = resident_kib(pid) if pid is not None else None
    opened = [
        EventStream(endpoint, f"/v1/tables/{run.table_id}/events", run.tokens[k])
        for run, k in seats
    ]
    snapshots = 0

    async def open_one(stream: EventStream) -> None:
        nonlocal snapshots
        await stream.open()
        async for kind, _, _ in stream.events():
            if kind == "snapshot":
                snapshots += 1
                return

    try:
        await bounded(STREAM_OPEN_CONCURRENCY, [partial(open_one, s) for s in opened])
        await asyncio.sleep(hold)  # every stream open and silent (heartbeats only)
        after = resident_kib(pid) if pid is not None else None
    finally:
        for stream in opened:
            stream.close()
    return {
        "streams": len(opened),
        "snapshots": snapshots,
        "hold_seconds": hold,
        "memory": memory_growth(before, after, len(opened)),
    }


# -- the run ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Options:
    tables: int
    seconds: float
    stateless_seconds: float
    idle_streams: int
    idle_hold: float
    rounds: int | None
    seed: int
    think: float = 0.0
    live: int = 0
    live_seconds: float = 5.0


async def measured(pid: int | None, phase: Awaitable[dict[str, Any]]) -> dict[str, Any]:
    """Run a phase and add the CPU it cost: the service's (from /proc) and this process's. On a
    shared machine CPU per move is a steadier figure than moves per second."""
    service_before = cpu_seconds(pid) if pid is not None else None
    bench_before = time.process_time()
    result = await phase
    service_after = cpu_seconds(pid) if pid is not None else None
    result["bench_cpu_seconds"] = time.process_time() - bench_before
    result["service_cpu_seconds"] = (
        None if service_before is None or service_after is None else service_after - service_before
    )
    moves = result.get("moves") or 0
    used = result["service_cpu_seconds"]
    result["service_cpu_ms_per_move"] = 1000 * used / moves if used is not None and moves else None
    return result


def cpu_ratio(tables: dict[str, Any], stateless: Sequence[dict[str, Any]]) -> float | None:
    """Table moves per service CPU second over stateless moves per service CPU second."""
    costs = [p["service_cpu_ms_per_move"] for p in stateless if p["service_cpu_ms_per_move"]]
    table_cost = tables.get("service_cpu_ms_per_move")
    if not costs or not table_cost:
        return None
    stateless_cost = float(sum(costs)) / len(costs)
    return stateless_cost / float(table_cost)


async def bench(url: str, pid: int | None, options: Options) -> dict[str, Any]:
    address = urlsplit(url)
    endpoint = Endpoint(address.hostname or "127.0.0.1", address.port or 80)
    setup: dict[str, Any] = {} if options.rounds is None else {"rounds": options.rounds}
    load_at_start = os.getloadavg()[0]
    seconds = options.stateless_seconds
    first = await measured(pid, stateless(endpoint, options.tables, seconds, options.seed))
    played = await measured(
        pid, play_tables(endpoint, options.tables, options.seconds, options.seed + 1, setup)
    )
    second = await measured(pid, stateless(endpoint, options.tables, seconds, options.seed + 2))
    paced = (
        await measured(
            pid,
            play_tables(
                endpoint,
                options.tables,
                options.seconds,
                options.seed + 3,
                setup,
                think=options.think,
            ),
        )
        if options.think
        else None
    )
    idle = (
        await idle_streams(endpoint, pid, options.idle_streams, options.idle_hold)
        if options.idle_streams
        else {}
    )
    live = await _live_phase(endpoint, pid, options) if options.live else None
    stateless_rate = (first["moves_per_s"] + second["moves_per_s"]) / 2
    report: dict[str, Any] = {
        "url": url,
        "cores": os.cpu_count(),
        "load_average_1m": {"start": load_at_start, "end": os.getloadavg()[0]},
        "stateless": [first, second],
        "stateless_moves_per_s": stateless_rate,
        "tables": played,
        "tables_paced": paced,
        "moves_vs_stateless": ratio(played["moves_per_s"], stateless_rate),
        "moves_per_cpu_vs_stateless": cpu_ratio(played, [first, second]),
        "idle": idle,
        "live": live,
        "errors": first["errors"] + played["errors"] + second["errors"],
    }
    report["targets"] = TARGETS
    report["verdicts"] = verdicts(report)
    return report


async def _live_phase(endpoint: Endpoint, pid: int | None, options: Options) -> dict[str, Any]:
    from .tables_scale import live_phase  # it builds on this module

    return await live_phase(endpoint, pid, options.live, options.live_seconds)


def _verdict(met: bool | None) -> str:
    return {True: "met", False: "MISSED", None: "not measured"}[met]


def print_report(report: dict[str, Any]) -> None:
    played, verdict = report["tables"], report["verdicts"]
    push, post = played["push_latency"], played["post_latency"]
    load = report["load_average_1m"]
    print(
        f"bench tables against {report['url']} ({report['cores']} cores, load average "
        f"{load['start']:.1f} -> {load['end']:.1f})"
    )
    for k, phase in enumerate(report["stateless"], 1):
        print(
            f"  stateless {k}: {phase['players']} players, {phase['moves']} moves in "
            f"{phase['seconds']:.1f} s = {phase['moves_per_s']:.0f} moves/s "
            "(legal-moves + apply per move)"
        )
    print(
        f"  tables: {played['tables']} tables x {SEATS} people with live streams, "
        f"{played['moves']} moves in {played['seconds']:.1f} s = "
        f"{played['moves_per_s']:.0f} moves/s; {played['tables_finished']} games finished; "
        f"{played['conflicts']} conflicts, {played['errors']} errors, "
        f"{played['gets']} table GETs (the events carry the movers' moves)"
    )
    versus = report["moves_vs_stateless"]
    print(
        f"    table moves vs stateless: "
        f"{'n/a' if versus is None else f'{versus:.2f}x'} "
        f"(target >= {TARGETS['moves_vs_stateless']}x: {_verdict(verdict['moves_vs_stateless'])})"
    )
    print(
        f"    push latency (POST -> other seats' streams), {push['count']} deliveries: "
        f"p50 {push['p50_ms']:.1f} ms, p90 {push['p90_ms']:.1f} ms, p99 {push['p99_ms']:.1f} ms, "
        f"max {push['max_ms']:.1f} ms "
        + (
            "(flat out; the target is judged at a person's pace, below)"
            if report.get("tables_paced")
            else f"(target p99 < {TARGETS['push_p99_ms']:.0f} ms: "
            f"{_verdict(verdict['push_p99_ms'])})"
        )
    )
    print(f"    move POST latency: p50 {post['p50_ms']:.1f} ms, p99 {post['p99_ms']:.1f} ms")
    for sample in played["error_samples"]:
        print(f"      {sample}")
    paced = report.get("tables_paced")
    if paced:
        push = paced["push_latency"]
        print(
            f"  tables, people thinking {paced['think_seconds']:.1f} s a move (0.5-1.5x): "
            f"{paced['moves']} moves in {paced['seconds']:.1f} s = {paced['moves_per_s']:.0f} "
            f"moves/s; {paced['conflicts']} conflicts, {paced['errors']} errors"
        )
        print(
            f"    push latency, {push['count']} deliveries: p50 {push['p50_ms']:.1f} ms, "
            f"p99 {push['p99_ms']:.1f} ms, max {push['max_ms']:.1f} ms "
            f"(target p99 < {TARGETS['push_p99_ms']:.0f} ms: {_verdict(verdict['push_p99_ms'])})"
        )
    idle = report["idle"]
    if idle:
        memory = idle["memory"]
        if memory["available"]:
            print(
                f"  idle: {idle['streams']} streams open ({idle['snapshots']} snapshots) for "
                f"{idle['hold_seconds']:.0f} s: service RSS {memory['before_mib']:.1f} -> "
                f"{memory['after_mib']:.1f} MiB, growth {memory['growth_mib']:+.1f} MiB "
                f"({memory['per_stream_kib']:.1f} KiB per stream; target <= "
                f"{TARGETS['idle_growth_mib']:.0f} MiB: {_verdict(verdict['idle_growth_mib'])})"
            )
        else:
            print(f"  idle: {idle['streams']} streams; RSS not measured (Linux /proc only)")
    costs = [(f"stateless {k}", p) for k, p in enumerate(report["stateless"], 1)]
    for name, phase in [*costs, ("tables", played)]:
        used, per_move = phase["service_cpu_seconds"], phase["service_cpu_ms_per_move"]
        service = "n/a" if used is None else f"{used:.1f} s"
        if per_move is not None:
            service += f" ({per_move:.2f} ms per move)"
        print(f"  CPU in {name}: service {service}, this bench {phase['bench_cpu_seconds']:.1f} s")
    per_cpu = report["moves_per_cpu_vs_stateless"]
    if per_cpu is not None:
        print(f"  table moves per service CPU second vs stateless: {per_cpu:.2f}x")
    if report.get("live"):
        from .tables_scale import print_live

        print_live(report["live"])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="manhattan bench tables",
        description=" ".join((__doc__ or "").split("\n\n")[0].split()),
    )
    parser.add_argument("--tables", type=int, default=200, help="concurrent 4-seat tables")
    parser.add_argument("--seconds", type=float, default=20.0, help="time at the tables")
    parser.add_argument(
        "--stateless-seconds", type=float, default=10.0, help="each stateless phase"
    )
    parser.add_argument("--idle-streams", type=int, default=2000, help="0 skips the idle phase")
    parser.add_argument("--idle-hold", type=float, default=16.0, help="seconds streams stay idle")
    parser.add_argument(
        "--rounds", type=int, default=None, help="rounds per game (default: the rules')"
    )
    add_service_arguments(parser)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="also play the tables again with people taking this many seconds a move "
        "(0.5-1.5x), and judge the push latency there",
    )
    parser.add_argument(
        "--live",
        type=int,
        default=0,
        help="also measure table GETs and moves with this many more live tables (0: skip)",
    )
    parser.add_argument("--live-seconds", type=float, default=5.0, help="each --live probe")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    return parser


def run(argv: list[str]) -> int:
    """Entry point of ``manhattan bench tables``: 0 when the run had no errors."""
    args = build_parser().parse_args(argv)
    if args.tables <= 0 or args.seconds <= 0 or args.stateless_seconds <= 0:
        print("error: --tables, --seconds and --stateless-seconds are positive", file=sys.stderr)
        return 2
    if args.idle_streams < 0 or args.idle_hold < 0:
        print("error: --idle-streams and --idle-hold are not negative", file=sys.stderr)
        return 2
    options = Options(
        args.tables,
        args.seconds,
        args.stateless_seconds,
        args.idle_streams,
        args.idle_hold,
        args.rounds,
        args.seed,
        max(0.0, args.think),
        max(0, args.live),
        args.live_seconds,
    )
    # Every simulated person connects from loopback: the service this command starts allows
    # them all (a service given with --url must be configured so itself).
    os.environ.setdefault("MANHATTAN_TABLE_STREAMS_PER_CLIENT", str(STREAMS_PER_CLIENT))
    try:
        with service_under_test(args, "tables") as (url, pid):
            report = asyncio.run(bench(url, pid, options))
    except (HarnessError, BenchError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    emit(report, args.json, print_report)
    return 0 if report["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
