"""``manhattan bench tables --baseline DIR``: this tree's service against another's, both playing
at the same time.

A change of a few per cent cannot be told apart by running one version after the other on a
shared machine: between two runs of the same code a minute apart, the moves a second moved by up
to a quarter (2026-11-27: boardgame.io's own server 2,337 then 1,953 a second). Here two
services start side by side, embedded store each (this tree's, and one from ``DIR``, the
``service`` folder of another checkout, put first on its Python path), and ``--tables`` tables
play flat out on each at the same time for ``--seconds``, in this one process: whatever the
machine does to one it does to the other. Each of ``--runs`` runs starts both services afresh;
the report gives each run's moves a second and service CPU a table move on both sides and their
ratios (this tree over the baseline), then the medians. Repeated, the ratios agreed within about
1 % where one after the other they spread over 25 %.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .table_crowds import fresh_service
from .table_people import Person, play_tables

#: What each run reports of each side's tables phase (``play_tables``).
SIDE_FIGURES = ("moves", "moves_per_s", "play_cpu_ms_per_move", "errors")


@dataclass(frozen=True, slots=True)
class Workload:
    """What each side plays in a run: ``tables`` tables flat out for ``seconds``."""

    tables: int
    seconds: float
    seed: int
    setup: dict[str, Any]
    person: type[Person]


async def versus(baseline: Path, work: Workload, runs: int) -> dict[str, Any]:
    """``runs`` runs of this tree's service and the one at ``baseline`` playing at once."""
    results = []
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    try:
        for index in range(runs):
            results.append(await _one_run(baseline, work, index))
    finally:
        if cores is not None:
            os.sched_setaffinity(0, cores)
    return {
        "baseline": str(baseline),
        "tables": work.tables,
        "seconds": work.seconds,
        "runs": results,
        "moves_ratio": _median([run["moves_ratio"] for run in results]),
        "cpu_ratio": _median([run["cpu_ratio"] for run in results]),
        "errors": sum(run["here"]["errors"] + run["baseline"]["errors"] for run in results),
    }


async def _one_run(baseline: Path, work: Workload, index: int) -> dict[str, Any]:
    """Both services started afresh, pinned, and their tables played at the same time."""
    async with (
        fresh_service(None, "bench-here") as (here, here_pid),
        fresh_service(None, "bench-baseline", python_path=baseline) as (there, there_pid),
    ):
        _pinned(here_pid, there_pid)
        # The same seed on both sides: the same games, move for move, as far as they go.
        played = await asyncio.gather(
            *(
                play_tables(
                    side,
                    work.tables,
                    work.seconds,
                    work.seed + index,
                    work.setup,
                    pid=pid,
                    person=work.person,
                )
                for side, pid in ((here, here_pid), (there, there_pid))
            )
        )
    return _run(*played)


def _pinned(*services: int) -> None:
    """With two cores or more (Linux), both services on the last one and this process on the
    others, as ``../shared/peer-bgio/run.sh`` pins a server and its load: the two services
    then share one core's time, which the ratios compare."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(cores) < 2:
        return
    for pid in services:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(pid, {cores[-1]})
    os.sched_setaffinity(0, set(cores[:-1]))


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
        f"once; baseline {report['baseline']}"
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
