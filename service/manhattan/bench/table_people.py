"""The simulated people of ``manhattan bench tables`` and the phases they play: the stateless
baseline (``stateless``) and people at tables with live streams (``play_tables``); silent
streams are ``table_idle``'s. They speak HTTP/1.1 through the tools' one client
(``http_client``) and read their streams with ``sse_reader``."""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

import orjson

from manhattan.bench.harness import latency_summary, process_cpu, quiet_collector
from manhattan.bench.sse_frames import Connected, FrameStream, StreamRefused
from manhattan.bench.table_report import PERCENTILES, SEATS, per_second
from manhattan.http_client import Connection, Origin, Reply

#: Requests in flight while tables are created and joined (not measured).
SETUP_CONCURRENCY = 32
STREAM_OPEN_CONCURRENCY = 100
REQUEST_TIMEOUT = 30.0
#: A stream silent this long is dead (the service's heartbeat comes every 15 s by default).
STREAM_IDLE_TIMEOUT = 120.0

T = TypeVar("T")


class BenchError(RuntimeError):
    """The run cannot go on (the service refused the setup, a stream did not open)."""


@dataclass
class Tally:
    push: list[float] = field(default_factory=list)
    post: list[float] = field(default_factory=list)
    moves: int = 0
    conflicts: int = 0
    #: Table GETs a mover needed (its event carried no legal moves).
    gets: int = 0
    #: Games played to their end.
    finished: int = 0
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
    connection: Connection | Pool,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    more: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """One JSON request: (status, decoded body); ``more``: other headers (a platform key)."""
    headers = {"accept": "application/json", **(more or {})}
    content = None
    if body is not None:
        content = orjson.dumps(body)
        headers["content-type"] = "application/json"
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    reply = await connection.request(method, path, content, headers)
    return reply.status, orjson.loads(reply.body) if reply.body else None


async def must(
    connection: Connection | Pool,
    method: str,
    path: str,
    body: Any = None,
    token: str = "",
    more: dict[str, str] | None = None,
) -> Any:
    status, answer = await call(connection, method, path, body, token or None, more)
    if not 200 <= status < 300:
        raise BenchError(f"{method} {path}: HTTP {status} {str(answer)[:200]}")
    return answer


