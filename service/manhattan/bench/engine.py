"""``manhattan bench engine``: the engine's speed on one core, and the compiled kernel's gain.

legal_moves and apply_move on a mid-game 4-player build state (median µs per call), random full
4-player games through the public API and on the bots' fast path (games/s), and ISMCTS
iterations per second from the same state. Each figure is the median of ``--runs`` runs.

``--baseline`` measures the interpreted build in the same run (a copy of this package's source
without its compiled modules, in a subprocess), alternating which goes first, and gives the
ratio of each figure (how many times faster this build is); ``--baseline DIR`` takes another
source tree instead (DIR is put first on PYTHONPATH, e.g. ``/tmp/old/service``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from manhattan.bench.charts import engine_chart
from manhattan.bench.harness import seconds_per_call
from manhattan.bots.ismcts import Search
from manhattan.bots.playout import play_out
from manhattan.engine import State, apply_move, legal_moves, new_game, view
from manhattan.engine.build import PURE, copy_pure_source, kernel_build
from manhattan.engine.play import Game

#: Targets on this build's own figures: issue 27's legal_moves (the compiled kernel), issue 2's
#: others, issue 6's ISMCTS rate.
TARGETS = {
    "legal_moves_us": ("≤", 3.0),
    "apply_move_us": ("≤", 30.0),
    "public_games_per_s": ("≥", 200.0),
    "fast_games_per_s": ("≥", 1000.0),
    "ismcts_iterations_per_s": ("≥", 1000.0),
}
#: Issue 27's gains over the interpreted build (with --baseline). The fast path's target is 3x
#: the reference simulator, which the interpreted build ran at 1.4-1.6x: about 2x interpreted.
GAINS = {"fast_games_per_s": 2.0, "ismcts_iterations_per_s": 2.0}
Results = dict[str, list[float]]
#: The kernel a baseline must run, by its path (the interpreted copy: pure Python).
BASELINE_KERNEL: dict[str, str] = {}


def mid_game_state(seed: str = "bench") -> State:
    """A 4-player classic state in round 2's build phase with 10 pieces placed this round."""
    rng = random.Random(seed)
    state = new_game(players=4, seed=seed)
    while not (state.round == 2 and state.phase == "build" and sum(map(sum, state.selected)) <= 14):
        state = apply_move(state, rng.choice(legal_moves(state)))
    return state


def _games_per_s(play_one: Callable[[int], None], seconds: float) -> float:
    games, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        play_one(games)
        games += 1
    return games / (time.perf_counter() - start)


def public_game(i: int) -> None:
    rng = random.Random(i)
    state = new_game(players=4, seed=f"g{i}")
    while state.phase != "over":
        state = apply_move(state, rng.choice(legal_moves(state)))


def fast_game(i: int) -> None:
    play_out(Game(new_game(players=4, seed=f"g{i}")), random.Random(i))


def ismcts_rate(state: State, seconds: float, seed: int) -> float:
    assert state.to_move is not None
    result = Search(view(state, state.to_move), random.Random(seed)).run(
        iterations=None, seconds=seconds
    )
    return result.iterations / result.seconds


def measure(runs: int, seconds: float) -> Results:
    state = mid_game_state()
    moves = legal_moves(state)
    move = moves[len(moves) // 2]
    results: Results = {k: [] for k in TARGETS}
    for run in range(runs):
        results["legal_moves_us"].append(
            seconds_per_call(lambda: legal_moves(state), seconds, 100) * 1e6
        )
        results["apply_move_us"].append(
            seconds_per_call(lambda: apply_move(state, move), seconds, 100) * 1e6
        )
        results["public_games_per_s"].append(_games_per_s(public_game, seconds))
        results["fast_games_per_s"].append(_games_per_s(fast_game, seconds))
        results["ismcts_iterations_per_s"].append(ismcts_rate(state, seconds, run))
    return results


def measure_elsewhere(path: Path, seconds: float) -> Results:
    """One run of ``measure`` by the package found at ``path`` (first on PYTHONPATH)."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(path), os.environ.get("PYTHONPATH", "")]),
    }
    command = [sys.executable, "-m", "manhattan.cli", "bench", "engine", "--runs", "1"]
    out = subprocess.run(
        [*command, "--seconds", str(seconds), "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    answer = json.loads(out.splitlines()[-1])
    if answer["kernel"] != BASELINE_KERNEL.get(str(path), answer["kernel"]):
        raise RuntimeError(f"the baseline at {path} runs the {answer['kernel']} kernel")
    results: Results = answer["results"]
    return results


def alternating(runs: int, seconds: float, baseline: Path) -> tuple[Results, Results]:
    """``runs`` runs of this build and of ``baseline``, alternating which goes first."""
    here: Results = {k: [] for k in TARGETS}
    there: Results = {k: [] for k in TARGETS}
    for run in range(runs):
        order = [(here, None), (there, baseline)]
        for into, path in order if run % 2 == 0 else order[::-1]:
            got = measure(1, seconds) if path is None else measure_elsewhere(path, seconds)
            for name, values in got.items():
                into.setdefault(name, []).extend(values)
    return here, there


def gain(name: str, here: float, there: float) -> float:
    """How many times faster this build is on ``name`` (times: lower is better)."""
    return there / here if name.endswith("_us") else here / there


def report(results: Results, baseline: Results | None) -> bool:
    """Print the table; whether every target (and gain, with a baseline) is met."""
    extra = f"{'interpreted':>12}{'gain':>8}" if baseline else ""
    print(f"kernel: {kernel_build()}")
    print(f"{'figure':<26}{'median':>10}{'min':>10}{'max':>10}{extra}   target")
    ok = True
    for name, values in results.items():
        op, goal = TARGETS[name]
        med = statistics.median(values)
        met = med <= goal if op == "≤" else med >= goal
        line = f"{name:<26}{med:>10.1f}{min(values):>10.1f}{max(values):>10.1f}"
        verdict = f"{op} {goal:g} {'met' if met else 'MISSED'}"
        if baseline:
            base = statistics.median(baseline[name])
            times = gain(name, med, base)
            line += f"{base:>12.1f}{times:>7.2f}x"
            if name in GAINS:
                met_gain = times >= GAINS[name]
                verdict += f"; ≥ {GAINS[name]:g}x {'met' if met_gain else 'MISSED'}"
                met &= met_gain
        ok &= met
        print(f"{line}   {verdict}")
    return ok


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="manhattan bench engine", description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="length of each run")
    parser.add_argument(
        "--baseline",
        nargs="?",
        const="interpreted",
        default=None,
        metavar="DIR",
        help="also measure the interpreted build (or the source tree DIR), alternating",
    )
    parser.add_argument("--json", action="store_true", help="one line of JSON (for --baseline)")
    parser.add_argument(
        "--svg", metavar="PATH", help="also draw the figures (the gains, with --baseline) as SVG"
    )
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    if args.json:
        print(json.dumps({"kernel": kernel_build(), "results": measure(args.runs, args.seconds)}))
        return 0
    if args.baseline is None:
        here, there = measure(args.runs, args.seconds), None
    else:
        with tempfile.TemporaryDirectory() as tmp:
            if args.baseline == "interpreted":
                path = copy_pure_source(Path(tmp))
                BASELINE_KERNEL[str(path)] = PURE
            else:
                path = Path(args.baseline).resolve()
            here, there = alternating(args.runs, args.seconds, path)
    ok = report(here, there)
    if args.svg:
        engine_chart(here, there, kernel_build(), args.svg)
    return 0 if ok else 1
