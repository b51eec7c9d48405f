"""``manhattan bench bots``: ISMCTS iterations per second on one core, in the mid-game 4-player
state of ``manhattan bench engine`` (round 2's build phase), plus the cost of a greedy and a
random suggestion. Each figure is the median of ``--runs`` runs; the target is issue 6's.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from ..bench.engine import mid_game_state
from ..engine import view
from .ismcts import Search
from .suggestion import suggest

TARGET_ITERATIONS_PER_S = 1000.0


def _ismcts_rate(seconds: float, seed: int) -> float:
    state = mid_game_state()
    assert state.to_move is not None
    search = Search(view(state, state.to_move), random.Random(seed))
    result = search.run(iterations=None, seconds=seconds)
    return result.iterations / result.seconds


def _suggest_ms(level: str, calls: int) -> float:
    state = mid_game_state()
    assert state.to_move is not None
    player_view = view(state, state.to_move)
    start = time.perf_counter()
    for i in range(calls):
        suggest(player_view, level=level, seed=i)
    return (time.perf_counter() - start) / calls * 1000


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="manhattan bench bots", description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0, help="search time per run")
    args = parser.parse_args(argv)
    rates = [_ismcts_rate(args.seconds, seed) for seed in range(args.runs)]
    rate = statistics.median(rates)
    verdict = "ok" if rate >= TARGET_ITERATIONS_PER_S else "BELOW TARGET"
    print(
        f"ismcts_iterations_per_s  {rate:8.0f}   (target ≥ {TARGET_ITERATIONS_PER_S:.0f}, "
        f"one core, mid-game 4 players; runs: {', '.join(f'{r:.0f}' for r in rates)})  {verdict}"
    )
    print(f"greedy_suggest_ms        {_suggest_ms('greedy', 50):8.2f}")
    print(f"random_suggest_ms        {_suggest_ms('random', 200):8.3f}")
    return 0 if rate >= TARGET_ITERATIONS_PER_S else 1