class Pool:
    """``size`` keep-alive connections, each lent to one request at a time: ``call`` and
    ``must`` take a pool where they take a connection."""

    def __init__(self, endpoint: Endpoint, size: int) -> None:
        self._all = [endpoint.connection() for _ in range(size)]
        self._free: asyncio.Queue[Connection] = asyncio.Queue()
        for connection in self._all:
            self._free.put_nowait(connection)

    async def request(
        self, method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> Reply:
        """``Connection.request`` on a free connection, lent for this request alone."""
        connection = await self._free.get()
        try:
            return await connection.request(method, path, body, headers)
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
    """Random 4-player games by legal-moves + apply on the sealed token, ``players`` at once,
    for ``seconds`` and until a move is made (a short phase against a service that is slow to
    answer its first requests would have none: its rate is then over the longer time)."""
    tally = Tally()
    deadline = time.monotonic() + seconds

    def going() -> bool:
        return time.monotonic() < deadline or not tally.moves

    async def player(rng: random.Random) -> None:
        connection = endpoint.connection()
        try:
            while going():
                game = await must(connection, "POST", "/v1/games", {"players": SEATS})
                token = game["token"]
                while going():
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
    #: The table of the rematch, once a person has asked for it, and how many of its seats
    #: have been taken (the last to take one starts the game).
    following: TableRun | None = None
    rejoined: int = 0


async def seated_table(
    pool: Pool, body: dict[str, Any], seats: int, names: str, more: dict[str, str] | None = None
) -> TableRun:
    """A table created with ``body`` (``more``: the creation's headers) and each of its
    ``seats`` joined in turn, by a person named ``names`` and the seat's number."""
    created = await must(pool, "POST", "/v1/tables", body, "", more)
    tid = created["tableId"]
    tokens = []
    for seat in range(seats):
        joined = await must(pool, "POST", f"/v1/tables/{tid}/join", {"name": f"{names}{seat}"})
        tokens.append(joined["seatToken"])
    return TableRun(tid, created["hostToken"], tokens)


async def make_tables(
    endpoint: Endpoint,
    count: int,
    setup: dict[str, Any],
    *,
    seats: int = SEATS,
    extra: dict[str, Any] | None = None,
    more: dict[str, str] | None = None,
) -> list[TableRun]:
    """``count`` tables of ``seats`` open seats, every seat joined; ``extra``: more of the
    creation's body (a webhook), ``more``: its headers (a platform key)."""
    pool = Pool(endpoint, SETUP_CONCURRENCY)

    async def one(k: int) -> TableRun:
        body = {"setup": setup, "seats": ["open"] * seats, "public": False, "name": f"b{k}"}
        return await seated_table(pool, {**body, **(extra or {})}, seats, "p", more)

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
        again: bool = False,
    ) -> None:
        self.table, self.seat, self.tally, self.rng, self.stop = table, seat, tally, rng, stop
        self.think = think
        #: Whether a game's end leads to the table's rematch (else this person is done).
        self.again = again
        self.endpoint = endpoint
        self.token = table.tokens[seat]
        self.stream: Connected | None = None  # its stream (or socket: table_sockets.py)
        self.rest = endpoint.connection()
        self.me: int | None = None
        self.moving: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()
        #: Set while ``stream`` is the open one: a rematch's first events can arrive while its
        #: stream is still being opened, before ``stream`` names it.
        self.connected = asyncio.Event()

    async def run(self) -> None:
        """Open the stream and follow it (``_event``) until the game is over (then, with
        ``again``, on to the table's rematch: ``_play_again``) or the run stops."""
        try:
            while True:
                self.connected.clear()
                self.stream = await self._open()
                self.connected.set()
                await self.stream.ended
                if self.stop.is_set():
                    return
                if not self.table.over:
                    self.tally.fail(f"stream of {self.table.table_id}/{self.seat} ended early")
                    return
                if not self.again or not await self._play_again():
                    return
        except StreamRefused as exc:
            if not self.stop.is_set():
                self.tally.fail(f"stream of {self.table.table_id}/{self.seat}: {exc}")
        finally:
            self.ready.set()
            self._hang_up()

    async def _play_again(self) -> bool:
        """This seat at the table's rematch (the same people, a new game): its new token, and
        the game started by whoever takes the last seat. False when the run stops first."""
        old = self.table
        path = f"/v1/tables/{old.table_id}/rematch"
        if self.moving is not None:
            # The last move's answer may come after the stream's end, and ``rest`` carries one
            # request at a time.
            await asyncio.gather(self.moving, return_exceptions=True)
        try:
            kept = await must(self.rest, "POST", path, {}, self.token)
            if old.following is None:  # (every seat's rematch names the same table)
                old.following = TableRun(kept["tableId"], "", [""] * SEATS)
            table = old.following
            table.tokens[self.seat] = kept["seatToken"]
            self.table, self.token, self.me = table, kept["seatToken"], None
            table.rejoined += 1
            if table.rejoined == SEATS:
                await must(self.rest, "POST", f"/v1/tables/{table.table_id}/start", {}, self.token)
        except (BenchError, OSError, ValueError) as exc:
            if not self.stop.is_set():
                self.tally.fail(f"rematch of {old.table_id}: {exc!r}")
            return False
        return not self.stop.is_set()

    async def _open(self) -> Connected:
        """The open stream (with ``ended`` and ``close()``) that calls ``_event``."""
        path = f"/v1/tables/{self.table.table_id}/events"
        host, port = self.endpoint.host, self.endpoint.port
        return await FrameStream.open(host, port, path, self._event, token=self.token)

    def _event(self, kind: bytes, version: int, data: bytes, arrived: float) -> None:
        """One event of the stream, as it arrives (its data still JSON text)."""
        try:
            parsed = orjson.loads(data) if kind in (b"move", b"snapshot", b"started") else {}
        except ValueError as exc:
            self.tally.fail(f"stream of {self.table.table_id}/{self.seat}: {exc!r}")
            self._hang_up()
            return
        self._heard(kind, version, parsed, arrived)

    def _heard(self, kind: bytes, version: int, parsed: dict[str, Any], arrived: float) -> None:
        """An event: the push latency of others' moves, and a move when it is this seat's
        turn."""
        to_move: int | None = None
        if kind == b"move":
            sent = self.table.sent.get(version)
            if sent is not None and parsed.get("player") != self.me:
                self.tally.push.append(arrived - sent)
            to_move = parsed.get("toMove")
        elif kind == b"snapshot":
            self.me = parsed.get("you")
            self.ready.set()
            if parsed["status"] == "playing":
                to_move = parsed.get("toMove")
        elif kind == b"started":
            to_move = parsed.get("toMove")
        elif kind == b"over":
            if not self.table.over:
                self.table.over = True
                self.tally.finished += 1
            self._hang_up()
            return
        if to_move is not None and to_move == self.me and not self.stop.is_set():
            # The event carries the mover's legal moves at its version: no GET.
            known = (parsed.get("moves"), parsed.get("version"))
            self.moving = asyncio.create_task(self.move(*known))

    def _hang_up(self) -> None:
        if self.stream is not None:
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
            self.table.sent[version + 1] = time.perf_counter()
            await self._send(body)
        except (BenchError, OSError, ValueError) as exc:
            self.tally.fail(f"move at {self.table.table_id}: {exc!r}")

    async def _send(self, body: dict[str, Any]) -> None:
        """The move, as a POST."""
        path = f"/v1/tables/{self.table.table_id}/moves"
        started = self.table.sent[body["version"] + 1]
        try:
            status, answer = await call(self.rest, "POST", path, body, self.token)
        except OSError:  # a keep-alive connection the service closed while we thought:
            self.rest.close()  # again on a new one (the move id makes it safe)
            self.rest = self.endpoint.connection()
            status, answer = await call(self.rest, "POST", path, body, self.token)
        if status == 200:
            self.tally.post.append(time.perf_counter() - started)
            self.tally.moves += 1
        elif status == 409:
            self.tally.conflicts += 1  # a stale view; the stream brings the next turn
        else:
            self.tally.fail(f"move: HTTP {status} {str(answer)[:200]}")

    async def close(self) -> None:
        """Stop moving first (a move half-sent on a closed connection is no error), then hang
        up."""
        if self.moving is not None:
            self.moving.cancel()
            await asyncio.gather(self.moving, return_exceptions=True)
        self._hang_up()
        self.rest.close()


