"""``manhattan bench tables``: many people at many tables (DESIGN §9), each with a live stream.

Starts the service (``manhattan serve``: one uvicorn worker, embedded store unless
``--redis-url``) on a free loopback port, or drives one already running on loopback (``--url``,
with ``--pid`` for its memory and CPU), and runs, in one process and in this order:

1. **stateless** (``--stateless-seconds``): as many players as there are tables play random
   4-player games the stateless way, each move one ``POST /v1/legal-moves`` and one
   ``POST /v1/apply`` on the sealed token (the two requests per move a table player made
   before its events carried its legal moves).
2. **tables** (``--seconds``): ``--tables`` tables of four people, one game each (the phase
   ends with the last; with ``--rematch``, a table whose game ends plays its rematch, every
   seat asking for it and the last to take a seat starting it, until ``--seconds``). Every
   person joins, holds the table's socket open (``--transport socket``, ``table_sockets.py``;
   or with ``http`` its SSE stream) and, when an event says it is their turn, plays one of the
   legal moves that event carries for them at random (a ``move`` message on the socket, or
   ``POST .../moves``, with the event's version and a move id; a ``GET /v1/tables/{id}`` only
   when an event carries no moves; the report counts them). The move's **push latency** is the
   time from just before it is sent to its arrival on each of the other three seats'
   connections.
3. **stateless** again, so the comparison does not depend on the order; its rate is the mean of
   both.
4. **idle streams** (``--idle-streams``), in a fresh service process of their own
   (``table_crowds``; with ``--url``, in that service): that many seats (four per table) open
   their streams and stay silent for ``--idle-hold`` seconds; the service's resident memory is
   read before the streams open (tables created and joined), after the hold and after they
   closed.
5. **spectators** (``--spectators N``, ``table_crowds``), in a fresh service process too: N
   SSE streams on one public table playing about ``--spectator-rate`` moves a second, beside
   ``--tables`` tables playing at ``--spectator-think`` seconds a move.
6. **live tables** (``--live N``, ``bench/tables_scale.py``): table GETs and moves with a few
   live tables, then with N more (half on a running clock), same run.
6. **lobby** (``--lobby N``, ``bench/tables_lobby.py``): N public waiting tables, then lobby
   pages against ``/healthz`` in the same run. ``--tables 0 --lobby N`` runs this phase alone.

``--baseline DIR`` runs none of these: the tables phase on this tree's service and on one from
``DIR`` at the same time, ``--runs`` times, and their ratios (``tables_versus``); with
``--redis-url``, both on that Redis, each on a database of its own.

``--skip-play`` leaves out phases 1-3. Reported against the issues' targets: push latency p99 <
50 ms, table moves per second at least 0.7x the stateless moves per second, at most 1.2 ms of
service CPU per table move, at most 100 MiB of RSS growth for 2,000 idle streams and at most
16 KiB per idle stream; the spectators' targets are in ``table_crowds``.
The simulated people speak HTTP/1.1 through the tools' one client, ``http_client`` (asyncio
streams, no client library: its CPU would be the bottleneck on a small machine, and this process
shares the machine with the service), and read their streams with ``sse_reader``.
"""

import argparse
import asyncio
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from manhattan.bench.charts import tables_chart
from manhattan.bench.harness import (
    HarnessError,
    add_options,
    add_service_arguments,
    bench_parser,
    emit,
    option,
    options_from,
    refused,
    report_on_service,
)
from manhattan.bench.table_crowds import fresh_idle, fresh_service, spectators_phase
from manhattan.bench.table_idle import idle_streams
from manhattan.bench.table_people import (
    BenchError,
    Endpoint,
    Person,
    play_tables,
    stateless,
)
from manhattan.bench.table_report import TARGETS, cpu_ratio, measured, print_report, ratio, verdicts
from manhattan.bench.table_sockets import SocketPerson
from manhattan.bench.tables_lobby import lobby_phase, print_lobby
from manhattan.bench.tables_scale import live_phase
from manhattan.bench.tables_versus import Workload, print_versus, versus
from manhattan.bench.tables_webhooks import ENVIRONMENT, print_webhooks_report, webhooks_bench

#: The started service's limit on open streams per client address (all of them are loopback).
STREAMS_PER_CLIENT = 1_000_000


