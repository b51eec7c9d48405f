"""``manhattan bench tables --baseline DIR``: this tree's service against another's, both playing
at the same time.

A change of a few per cent cannot be told apart by running one version after the other on a
shared machine: between two runs of the same code a minute apart, the moves a second moved by up
to a quarter, boardgame.io's own server included. Here two
services start side by side, embedded store each, or with ``--redis-url`` each on a database of
its own of that Redis (this tree's, and one from ``DIR``, the ``service`` folder of another
checkout, put first on its Python path), both pinned to one core,
and ``--tables`` tables play flat out on each at the same time for ``--seconds``, each side
driven by this tree's ``bench tables`` in a process of its own on the other cores: whatever the
machine does to one it does to the other. Each of ``--runs`` runs starts both services afresh,
every other run the baseline first (started in one order only, the same code measured 2 %
slower on the side started first); the report gives each run's moves a second and service CPU
a table move on both sides and their ratios (this tree over the baseline), then the medians.
The same code against itself: within 1 %, where one run after the other spread over 25 %.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from manhattan.bench.table_crowds import fresh_service
from manhattan.bench.table_people import BenchError, Endpoint

#: What each run reports of each side's tables phase (``table_people.play_tables``).
SIDE_FIGURES = ("moves", "moves_per_s", "play_cpu_ms_per_move", "errors")


@dataclass(frozen=True, slots=True)
class Workload:
    """What each side plays in a run: ``tables`` tables flat out for ``seconds``."""

    tables: int
    seconds: float
    seed: int
    rounds: int | None
    transport: str
    #: Both sides on this Redis (plain, ``redis://``), each on a database of its own.
    redis_url: str | None = None


async def versus(baseline: Path, work: Workload, runs: int) -> dict[str, Any]:
    """``runs`` runs of this tree's service and the one at ``baseline`` playing at once."""
    results = [await _one_run(baseline, work, index) for index in range(runs)]
    return {
        "baseline": str(baseline),
        "store": "redis" if work.redis_url else "embedded",
        "tables": work.tables,
        "seconds": work.seconds,
        "runs": results,
        "moves_ratio": _median([run["moves_ratio"] for run in results]),
        "cpu_ratio": _median([run["cpu_ratio"] for run in results]),
        "errors": sum(run["here"]["errors"] + run["baseline"]["errors"] for run in results),
    }


async def _one_run(baseline: Path, work: Workload, index: int) -> dict[str, Any]:
    """Both services started afresh and pinned, and each played by a driver of its own (this
    tree's ``bench tables`` on it, in a process on the other cores) at the same time."""
    sides = [
        (None, "bench-here", side_redis_url(work.redis_url, 0)),
        (baseline, "bench-baseline", side_redis_url(work.redis_url, 1)),
    ]
    if index % 2:  # every other run the baseline starts first (and its driver too)
        sides.reverse()
    async with contextlib.AsyncExitStack() as stack:
        started = [
            await stack.enter_async_context(fresh_service(url, name, python_path=path))
            for path, name, url in sides
        ]
        drivers = _pinned(*(pid for _, pid in started))
        # The same seed on both sides: the same games, move for move, as far as they go.
        played = await asyncio.gather(
            *(_driven(where, pid, work, index, drivers) for where, pid in started)
        )
    if index % 2:
        played.reverse()
    return _run(*played)


async def _driven(
    where: Endpoint, pid: int, work: Workload, index: int, cores: set[int] | None
) -> dict[str, Any]:
    """The tables phase of ``manhattan bench tables`` on a running service, in a process of
    its own (both sides driven from one process, it split its time unevenly between them)."""
    command = [
        sys.executable,
        "-m",
        "manhattan.cli",
        "bench",
        "tables",
        "--url",
        f"http://{where.host}:{where.port}",
        "--pid",
        str(pid),
        "--json",
        *("--tables", str(work.tables), "--seconds", str(work.seconds)),
        *("--seed", str(work.seed + index), "--transport", work.transport),
        *("--stateless-seconds", "0.1", "--idle-streams", "0"),
        *(() if work.rounds is None else ("--rounds", str(work.rounds))),
    ]
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    if cores:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(process.pid, cores)
    out, err = await process.communicate()
    try:
        if process.returncode not in (0, 1):  # (1: the run had errors, which it reports)
            raise ValueError(f"it exited with {process.returncode}")
        played: dict[str, Any] = json.loads(out)["tables"]
    except (ValueError, KeyError, TypeError) as exc:
        raise BenchError(f"a driver failed ({exc}): {err.decode()[-2000:]}") from None
    return played


def side_redis_url(url: str | None, side: int) -> str | None:
    """``url`` on the database ``side`` after its own (``redis://host/4``: 4 and 5), so the two
    services share the Redis server, as they share a core, but not their keys."""
    if url is None:
        return None
    if not url.startswith(("redis://", "rediss://")):  # a cluster has one database
        raise BenchError("--baseline with --redis-url takes a plain Redis (redis://, rediss://)")
    base, _, query = url.partition("?")
    head, _, tail = base.rstrip("/").rpartition("/")
    if head.endswith(":/") or not tail.isdigit():  # no database in the URL: 0
        head, tail = base.rstrip("/"), "0"
    return f"{head}/{int(tail) + side}" + (f"?{query}" if query else "")


def _pinned(*services: int) -> set[int] | None:
    """With two cores or more (Linux), both services on the last one, as
    ``../shared/peer-bgio/run.sh`` pins a server: they then share one core's time, which the
    ratios compare. The cores left, for the drivers (None: not pinned)."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(cores) < 2:
        return None
    for pid in services:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(pid, {cores[-1]})
    return set(cores[:-1])


def _run(here: dict[str, Any], there: dict[str, Any]) -> dict[str, Any]:
    mine = {name: here[name] for name in SIDE_FIGURES}
    theirs = {name: there[name] for name in SIDE_FIGURES}
    return {
        "here": mine,
        "baseline": theirs,
        "moves_ratio": _ratio(mine["moves_per_s"], theirs["moves_per_s"]),
        "cpu_ratio": _ratio(mine["play_cpu_ms_per_move"], theirs["play_cpu_ms_per_move"]),
    }


def _ratio(mine: float | None, theirs: float | None) -> float | None:
    return None if not mine or not theirs else mine / theirs


def _median(values: list[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return statistics.median(known) if known else None


def print_versus(report: dict[str, Any]) -> None:
    print(
        f"{report['tables']} tables flat out for {report['seconds']:g} s on each service at "
        f"once ({report['store']} store); baseline {report['baseline']}"
    )
    print(f"{'run':>4} {'moves/s':>9} {'baseline':>9} {'ratio':>7} {'CPU ms':>8} {'baseline':>9}")
    for number, run in enumerate(report["runs"], 1):
        here, there = run["here"], run["baseline"]
        print(
            f"{number:>4} {here['moves_per_s']:>9.0f} {there['moves_per_s']:>9.0f} "
            f"{_shown(run['moves_ratio'], 'x'):>7} {_shown(here['play_cpu_ms_per_move']):>8} "
            f"{_shown(there['play_cpu_ms_per_move']):>9}"
        )
    print(
        f"median: moves a second {_shown(report['moves_ratio'], 'x')} the baseline's, CPU a "
        f"move {_shown(report['cpu_ratio'], 'x')}; errors {report['errors']}"
    )


def _shown(value: float | None, unit: str = "") -> str:
    return "-" if value is None else f"{value:.3f}{unit}"
