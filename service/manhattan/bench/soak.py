"""``manhattan bench soak``: many simulated games against a running service, bounded in time and
in requests, on loopback only.

Each simulated game creates a game, then loops: ask for the legal moves, apply one chosen at
random, and now and then score, view, validate, preview, analyse or ask a bot. The state travels
the three ways a client can send it (inline JSON, a sealed token, a cached id) and the calls mix
REST JSON, REST msgpack and GraphQL. When a game ends a new one starts, until the time or
request budget is spent.

Reported: throughput, latency percentiles (p50/p99/p999, overall and per operation), errors
(any non-2xx answer, timeout or transport failure; the goal is zero) and the resident memory of
the service process over the run (after a warm-up, so first-use allocations do not count as
growth).

Requests go through ``manhattan.http_client`` (the tools' one HTTP client, standard library
only), so the soak runs on a plain install.

Without ``--url`` the soak starts its own ``manhattan serve`` on a free loopback port (with
``REDIS_URL`` from ``--redis-url`` or the environment) and stops it afterwards; with ``--url``
it drives a service that is already running, and ``--pid`` names its process for the memory
figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import msgpack

from manhattan.bench.harness import (
    add_options,
    add_service_arguments,
    bench_parser,
    latency_summary,
    latency_text,
    option,
    options_from,
    process_cpu,
    refused,
    report_on_service,
    resident_kib,
)
from manhattan.http_client import Connection, HttpError, Origin

#: Relative weights of the optional operations tried after each legal-moves call.
SIDE_OPERATIONS = {
    "score": 6,
    "view": 4,
    "validate": 4,
    "preview": 3,
    "analysis": 2,
    "suggest": 2,
    "graphql-legal-moves": 8,
    "state-by-id": 3,
}
SIDE_OPERATION_RATE = 0.5
#: The latency percentiles reported.
PERCENTILES = (0.50, 0.99, 0.999)
GRAPHQL_LEGAL_MOVES = "query($s: StateRef!) { legalMoves(state: $s) { notation } }"


# -- measurement ------------------------------------------------------------------------------
@dataclass
class Tally:
    """Latencies and failures, per operation."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)
    requests: int = 0
    games_finished: int = 0

    def record(self, operation: str, seconds: float) -> None:
        self.latencies.setdefault(operation, []).append(seconds)

    def fail(self, operation: str, detail: str) -> None:
        self.errors[operation] = self.errors.get(operation, 0) + 1
        if len(self.error_samples) < 10:
            self.error_samples.append(f"{operation}: {detail[:200]}")


