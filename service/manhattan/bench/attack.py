"""``manhattan bench attack``: does the service hold under attack?

It starts ``manhattan serve`` (one uvicorn worker, the embedded cache) on a free loopback port
and measures, in one run:

1. **bots**: the latency of a cheap request (``POST /v1/legal-moves``) idle, then while four
   maximum-budget bot requests run at once (a REST ``suggest`` at the iteration cap, one at the
   iteration and time caps, an ``advance`` with three ismcts moves, and a GraphQL request of
   ``suggestMove`` in every alias it allows), plus one ordinary greedy suggestion sent during
   the attack. Targets: the cheap request's p99 under attack at most 3x its idle p99, and every
   bot request answered (any status) within the bot deadline plus 1 s.
2. **header attack**: requests with large headers; the service's resident memory before and at
   its highest. Target: growth under 50 MB.
3. **cache attack**: distinct ~250 KB GraphQL queries (each a valid query padded with a comment);
   the same memory figures. Target: growth under 50 MB.

Its HTTP client is a few lines over asyncio streams (one connection per request), so the
benchmark needs nothing the service does not. The machine is shared: the figures of one run are
compared with each other, never with another run's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from manhattan.bench import harness
from manhattan.bench.engine import mid_game_state
from manhattan.bench.harness import HarnessError, emit, refused, resident_kib
from manhattan.bench.harness import latency_summary as harness_latency_summary
from manhattan.bots.choice import SERVICE_MAX_ITERATIONS, SERVICE_MAX_TIME_MS
from manhattan.http_client import Connection, Origin, Reply
from manhattan.settings import Settings, SettingsError

RATIO_TARGET = 3.0
RSS_TARGET_MB = 50.0
DEADLINE_SLACK_S = 1.0


class AttackError(RuntimeError):
    """The benchmark cannot run (the service did not start)."""


# -- requests, through the tools' one HTTP client -----------------------------------------------
async def http(
    port: int,
    method: str,
    path: str,
    payload: Any = None,
    *,
    headers: list[tuple[str, str]] | None = None,
    timeout: float = 60.0,
) -> Reply:
    """One request on a fresh loopback connection (``payload`` sent as JSON); a transport
    failure is an ``HttpError`` (an ``OSError``)."""
    body = None if payload is None else json.dumps(payload).encode()
    sent = dict(headers or ())
    if body is not None:
        sent["content-type"] = "application/json"
    connection = Connection(Origin("127.0.0.1", port, tls=False), timeout)
    try:
        return await connection.request(method, path, body, sent)
    finally:
        await connection.aclose()


# -- arithmetic -------------------------------------------------------------------------------
def latency_summary(seconds: list[float]) -> dict[str, float]:
    """``harness.latency_summary`` in the report's camel case, to 0.01 ms."""
    figures = harness_latency_summary(seconds, (0.50, 0.99))
    return {
        "count": figures["count"],
        "p50Ms": round(figures["p50_ms"], 2),
        "p99Ms": round(figures["p99_ms"], 2),
        "maxMs": round(figures["max_ms"], 2),
    }


def ratio(attacked: float, idle: float) -> float:
    return math.inf if idle <= 0 else attacked / idle


@dataclass
class MemoryWatch:
    """The highest resident size of a process, sampled while an attack runs."""

    pid: int
    before: int = 0
    peak: int = 0
    after: int = 0
    samples: int = 0

    async def sample(self, stop: asyncio.Event, interval: float = 0.05) -> None:
        while not stop.is_set():
            self._read()
            with suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)
        self.after = self._read()

    def _read(self) -> int:
        value = (resident_kib(self.pid) or 0) * 1024
        self.samples += 1
        self.peak = max(self.peak, value)
        return value

    @property
    def growth_mb(self) -> float:
        return max(0, max(self.peak, self.after) - self.before) / 1e6


def cache_attack_query(index: int, size: int) -> str:
    """A valid GraphQL query of ``size`` characters, distinct for each ``index``."""
    head = f"query Q{index} {{ __typename }}\n#"
    return head + "x" * max(0, size - len(head))


