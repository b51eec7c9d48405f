"""``manhattan bench opponents``: the model of a searching opponent that the expert's simulations
play (``greedy_playout.OPPONENT_MODEL``), fitted to what ``ismcts`` bots build.

It plays ``ismcts`` bots against each other (4 players, each at ``--iterations``, game ``i`` with
the seed ``{seed}-{i}``, so the same games on every machine), and at each of their builds keeps
every legal placement's features (``placement_features``) and the one the bot chose. A
conditional logit (McFadden 1974: the chance of a placement is proportional to
``exp(w . features)``) is fitted to those choices by Newton's method; the expert's simulated
opponents then play the placement of highest ``w . features``. The command reports the weights,
and how often the model's and the greedy bot's first choice are the bot's own, on the
odd-numbered games with a fit on the even-numbered ones (held out), then on all of them. Example::

    manhattan bench opponents --games 20 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from multiprocessing import Pool

import msgspec

from manhattan.bots import BotChoice, make_bot
from manhattan.bots.greedy_playout import (
    FEATURES,
    GREEDY_VALUE,
    OPPONENT_MODEL,
    RoundPicture,
    lead,
)
from manhattan.engine import State, apply_move, new_game, view
from manhattan.engine.placement import context, need, open_count
from manhattan.engine.play import Game
from manhattan.engine.rules import ROTATION

DEFAULT_GAMES = 20
DEFAULT_ITERATIONS = 2000
DEFAULT_SEED = "opponents"
#: A small ridge on the weights: a feature that never varies in the data stays at 0.
RIDGE = 0.01

Placement = tuple[int, int, int, int]  # card, neighborhood, floors, color


@dataclass(frozen=True, slots=True)
class Decision:
    """One build: every legal placement's features, and which of them the bot chose."""

    game: int
    features: tuple[tuple[float, ...], ...]
    chosen: int


def placement_features(game: Game, player: int) -> list[tuple[Placement, tuple[float, ...]]]:
    """Each legal placement of ``player`` (to move, building) and its ``FEATURES``, in the order
    ``greedy_playout.model_step`` considers them from neighborhood 0."""
    rules = game.rules
    pieces = [(c, f) for c in rules.colors[player] for f, k in enumerate(game.selected[c], 1) if k]
    ctx = context(game, player)
    table = ROTATION[rules.seats[player]]
    picture = RoundPicture(game)
    out: list[tuple[Placement, tuple[float, ...]]] = []
    for card in sorted(set(game.hands[player])):
        for n in range(open_count(ctx)):
            index = n * 9 + table[card]
            before = picture.owners[index]
            for c, f in pieces:
                if f < need(ctx, index, c):
                    continue
                height = picture.heights[index] + f
                takeover = before >= 0 and rules.owner_of_color[before] != player
                features = (
                    picture.margin_after(player, index, c, f),
                    float(f),
                    float(lead(game.board[index], c, f)),
                    1.0 if takeover else 0.0,
                    1.0 if before < 0 else 0.0,
                    1.0 if height > picture.tallest else 0.0,
                    float(height),
                )
                out.append(((card, n, f, c), features))
    return out


def play_and_record(index: int, seed: str, iterations: int) -> list[Decision]:
    """One self-play game of ``ismcts`` bots; the builds among two or more placements."""
    game_seed = f"{seed}-{index}"
    state: State = new_game(players=4, seed=game_seed)
    bot = BotChoice(level="ismcts", iterations=iterations)
    decisions: list[Decision] = []
    moves = 0
    while not state.is_over:
        player = state.to_move
        assert player is not None
        choice = msgspec.structs.replace(bot, seed=zlib.crc32(f"{game_seed}:{moves}".encode()))
        move = make_bot(choice).suggest(view(state, player)).move
        if move.type == "build":
            placements = placement_features(Game(state), player)
            played = (move.card, move.neighborhood, move.floors, move.color)
            keys = [key for key, _ in placements]
            if len(placements) > 1 and played in keys:
                decisions.append(
                    Decision(index, tuple(f for _, f in placements), keys.index(played))
                )
        state = apply_move(state, move)
        moves += 1
    return decisions


def _record(job: tuple[int, str, int]) -> list[Decision]:
    return play_and_record(*job)


def _recorded(games: int, seed: str, iterations: int, jobs: int) -> Iterator[list[Decision]]:
    work = [(i, seed, iterations) for i in range(games)]
    if jobs <= 1:
        yield from map(_record, work)
        return
    with Pool(jobs) as pool:
        yield from pool.imap_unordered(_record, work)