# -- the run ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """The run's options: each field with a default is a flag (``add_options``)."""

    tables: int = option(200, "concurrent 4-seat tables")
    seconds: float = option(20.0, "time at the tables")
    rematch: bool = option(
        False,
        "a table whose game ends plays its rematch, so every table plays for --seconds (by "
        "default each plays one game, and the phase ends with the last)",
    )
    stateless_seconds: float = option(10.0, "each stateless phase")
    idle_streams: int = option(2000, "0 skips the idle phase")
    idle_hold: float = option(16.0, "seconds streams stay idle")
    rounds: int | None = option(None, "rounds per game (default: the rules')")
    seed: int = option(1)
    think: float = option(
        0.0,
        "also play the tables again with people taking this many seconds a move (0.5-1.5x), "
        "and judge the push latency there",
    )
    live: int = option(
        0, "also measure table GETs and moves with this many more live tables (0: skip)"
    )
    live_seconds: float = option(5.0, "each --live and --lobby probe")
    lobby: int = option(
        0,
        "also measure lobby pages against /healthz with this many public waiting tables "
        "(with --tables 0: only this)",
    )
    spectators: int = option(
        0,
        "also hold this many SSE streams on one public table beside --tables playing tables, "
        "in a fresh service (0: skip)",
    )
    spectator_think: float = option(2.0, "seconds a move at --tables then")
    spectator_rate: float = option(10.0, "moves a second at the public table")
    skip_play: bool = option(False, "leave out the stateless and tables phases")
    transport: str = option(
        "socket",
        "how people play in the tables phases: socket (events and moves on the table's "
        "websocket) or http (the SSE stream and a POST a move)",
    )
    baseline: str | None = option(
        None,
        "instead: the tables phase on this tree's service and on one from DIR (another "
        "checkout's service folder) at the same time, --runs times (bench/tables_versus.py)",
    )
    runs: int = option(3, "runs with --baseline")
    #: Phases with many streams run in a service process of their own (False with --url).
    fresh: bool
    redis_url: str | None

    @property
    def person(self) -> type[Person]:
        return SocketPerson if self.transport == "socket" else Person


async def bench(url: str, pid: int | None, options: Options) -> dict[str, Any]:
    address = urlsplit(url)
    endpoint = Endpoint(address.hostname or "127.0.0.1", address.port or 80)
    load_at_start = os.getloadavg()[0]
    report: dict[str, Any] = {"url": url, "cores": os.cpu_count(), "errors": 0}
    if options.tables == 0:  # --lobby alone
        report["lobby"] = await lobby_phase(endpoint, pid, options.lobby, options.live_seconds)
        return report
    if not options.skip_play:
        report.update(await _play(endpoint, pid, options))
    report["idle"] = await _idle(endpoint, pid, options) if options.idle_streams else {}
    report["spectators"] = await _spectators(endpoint, pid, options) if options.spectators else None
    if report["spectators"] is not None:
        report["errors"] += report["spectators"]["errors"]
    report["live"] = await _live_phase(endpoint, pid, options) if options.live else None
    report["lobby"] = (
        await lobby_phase(endpoint, pid, options.lobby, options.live_seconds)
        if options.lobby
        else None
    )
    report["load_average_1m"] = {"start": load_at_start, "end": os.getloadavg()[0]}
    report["targets"] = TARGETS
    report["verdicts"] = verdicts(report)
    return report


async def _play(endpoint: Endpoint, pid: int | None, options: Options) -> dict[str, Any]:
    """Phases 1-3 (and the paced tables with --think)."""
    setup: dict[str, Any] = {} if options.rounds is None else {"rounds": options.rounds}
    seconds = options.stateless_seconds
    first = await measured(pid, stateless(endpoint, options.tables, seconds, options.seed))
    played = await measured(
        pid,
        play_tables(
            endpoint,
            options.tables,
            options.seconds,
            options.seed + 1,
            setup,
            pid=pid,
            person=options.person,
            again=options.rematch,
        ),
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
                person=options.person,
                again=options.rematch,
            ),
        )
        if options.think
        else None
    )
    stateless_rate = (first["moves_per_s"] + second["moves_per_s"]) / 2
    return {
        "stateless": [first, second],
        "stateless_moves_per_s": stateless_rate,
        "tables": played,
        "tables_paced": paced,
        "moves_vs_stateless": ratio(played["moves_per_s"], stateless_rate),
        "moves_per_cpu_vs_stateless": cpu_ratio(played, [first, second]),
        "errors": first["errors"] + played["errors"] + second["errors"],
    }


async def _idle(endpoint: Endpoint, pid: int | None, options: Options) -> dict[str, Any]:
    if options.fresh:
        return await fresh_idle(options.redis_url, options.idle_streams, options.idle_hold)
    found = await idle_streams(endpoint, pid, options.idle_streams, options.idle_hold)
    found["fresh_process"] = False
    return found


async def _spectators(endpoint: Endpoint, pid: int | None, options: Options) -> dict[str, Any]:
    async def phase(where: Endpoint, process: int | None) -> dict[str, Any]:
        return await spectators_phase(
            where,
            process,
            options.spectators,
            options.tables,
            think=options.spectator_think,
            rate=options.spectator_rate,
            seed=options.seed + 5,
        )

    if not options.fresh:
        return await phase(endpoint, pid)
    async with fresh_service(options.redis_url, "bench-spectators") as (fresh, process):
        found = await phase(fresh, process)
    found["fresh_process"] = True
    return found


