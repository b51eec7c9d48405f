"""``manhattan bench bots``: ISMCTS iterations per second on one core, in the mid-game 4-player
state of ``manhattan bench engine`` (round 2's build phase), plus the cost of a greedy and a
random suggestion, and the expert's seconds a move at its default budget: that build, and the
first selection of pieces of round 2. Each figure is the median of ``--runs`` runs; the ISMCTS
rate is held to its target.

The verdict uses wall-clock time. Other work on the machine slows it down, so the line also gives
the rate per second of this process's CPU time and the system's 1-minute load at its start.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from manhattan.bench.engine import mid_game_state
from manhattan.bots.ismcts import Search
from manhattan.bots.levels import DEFAULT_EXPERT_ITERATIONS
from manhattan.bots.suggestion import suggest
from manhattan.engine import State, apply_move, legal_moves, new_game, view

TARGET_ITERATIONS_PER_S = 1000.0


def _ismcts_rate(seconds: float, seed: int) -> tuple[float, float]:
    """Iterations per second of wall-clock time and of this process's CPU time."""
    state = mid_game_state()
    assert state.to_move is not None
    search = Search(view(state, state.to_move), random.Random(seed))
    cpu = time.process_time()
    result = search.run(iterations=None, seconds=seconds)
    cpu = time.process_time() - cpu
    return result.iterations / result.seconds, result.iterations / max(cpu, 1e-9)


def _load_average() -> str:
    try:
        return f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    except (AttributeError, OSError):  # not on every platform
        return "unknown"


def _suggest_ms(level: str, calls: int) -> float:
    state = mid_game_state()
    assert state.to_move is not None
    player_view = view(state, state.to_move)
    start = time.perf_counter()
    for i in range(calls):
        suggest(player_view, level=level, seed=i)
    return (time.perf_counter() - start) / calls * 1000


def selection_state(seed: str = "bench") -> State:
    """A 4-player classic state at round 2's first selection of pieces."""
    rng = random.Random(seed)
    state = new_game(players=4, seed=seed)
    while not (state.round == 2 and state.phase == "select"):
        state = apply_move(state, rng.choice(legal_moves(state)))
    return state


def _expert_seconds(state: State, iterations: int, seed: int) -> tuple[float, float]:
    """One expert suggestion's wall-clock and CPU seconds."""
    assert state.to_move is not None
    player_view = view(state, state.to_move)
    wall, cpu = time.perf_counter(), time.process_time()
    suggest(player_view, level="expert", seed=seed, iterations=iterations)
    return time.perf_counter() - wall, time.process_time() - cpu


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="manhattan bench bots", description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0, help="search time per run")
    parser.add_argument(
        "--expert-iterations",
        type=int,
        default=DEFAULT_EXPERT_ITERATIONS,
        help="the expert's budget (default: its level's)",
    )
    args = parser.parse_args(argv)
    load = _load_average()
    measured = [_ismcts_rate(args.seconds, seed) for seed in range(args.runs)]
    rates = [wall for wall, _ in measured]
    rate = statistics.median(rates)
    cpu_rate = statistics.median(cpu for _, cpu in measured)
    verdict = "ok" if rate >= TARGET_ITERATIONS_PER_S else "BELOW TARGET"
    print(
        f"ismcts_iterations_per_s  {rate:8.0f}   (target ≥ {TARGET_ITERATIONS_PER_S:.0f}, "
        f"one core, mid-game 4 players; runs: {', '.join(f'{r:.0f}' for r in rates)})  {verdict}"
    )
    print(
        f"ismcts_per_cpu_s         {cpu_rate:8.0f}   "
        f"(per second of CPU time; system load (1 min) {load})"
    )
    print(f"greedy_suggest_ms        {_suggest_ms('greedy', 50):8.2f}")
    print(f"random_suggest_ms        {_suggest_ms('random', 200):8.3f}")
    for name, state in (("build", mid_game_state()), ("selection", selection_state())):
        timed = [_expert_seconds(state, args.expert_iterations, seed) for seed in range(args.runs)]
        wall = statistics.median(w for w, _ in timed)
        cpu = statistics.median(c for _, c in timed)
        print(
            f"expert_{name}_s".ljust(24)
            + f" {wall:8.2f}   ({cpu:.2f} s of CPU time; {args.expert_iterations} iterations)"
        )
    return 0 if rate >= TARGET_ITERATIONS_PER_S else 1