def header_attack_headers(total: int, each: int = 8_000) -> list[tuple[str, str]]:
    """About ``total`` bytes of request headers, in fields of ``each`` bytes."""
    count = max(1, total // each)
    return [(f"x-pad-{i}", "a" * (each - 10)) for i in range(count)]


def within_deadline(seconds: float, deadline_ms: int) -> bool:
    return seconds <= deadline_ms / 1000 + DEADLINE_SLACK_S


def verdicts(report: dict[str, Any]) -> dict[str, bool]:
    """Each target of the attack bench, met or not, from a report."""
    bots = report["bots"]
    return {
        "cheapP99Ratio": bots["p99Ratio"] <= RATIO_TARGET,
        "botsWithinDeadline": all(r["withinDeadline"] for r in bots["requests"]),
        "headerAttackRss": report["headerAttack"]["rssGrowthMb"] < RSS_TARGET_MB,
        "cacheAttackRss": report["cacheAttack"]["rssGrowthMb"] < RSS_TARGET_MB,
    }


# -- the service ------------------------------------------------------------------------------
def bots_running(ready: Reply) -> bool:
    """``/readyz`` answered and the bot pool has a worker up: the attack may begin."""
    try:
        return ready.status == 200 and ready.json()["bots"]["running"] >= 1
    except (ValueError, KeyError, TypeError):
        return False


@contextmanager
def spawned_service(environment: dict[str, str]) -> Iterator[tuple[int, int]]:
    """``manhattan serve`` on a free loopback port with ``environment`` and the embedded cache;
    yields (port, pid)."""
    settings: dict[str, str | None] = {"MANHATTAN_LOG_LEVEL": "ERROR", **environment}
    settings["REDIS_URL"] = None  # the embedded default
    with harness.spawned_service(settings, name="attack", ready=bots_running, timeout=60) as (
        url,
        pid,
    ):
        yield urlsplit(url).port or 80, pid


# -- the run ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class AttackOptions:
    """The run's options, each a flag with its help line (``harness.add_options``)."""

    idle_seconds: float = harness.option(5.0, "seconds the cheap request is probed idle")
    probe_interval: float = harness.option(0.02, "seconds between two cheap requests")
    header_requests: int = harness.option(200, "requests of the header attack")
    header_bytes: int = harness.option(64_000, "bytes of headers each of them sends")
    cache_queries: int = harness.option(600, "distinct queries of the cache attack")
    query_bytes: int = harness.option(250_000, "bytes of each of those queries")
    concurrency: int = harness.option(8, "requests in flight in the header and cache attacks")


@dataclass
class BotOutcome:
    name: str
    status: int = 0
    seconds: float = 0.0
    answers: list[str] = field(default_factory=list)
    error: str = ""

    def to_json(self, deadline_ms: int) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "ms": round(self.seconds * 1000),
            "answers": {a: self.answers.count(a) for a in sorted(set(self.answers))},
            "withinDeadline": self.status != 0 and within_deadline(self.seconds, deadline_ms),
            **({"error": self.error} if self.error else {}),
        }


def answer_kinds(body: Any) -> list[str]:
    """What each suggestion in a REST or GraphQL answer came to: its ``stats.stoppedBy``
    (``deadline``, ``iterations``, ...) or the code it was refused with (``BOTS_BUSY``)."""
    found: list[str] = []
    if isinstance(body, dict):
        stats = body.get("stats")
        if isinstance(stats, dict) and "stoppedBy" in stats:
            return [str(stats["stoppedBy"])]
        if isinstance(body.get("code"), str):
            return [body["code"]]
        for value in body.values():
            found += answer_kinds(value)
    elif isinstance(body, list):
        for value in body:
            found += answer_kinds(value)
    return found


async def _timed_bot(name: str, send: Callable[[], Awaitable[Reply]]) -> BotOutcome:
    outcome = BotOutcome(name)
    start = time.monotonic()
    try:
        reply = await send()
        outcome.status = reply.status
        with suppress(ValueError):
            outcome.answers = answer_kinds(reply.json())
    except (OSError, TimeoutError, ValueError) as exc:
        outcome.error = f"{type(exc).__name__}: {exc}"
    outcome.seconds = time.monotonic() - start
    return outcome


async def _probe(port: int, state: Any, stop: asyncio.Event, interval: float) -> list[float]:
    latencies: list[float] = []
    while not stop.is_set():
        start = time.perf_counter()
        reply = await http(port, "POST", "/v1/legal-moves", {"state": state}, timeout=30)
        if reply.status != 200:
            raise AttackError(f"the cheap request failed with {reply.status}")
        latencies.append(time.perf_counter() - start)
        await asyncio.sleep(interval)
    return latencies