async def _live_phase(endpoint: Endpoint, pid: int | None, options: Options) -> dict[str, Any]:
    return await live_phase(endpoint, pid, options.live, options.live_seconds)


def build_parser() -> argparse.ArgumentParser:
    parser = bench_parser("manhattan bench tables", __doc__)
    add_options(parser, Options)
    add_service_arguments(parser)
    parser.add_argument(
        "--webhooks",
        action="store_true",
        help="instead: moves/s with a webhook on every table against without, and the "
        "delivery latency (bench/tables_webhooks.py; the receiver runs in the bench)",
    )
    parser.add_argument(
        "--svg", metavar="PATH", help="also draw the moves a second and push latencies as SVG"
    )
    return parser


def run_webhooks(args: argparse.Namespace) -> int:
    """``--webhooks``: the service started with a platform key and loopback webhooks allowed."""
    for variable, value in ENVIRONMENT.items():
        os.environ.setdefault(variable, value)
    setup: dict[str, Any] = {} if args.rounds is None else {"rounds": args.rounds}

    async def measure(url: str, pid: int | None) -> dict[str, Any]:
        address = urlsplit(url)
        endpoint = Endpoint(address.hostname or "127.0.0.1", address.port or 80)
        return await webhooks_bench(endpoint, pid, args.tables, args.seconds, args.seed, setup)

    report = report_on_service(
        args, "tables-webhooks", measure, print_webhooks_report, errors=(BenchError,)
    )
    if report is None:
        return 2
    return 0 if report["errors"] == 0 else 1


def run_versus(args: argparse.Namespace) -> int:
    """``--baseline DIR``: both services started here, embedded store each (or, with
    ``--redis-url``, each on a database of its own of that Redis)."""
    baseline = Path(args.baseline).resolve()
    if args.url:
        return refused("--baseline starts both services itself: no --url")
    if not (baseline / "manhattan").is_dir() or args.runs < 1:
        return refused(f"--baseline: no 'manhattan' package in {baseline} (or --runs < 1)")
    try:
        work = Workload(
            args.tables, args.seconds, args.seed, args.rounds, args.transport, args.redis_url
        )
        report = asyncio.run(versus(baseline, work, args.runs))
    except (HarnessError, BenchError) as exc:
        return refused(str(exc))
    emit(report, args.json, print_versus)
    return 0 if report["errors"] == 0 else 1


def run(argv: list[str]) -> int:
    """Entry point of ``manhattan bench tables``: 0 when the run had no errors."""
    args = build_parser().parse_args(argv)
    if args.tables < 0 or (args.tables == 0 and args.lobby <= 0):
        return refused("--tables is positive (or 0 with --lobby N: the lobby alone)")
    if args.seconds <= 0 or args.stateless_seconds <= 0:
        return refused("--seconds and --stateless-seconds are positive")
    if args.idle_streams < 0 or args.idle_hold < 0 or args.spectators < 0:
        return refused("--idle-streams, --idle-hold and --spectators are not negative")
    if args.spectator_rate <= 0 or args.spectator_think < 0:
        return refused("--spectator-rate is positive and --spectator-think not negative")
    if args.transport not in ("socket", "http"):
        return refused("--transport is socket or http")
    # Every simulated person connects from loopback: the service this command starts allows
    # them all (a service given with --url must be configured so itself).
    os.environ.setdefault("MANHATTAN_TABLE_STREAMS_PER_CLIENT", str(STREAMS_PER_CLIENT))
    for quota in ("CREATES", "TICKETS", "JOINS", "CHAT"):  # one address plays every person
        os.environ.setdefault(f"MANHATTAN_QUOTA_{quota}", "0")
    if args.webhooks:
        return run_webhooks(args)
    if args.baseline is not None:
        return run_versus(args)
    options = options_from(args, Options, fresh=args.url is None, redis_url=args.redis_url)
    # negative counts and thinking times turn their phases off
    options = replace(
        options,
        think=max(0.0, options.think),
        live=max(0, options.live),
        lobby=max(0, options.lobby),
    )
    report = report_on_service(
        args,
        "tables",
        lambda url, pid: bench(url, pid, options),
        _print,
        errors=(BenchError,),
    )
    if report is None:
        return 2
    if args.svg and report.get("tables"):
        tables_chart(report, args.svg)
    return 0 if report["errors"] == 0 else 1


def _print(report: dict[str, Any]) -> None:
    if "load_average_1m" in report:  # not with --tables 0 (the lobby alone)
        print_report(report)
    if report.get("lobby"):
        print_lobby(report["lobby"])


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