def fit(decisions: Sequence[Decision], ridge: float = RIDGE, steps: int = 50) -> list[float]:
    """The conditional logit's weights of highest (ridge-penalized) likelihood: Newton's method
    from zero, which converges in a few steps on this concave problem."""
    size = len(FEATURES)
    w = [0.0] * size
    for _ in range(steps):
        gradient = [-ridge * x for x in w]
        hessian = [[-ridge if i == j else 0.0 for j in range(size)] for i in range(size)]
        for d in decisions:
            probabilities = _softmax(d.features, w)
            mean = [0.0] * size
            second = [[0.0] * size for _ in range(size)]
            for p, x in zip(probabilities, d.features, strict=True):
                for i in range(size):
                    weighted = p * x[i]
                    mean[i] += weighted
                    row = second[i]
                    for j in range(size):
                        row[j] += weighted * x[j]
            chosen = d.features[d.chosen]
            for i in range(size):
                gradient[i] += chosen[i] - mean[i]
                for j in range(size):
                    hessian[i][j] -= second[i][j] - mean[i] * mean[j]
        step = _solve(hessian, gradient)
        w = [x - s for x, s in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return w


def dot(x: Sequence[float], w: Sequence[float]) -> float:
    """A placement's value under weights ``w``."""
    return sum(a * b for a, b in zip(x, w, strict=True))


def _softmax(features: Sequence[Sequence[float]], w: Sequence[float]) -> list[float]:
    scores = [dot(x, w) for x in features]
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``x`` with ``matrix @ x == vector`` (Gaussian elimination, partial pivoting)."""
    size = len(vector)
    rows = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, size):
            factor = rows[r][col] / rows[col][col]
            for c in range(col, size + 1):
                rows[r][c] -= factor * rows[col][c]
    x = [0.0] * size
    for r in reversed(range(size)):
        x[r] = (rows[r][size] - sum(rows[r][c] * x[c] for c in range(r + 1, size))) / rows[r][r]
    return x


def first_choice_rate(decisions: Sequence[Decision], w: Sequence[float]) -> float:
    """How often the placement of highest ``w . features`` is the bot's (a tie shares it)."""
    if not decisions:
        return 0.0
    hits = 0.0
    for d in decisions:
        scores = [dot(x, w) for x in d.features]
        top = max(scores)
        best = [i for i, s in enumerate(scores) if s >= top - 1e-9]
        hits += (d.chosen in best) / len(best)
    return hits / len(decisions)


def log_likelihood(decisions: Sequence[Decision], w: Sequence[float]) -> float:
    """The mean log-probability the model gives the bot's choices."""
    return sum(math.log(_softmax(d.features, w)[d.chosen]) for d in decisions) / max(
        1, len(decisions)
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="manhattan bench opponents",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES)
    parser.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS)
    parser.add_argument("--seed", default=DEFAULT_SEED)
    parser.add_argument("--jobs", type=int, default=1, help="games played in parallel")
    parser.add_argument("--json", default=None, help="write the results as JSON")
    return parser


def summary(decisions: list[Decision]) -> dict[str, object]:
    """The held-out figures (fit on even games, scored on odd ones) and the fit on all."""
    train = [d for d in decisions if d.game % 2 == 0]
    test = [d for d in decisions if d.game % 2 == 1]
    held_out = fit(train)
    weights = fit(decisions)
    return {
        "decisions": len(decisions),
        "features": list(FEATURES),
        "weights": [round(x, 3) for x in weights],
        "shipped": list(OPPONENT_MODEL),
        "held_out": {
            "model_first_choice": round(first_choice_rate(test, held_out), 3),
            "greedy_first_choice": round(first_choice_rate(test, GREEDY_VALUE), 3),
            "model_log_likelihood": round(log_likelihood(test, held_out), 3),
        },
        "all": {
            "model_first_choice": round(first_choice_rate(decisions, weights), 3),
            "shipped_first_choice": round(first_choice_rate(decisions, OPPONENT_MODEL), 3),
            "greedy_first_choice": round(first_choice_rate(decisions, GREEDY_VALUE), 3),
        },
    }


def run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.games < 2 or args.jobs < 1 or args.iterations < 1:
        _parser().error("--games must be at least 2, --jobs and --iterations at least 1")
    start = time.perf_counter()
    decisions: list[Decision] = []
    for done, found in enumerate(_recorded(args.games, args.seed, args.iterations, args.jobs), 1):
        decisions.extend(found)
        print(f"\r{done}/{args.games} games", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    result = {
        "command": "manhattan bench opponents " + " ".join(argv),
        "games": args.games,
        "seed": args.seed,
        "iterations": args.iterations,
        **summary(decisions),
        "seconds": round(time.perf_counter() - start, 1),
    }
    print(json.dumps(result, indent=2))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(result, out, indent=2)
    return 0
