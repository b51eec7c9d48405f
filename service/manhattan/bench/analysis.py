"""``bench_preview``: the speed target of move preview, on ``bench engine``'s mid-game state.

``preview_all`` of every legal move of a mid-game 4-player build state (target: a few
milliseconds) and of a wide turn (the first build turn: every move legal), against the naive
way (``apply_move`` then ``score_round`` per move), with
``analyze`` and ``threats`` of the same state for scale. Each figure is the median of ``runs``
runs of ``seconds`` each, in milliseconds per call.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from dataclasses import replace

from manhattan.bench.engine import mid_game_state
from manhattan.bench.harness import seconds_per_call, timing_parser
from manhattan.engine import (
    State,
    analyze,
    apply_move,
    legal_moves,
    new_game,
    preview_all,
    score_round,
    threats,
)

TARGET_MS = 5.0


def naive_preview_all(state: State) -> list[object]:
    """The baseline: apply each legal move and rescore the whole board."""
    return [
        score_round(replace(apply_move(state, m), round=state.round, urban=state.urban))
        for m in legal_moves(state)
    ]


def first_build_state(seed: str = "bench") -> State:
    """The first build turn of a 4-player game, every color holding all four sizes: an empty
    board, so every card, neighborhood and size is legal (up to 96 moves)."""
    state = new_game(players=4, seed=seed)
    while state.phase == "select":
        moves = legal_moves(state)
        state = apply_move(state, next(m for m in moves if m.pieces and all(m.pieces)))
    return state


def bench_preview(runs: int = 5, seconds: float = 0.5) -> dict[str, float]:
    """Median milliseconds per call over ``runs`` runs, and the number of legal moves."""
    state = mid_game_state()
    wide = first_build_state()
    viewer = state.to_move if state.to_move is not None else 0
    cases: dict[str, Callable[[], object]] = {
        "preview_all_ms": lambda: preview_all(state),
        "preview_all_wide_ms": lambda: preview_all(wide),
        "naive_preview_all_ms": lambda: naive_preview_all(state),
        "analyze_ms": lambda: analyze(state),
        "threats_ms": lambda: threats(state, viewer),
    }
    results: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, fn in cases.items():
            results[name].append(seconds_per_call(fn, seconds) * 1e3)
    out = {name: statistics.median(values) for name, values in results.items()}
    out["legal_moves"] = float(len(legal_moves(state)))
    out["legal_moves_wide"] = float(len(legal_moves(wide)))
    return out


def run(argv: list[str]) -> int:
    args = timing_parser("manhattan bench analysis", 0.5).parse_args(argv)
    figures = bench_preview(args.runs, args.seconds)
    for name, value in figures.items():
        print(f"{name:<24}{value:>10.3f}")
    met = figures["preview_all_ms"] <= TARGET_MS
    print(f"preview_all target ≤ {TARGET_MS:g} ms: {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