async def bots_phase(port: int, settings: Settings, options: AttackOptions) -> dict[str, Any]:

    state = mid_game_state()
    mover = state.to_move or 0
    players = state.rules.players
    doc = state.to_json()
    iterations = settings.bot_max_iterations or SERVICE_MAX_ITERATIONS
    await http(port, "POST", "/v1/suggest", {"state": doc, "bot": "greedy"})  # warm
    stop = asyncio.Event()
    idle_probe = asyncio.ensure_future(_probe(port, doc, stop, options.probe_interval))
    await asyncio.sleep(options.idle_seconds)
    stop.set()
    idle = await idle_probe

    aliases = " ".join(
        f"a{i}: suggestMove(state: {{json: $s}}, "
        f"bot: {{level: ismcts, iterations: {iterations}, seed: {i}}}) "
        f"{{ ... on Suggestion {{ stats }} ... on MoveRejected {{ code }} }}"
        for i in range(settings.graphql_max_aliases)
    )
    graphql = {"query": f"query($s: JSON!) {{ {aliases} }}", "variables": {"s": doc}}
    advance = {
        "state": doc,
        "player": (mover + players - 1) % players,  # three bot moves before this seat's turn
        "bot": {"level": "ismcts", "iterations": iterations},
    }
    suggest = {"state": doc, "bot": "ismcts", "iterations": iterations, "seed": 1}
    timed = {**suggest, "seed": 2, "timeMs": settings.bot_max_time_ms or SERVICE_MAX_TIME_MS}
    requests = {
        "suggest": lambda: http(port, "POST", "/v1/suggest", suggest),
        "suggest-timeMs": lambda: http(port, "POST", "/v1/suggest", timed),
        "advance": lambda: http(port, "POST", "/v1/advance", advance),
        "graphql-aliases": lambda: http(port, "POST", "/graphql", graphql),
    }
    stop = asyncio.Event()
    attack_probe = asyncio.ensure_future(_probe(port, doc, stop, options.probe_interval))
    attackers = [asyncio.ensure_future(_timed_bot(n, send)) for n, send in requests.items()]
    await asyncio.sleep(0.5)
    greedy = await _timed_bot(
        "greedy-during-attack",
        lambda: http(port, "POST", "/v1/suggest", {"state": doc, "bot": "greedy", "seed": 3}),
    )
    outcomes = await asyncio.gather(*attackers)
    stop.set()
    attacked = await attack_probe
    idle_summary, attack_summary = latency_summary(idle), latency_summary(attacked)
    deadline_ms = settings.bot_deadline_ms
    return {
        "cheapRequest": "POST /v1/legal-moves",
        "idle": idle_summary,
        "underAttack": attack_summary,
        "p99Ratio": round(ratio(attack_summary["p99Ms"], idle_summary["p99Ms"]), 2),
        "p50Ratio": round(ratio(attack_summary["p50Ms"], idle_summary["p50Ms"]), 2),
        "deadlineMs": deadline_ms,
        "requests": [o.to_json(deadline_ms) for o in outcomes],
        "greedyDuringAttack": greedy.to_json(deadline_ms),
    }


async def _flood(
    pid: int, count: int, concurrency: int, send: Callable[[int], Awaitable[Reply]]
) -> dict[str, Any]:
    watch = MemoryWatch(pid)
    watch.before = (resident_kib(pid) or 0) * 1024
    statuses: dict[str, int] = {}
    stop = asyncio.Event()
    sampler = asyncio.ensure_future(watch.sample(stop))
    queue = iter(range(count))

    async def worker() -> None:
        for index in queue:
            try:
                status = str((await send(index)).status)
            except (OSError, TimeoutError, ValueError) as exc:
                status = type(exc).__name__
            statuses[status] = statuses.get(status, 0) + 1

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    await asyncio.sleep(0.5)  # what the service keeps, not only what it held in flight
    stop.set()
    await sampler
    return {
        "requests": count,
        "statuses": dict(sorted(statuses.items())),
        "rssBeforeMb": round(watch.before / 1e6, 1),
        "rssPeakMb": round(watch.peak / 1e6, 1),
        "rssAfterMb": round(watch.after / 1e6, 1),
        "rssGrowthMb": round(watch.growth_mb, 1),
    }


async def header_phase(port: int, pid: int, options: AttackOptions) -> dict[str, Any]:
    headers = header_attack_headers(options.header_bytes)
    result = await _flood(
        pid,
        options.header_requests,
        options.concurrency,
        lambda i: http(port, "GET", f"/healthz?n={i}", headers=headers, timeout=30),
    )
    return {"headerBytes": sum(len(n) + len(v) + 4 for n, v in headers), **result}


async def cache_phase(port: int, pid: int, options: AttackOptions) -> dict[str, Any]:
    def send(index: int) -> Awaitable[Reply]:
        query = cache_attack_query(index, options.query_bytes)
        return http(port, "POST", "/graphql", {"query": query}, timeout=30)

    result = await _flood(pid, options.cache_queries, options.concurrency, send)
    return {"queryBytes": options.query_bytes, **result}