@dataclass
class MemoryWatch:
    pid: int | None
    samples: list[tuple[float, int]] = field(default_factory=list)

    async def run(self, stop: asyncio.Event, interval: float = 0.5) -> None:
        if self.pid is None:
            return
        started = time.monotonic()
        while not stop.is_set():
            kib = resident_kib(self.pid)
            if kib is not None:
                self.samples.append((time.monotonic() - started, kib))
            with suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)

    def summary(self, warmup_seconds: float) -> dict[str, Any]:
        if not self.samples:
            return {"available": False}
        after_warmup = [kib for t, kib in self.samples if t >= warmup_seconds] or [
            self.samples[-1][1]
        ]
        baseline, final = after_warmup[0], self.samples[-1][1]
        return {
            "available": True,
            "start_mib": self.samples[0][1] / 1024,
            "after_warmup_mib": baseline / 1024,
            "end_mib": final / 1024,
            "peak_mib": max(kib for _, kib in self.samples) / 1024,
            "growth_mib": (final - baseline) / 1024,
            "growth_percent": 100.0 * (final - baseline) / baseline if baseline else 0.0,
            # At most 40 points, evenly spaced: enough to tell a plateau from a leak.
            "timeline_mib": [
                [round(t, 1), round(kib / 1024, 1)]
                for t, kib in self.samples[:: max(1, len(self.samples) // 40)]
            ],
        }


# -- one simulated game -----------------------------------------------------------------------
@dataclass
class GameState:
    """What a client keeps between calls: the last state in the three forms it may send."""

    state: dict[str, Any]
    token: str
    state_id: str

    @classmethod
    def from_result(cls, body: dict[str, Any]) -> GameState:
        return cls(body["state"], body["token"], body["stateId"])

    def reference(self, rng: random.Random) -> Any:
        form = rng.choice(("json", "json", "token", "id"))
        if form == "token":
            return {"token": self.token}
        if form == "id":
            return {"id": self.state_id}
        return self.state


class Budget:
    """Stops every game when the time is up or the request count is reached."""

    def __init__(self, seconds: float, max_requests: int) -> None:
        self.deadline = time.monotonic() + seconds
        self.max_requests = max_requests
        self.issued = 0

    @property
    def exhausted(self) -> bool:
        return self.issued >= self.max_requests or time.monotonic() >= self.deadline

    def take(self) -> bool:
        if self.exhausted:
            return False
        self.issued += 1
        return True


class Player:
    """One simulated client playing games back to back over its own connection."""

    def __init__(
        self, connection: Connection, tally: Tally, budget: Budget, rng: random.Random
    ) -> None:
        self.connection = connection
        self.tally = tally
        self.budget = budget
        self.rng = rng

    async def call(
        self,
        operation: str,
        method: str,
        path: str,
        body: Any = None,
        *,
        msgpack_body: bool = False,
    ) -> dict[str, Any] | None:
        """One request; None when the budget is spent or the request failed (counted)."""
        if not self.budget.take():
            return None
        headers: dict[str, str] = {}
        content: bytes | None = None
        if body is not None:
            if msgpack_body:
                content = msgpack.packb(body, use_bin_type=True)
                headers = {"content-type": "application/msgpack", "accept": "application/msgpack"}
            else:
                content = json.dumps(body, separators=(",", ":")).encode()
                headers = {"content-type": "application/json"}
        started = time.perf_counter()
        try:
            reply = await self.connection.request(method, path, content, headers)
        except HttpError as exc:
            self.tally.requests += 1
            self.tally.fail(operation, str(exc))
            return None
        elapsed = time.perf_counter() - started
        self.tally.requests += 1
        self.tally.record(operation, elapsed)
        if not 200 <= reply.status < 300:
            self.tally.fail(operation, f"HTTP {reply.status}: {reply.body[:200]!r}")
            return None
        try:
            if reply.content_type.startswith("application/msgpack"):
                decoded: dict[str, Any] = msgpack.unpackb(reply.body, raw=False)
            else:
                decoded = json.loads(reply.body)
        except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
            detail = f"undecodable {reply.content_type} body {reply.body[:60]!r}: {exc}"
            self.tally.fail(operation, detail)
            return None
        if operation.startswith("graphql") and decoded.get("errors"):
            self.tally.fail(operation, json.dumps(decoded["errors"])[:200])
            return None
        return decoded

    async def play_games(self) -> None:
        while True:
            setup = {"players": self.rng.choice((2, 3, 4)), "seed": f"{self.rng.getrandbits(48):x}"}
            created = await self.call("new-game", "POST", "/v1/games", setup)
            if created is not None:
                await self.play(GameState.from_result(created))
            if self.budget.exhausted:
                return

    async def play(self, game: GameState) -> None:
        """Play one game until it ends, a call fails (counted) or the budget runs out."""
        while game.state["phase"] != "over":
            use_msgpack = self.rng.random() < 0.25
            listed = await self.call(
                "legal-moves",
                "POST",
                "/v1/legal-moves",
                {"state": game.reference(self.rng)},
                msgpack_body=use_msgpack,
            )
            if listed is None:
                return
            move = self.rng.choice(listed["moves"])
            if self.rng.random() < SIDE_OPERATION_RATE:
                await self.side_operation(game, move)
            applied = await self.call(
                "apply",
                "POST",
                "/v1/apply",
                {"state": game.reference(self.rng), "move": move},
                msgpack_body=use_msgpack,
            )
            if applied is None:
                return
            game = GameState.from_result(applied)
        self.tally.games_finished += 1

    async def side_operation(self, game: GameState, move: dict[str, Any]) -> None:
        names, weights = zip(*SIDE_OPERATIONS.items(), strict=True)
        operation = self.rng.choices(names, weights)[0]
        ref = game.reference(self.rng)
        players = game.state["rules"]["players"]
        body: dict[str, Any]
        if operation == "graphql-legal-moves":
            by_reference = ref is not game.state  # {"id": ...} or {"token": ...}
            gql_ref = ref if by_reference else {"json": ref}
            body = {"query": GRAPHQL_LEGAL_MOVES, "variables": {"s": gql_ref}}
            await self.call(operation, "POST", "/graphql", body)
        elif operation == "state-by-id":
            await self.call(operation, "GET", f"/v1/states/{game.state_id}")
        elif operation == "view":
            body = {"state": ref, "player": self.rng.randrange(players)}
            await self.call(operation, "POST", "/v1/view", body)
        elif operation == "suggest":
            await self.call(operation, "POST", "/v1/suggest", {"state": ref, "bot": "random"})
        elif operation in ("validate", "preview"):
            await self.call(operation, "POST", f"/v1/{operation}", {"state": ref, "move": move})
        else:
            await self.call(operation, "POST", f"/v1/{operation}", {"state": ref})


# -- the run ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SoakOptions:
    """The run's options, each a flag (``add_options``)."""

    seconds: float = option(30.0, "time budget (default 30)")
    max_requests: int = option(200_000, "request budget (default 200000)")
    games: int = option(32, "concurrent simulated games")
    seed: int = option(1, "seed for the simulated players")
    warmup: float | None = option(None, "seconds before the RSS baseline")
    timeout: float = option(10.0, "per-request timeout, s")

    @property
    def warmup_seconds(self) -> float:
        """``warmup``; by default a fifth of the run, 5 s at most."""
        return self.warmup if self.warmup is not None else min(5.0, self.seconds / 5)


async def soak(url: str, pid: int | None, options: SoakOptions) -> dict[str, Any]:
    load_at_start = os.getloadavg()[0]
    cpu_at_start = process_cpu(pid)
    tally = Tally()
    watch = MemoryWatch(pid)
    stop = asyncio.Event()
    master = random.Random(options.seed)
    origin = Origin.parse(url)
    budget = Budget(options.seconds, options.max_requests)
    players = [
        Player(
            Connection(origin, options.timeout),
            tally,
            budget,
            random.Random(master.getrandbits(64)),
        )
        for _ in range(options.games)
    ]
    watcher = asyncio.create_task(watch.run(stop))
    started = time.perf_counter()
    try:
        await asyncio.gather(*(p.play_games() for p in players))
    finally:
        await asyncio.gather(*(player.connection.aclose() for player in players))
    elapsed = time.perf_counter() - started
    cpu_at_end = process_cpu(pid)
    stop.set()
    await watcher
    everything = [s for values in tally.latencies.values() for s in values]
    return {
        "url": url,
        "load_average_1m": {"start": load_at_start, "end": os.getloadavg()[0]},
        "seconds": elapsed,
        "requests": tally.requests,
        "throughput_per_s": tally.requests / elapsed if elapsed else 0.0,
        "games_simulated": options.games,
        "games_finished": tally.games_finished,
        "errors": sum(tally.errors.values()),
        "errors_by_operation": dict(tally.errors),
        "error_samples": tally.error_samples,
        "latency": latency_summary(everything, PERCENTILES),
        "latency_by_operation": {
            name: latency_summary(values, PERCENTILES)
            for name, values in sorted(tally.latencies.items())
        },
        "memory": watch.summary(options.warmup_seconds),
        "service_cpu": service_cpu(cpu_at_start, cpu_at_end, elapsed, tally.requests),
    }


def service_cpu(
    start: float | None, end: float | None, elapsed: float, requests: int
) -> dict[str, Any]:
    """The service's CPU use over the run: a figure that a busy shared machine distorts far
    less than throughput does."""
    if start is None or end is None or not requests:
        return {"available": False}
    used = end - start
    return {
        "available": True,
        "seconds": used,
        "share_of_one_core": used / elapsed if elapsed else 0.0,
        "ms_per_request": 1000 * used / requests,
        "capacity_per_core_s": requests / used if used else 0.0,
    }


def print_report(report: dict[str, Any]) -> None:
    overall = latency_text(report["latency"], "p50", "p99", "p999", "max", digits=2, sep="   ")
    print(f"soak against {report['url']}: {report['seconds']:.1f} s, {report['requests']} requests")
    print(f"  throughput {report['throughput_per_s']:.0f} req/s   {overall}")
    print(
        f"  games: {report['games_simulated']} concurrent, {report['games_finished']} finished   "
        f"errors: {report['errors']}   "
        f"system load (1 min) {report['load_average_1m']['start']:.1f} -> "
        f"{report['load_average_1m']['end']:.1f} on {os.cpu_count()} cores"
    )
    for sample in report["error_samples"]:
        print(f"    {sample}")
    print(f"  {'operation':<22}{'count':>8}{'p50 ms':>9}{'p99 ms':>9}{'p999 ms':>9}")
    for name, figures in report["latency_by_operation"].items():
        print(
            f"  {name:<22}{figures['count']:>8}{figures['p50_ms']:>9.2f}"
            f"{figures['p99_ms']:>9.2f}{figures['p999_ms']:>9.2f}"
        )
    memory = report["memory"]
    if memory["available"]:
        print(
            f"  service RSS: {memory['after_warmup_mib']:.1f} MiB after warm-up -> "
            f"{memory['end_mib']:.1f} MiB at the end (peak {memory['peak_mib']:.1f}), "
            f"growth {memory['growth_mib']:+.1f} MiB ({memory['growth_percent']:+.1f} %)"
        )
    else:
        print("  service RSS: not measured (give --pid of the service process, Linux only)")
    cpu = report["service_cpu"]
    if cpu["available"]:
        print(
            f"  service CPU: {cpu['seconds']:.1f} s ({cpu['share_of_one_core']:.0%} of one core), "
            f"{cpu['ms_per_request']:.2f} ms per request, so about "
            f"{cpu['capacity_per_core_s']:.0f} req/s per fully used core for this mix"
        )


def build_parser() -> argparse.ArgumentParser:
    parser = bench_parser("manhattan bench soak", __doc__)
    add_service_arguments(parser)
    add_options(parser, SoakOptions)
    return parser


def run(argv: list[str]) -> int:
    """Entry point for ``manhattan bench soak``; 0 when no request failed, 1 otherwise."""
    args = build_parser().parse_args(argv)
    if args.seconds <= 0 or args.max_requests <= 0 or args.games <= 0:
        return refused("--seconds, --max-requests and --games must be positive")
    options = options_from(args, SoakOptions)
    report = report_on_service(args, "soak", lambda url, pid: soak(url, pid, options), print_report)
    if report is None:
        return 2
    return 0 if report["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
