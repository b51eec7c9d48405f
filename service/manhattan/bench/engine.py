"""``manhattan bench engine``: the engine's speed targets of issue 2, on one core.

legal_moves and apply_move on a mid-game 4-player build state (median µs per call), random full
4-player games through the public API, and random games on the bots' fast path (games/s).
Each figure is the median of ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable

from ..bots.playout import play_out
from ..engine import State, apply_move, legal_moves, new_game
from ..engine.play import Game
from .harness import seconds_per_call

TARGETS = {
    "legal_moves_us": ("≤", 50.0),
    "apply_move_us": ("≤", 30.0),
    "public_games_per_s": ("≥", 200.0),
    "fast_games_per_s": ("≥", 1000.0),
}


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


def measure(runs: int, seconds: float) -> dict[str, list[float]]:
    state = mid_game_state()
    moves = legal_moves(state)
    move = moves[len(moves) // 2]
    results: dict[str, list[float]] = {k: [] for k in TARGETS}
    for _ in range(runs):
        results["legal_moves_us"].append(
            seconds_per_call(lambda: legal_moves(state), seconds, 100) * 1e6
        )
        results["apply_move_us"].append(
            seconds_per_call(lambda: apply_move(state, move), seconds, 100) * 1e6
        )
        results["public_games_per_s"].append(_games_per_s(public_game, seconds))
        results["fast_games_per_s"].append(_games_per_s(fast_game, seconds))
    return results


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="manhattan bench engine")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="length of each run")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    results = measure(args.runs, args.seconds)
    print(f"{'figure':<22}{'median':>10}{'min':>10}{'max':>10}   target")
    ok = True
    for name, values in results.items():
        op, goal = TARGETS[name]
        med = statistics.median(values)
        met = med <= goal if op == "≤" else med >= goal
        ok &= met
        print(
            f"{name:<22}{med:>10.1f}{min(values):>10.1f}{max(values):>10.1f}   {op} {goal:g}"
            f" {'met' if met else 'MISSED'}"
        )
    return 0 if ok else 1