async def play_tables(
    endpoint: Endpoint,
    tables: int,
    seconds: float,
    seed: int,
    setup: dict[str, Any],
    think: float = 0.0,
    *,
    extra: dict[str, Any] | None = None,
    more: dict[str, str] | None = None,
    pid: int | None = None,
    until: asyncio.Event | None = None,
    person: type[Person] = Person,
    again: bool = False,
) -> dict[str, Any]:
    """``tables`` tables of ``person``s playing for ``seconds`` (or, given ``until``, until it
    is set): each table one game, or with ``again`` a rematch whenever a game ends, so that
    every table stays in play to the end. With the service's ``pid``, also its CPU while they
    played (the set-up of tables, seats and streams left out): ``play_cpu_ms_per_move``."""
    runs = await make_tables(endpoint, tables, setup, extra=extra, more=more)
    tally = Tally()
    stop = asyncio.Event()
    master = random.Random(seed)
    people = [
        person(
            endpoint, run, seat, tally, random.Random(master.getrandbits(64)), stop, think, again
        )
        for run in runs
        for seat in range(SEATS)
    ]
    readers = [asyncio.create_task(p.run()) for p in people]
    await asyncio.gather(*(p.ready.wait() for p in people))
    if tally.errors:
        stop.set()
        raise BenchError(f"streams did not open: {tally.samples}")
    pool = Pool(endpoint, SETUP_CONCURRENCY)
    cpu_used: float | None = None
    with quiet_collector():  # (its one collection before the clock starts)
        started = time.perf_counter()
        cpu_started = process_cpu(pid)
        try:
            starts = [
                lambda r=r: must(pool, "POST", f"/v1/tables/{r.table_id}/start", {}, r.host_token)
                for r in runs
            ]
            await bounded(SETUP_CONCURRENCY, starts)
            with suppress(TimeoutError):
                done = until.wait() if until is not None else asyncio.gather(*readers)
                await asyncio.wait_for(done, max(0.0, seconds))
        finally:
            elapsed = time.perf_counter() - started
            cpu_now = process_cpu(pid)
            if cpu_started is not None and cpu_now is not None:
                cpu_used = cpu_now - cpu_started
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
        "tables_finished": tally.finished,
        "push_latency": latency_summary(tally.push, PERCENTILES),
        "post_latency": latency_summary(tally.post, PERCENTILES),
        "conflicts": tally.conflicts,
        "gets": tally.gets,
        "errors": tally.errors,
        "error_samples": tally.samples,
        "play_cpu_ms_per_move": (
            1000 * cpu_used / tally.moves if cpu_used is not None and tally.moves else None
        ),
    }