def attack(options: AttackOptions, environment: dict[str, str]) -> dict[str, Any]:
    """The whole benchmark against a service it starts; the report (see ``print_report``)."""
    settings = Settings.from_env({**os.environ, **environment})
    with spawned_service(environment) as (port, pid):

        async def phases() -> dict[str, Any]:
            report: dict[str, Any] = {"bots": await bots_phase(port, settings, options)}
            report["headerAttack"] = await header_phase(port, pid, options)
            report["cacheAttack"] = await cache_phase(port, pid, options)
            ready = await http(port, "GET", "/readyz")
            report["pool"] = ready.json().get("bots")
            return report

        report = asyncio.run(phases())
    report["machine"] = {
        "cpus": os.cpu_count(),
        "loadAverage1m": round(os.getloadavg()[0], 2),
        "note": "a shared machine: compare figures within this run only",
    }
    report["verdicts"] = verdicts(report)
    return report


def print_report(report: dict[str, Any]) -> None:
    bots = report["bots"]

    def mark(ok: bool) -> str:
        return "PASS" if ok else "FAIL"

    ok = report["verdicts"]
    idle, hit = bots["idle"], bots["underAttack"]
    print(f"cheap request {bots['cheapRequest']}: {idle['count']} idle, {hit['count']} attacked")
    print(f"  idle          p50 {idle['p50Ms']:8.2f} ms  p99 {idle['p99Ms']:8.2f} ms")
    print(f"  under attack  p50 {hit['p50Ms']:8.2f} ms  p99 {hit['p99Ms']:8.2f} ms")
    print(
        f"  p99 ratio {bots['p99Ratio']:.2f} (target <= {RATIO_TARGET:g})"
        f"  {mark(ok['cheapP99Ratio'])};  p50 ratio {bots['p50Ratio']:.2f}"
    )
    limit = bots["deadlineMs"] + DEADLINE_SLACK_S * 1000
    print(f"bot requests (deadline {bots['deadlineMs']} ms; answered within {limit:.0f} ms):")
    for r in [*bots["requests"], bots["greedyDuringAttack"]]:
        answers = ", ".join(f"{k} x{n}" for k, n in r["answers"].items()) or "-"
        print(
            f"  {r['name']:<22} {r['status']:>3}  {r['ms']:>6} ms  {answers:<28}"
            f" {mark(r['withinDeadline'])}{'  ' + r['error'] if 'error' in r else ''}"
        )
    for key, label in (("headerAttack", "header attack"), ("cacheAttack", "cache attack")):
        part = report[key]
        size = part.get("headerBytes", part.get("queryBytes"))
        verdict = ok["headerAttackRss" if key == "headerAttack" else "cacheAttackRss"]
        print(
            f"{label}: {part['requests']} requests of ~{size} bytes; statuses {part['statuses']};"
            f" service RSS {part['rssBeforeMb']} -> peak {part['rssPeakMb']} -> "
            f"{part['rssAfterMb']} MB, growth {part['rssGrowthMb']} MB "
            f"(target < {RSS_TARGET_MB:g})  {mark(verdict)}"
        )
    machine = report["machine"]
    print(
        f"machine: {machine['cpus']} CPUs, system load (1 min) {machine['loadAverage1m']} "
        f"({machine['note']})"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = harness.bench_parser("manhattan bench attack", __doc__)
    harness.add_options(parser, AttackOptions)  # --idle-seconds, ..., --concurrency
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting for the service (repeatable), e.g. MANHATTAN_BOT_DEADLINE_MS=2000",
    )
    return parser


def run(argv: list[str]) -> int:
    """``manhattan bench attack``: 0 when every target is met, 1 otherwise, 2 on bad input."""
    args = build_parser().parse_args(argv)
    environment: dict[str, str] = {}
    for item in args.env:
        name, equals, value = item.partition("=")
        if not equals or not name:
            return refused(f"--env takes NAME=VALUE, not {item!r}")
        environment[name] = value
    numbers = (args.idle_seconds, args.header_requests, args.cache_queries, args.concurrency)
    if min(numbers) <= 0 or args.probe_interval < 0:
        return refused("counts and --idle-seconds must be positive")
    options = harness.options_from(args, AttackOptions)
    try:
        report = attack(options, environment)
    except (AttackError, HarnessError, SettingsError) as exc:
        return refused(str(exc))
    emit(report, args.json, print_report)
    return 0 if all(report["verdicts"].values()) else 1


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
