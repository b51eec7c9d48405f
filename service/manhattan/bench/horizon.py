"""``manhattan bench horizon``: what the board standing at a round's end is worth in the rounds
still to come (``halving.FUTURE_BOARD``), fitted to self-play games.

The expert's simulations stop at the end of the round in progress (``halving.py``); what the
rest of the game would bring is estimated from the board then standing, scored as a round is and
counted ``w[k]`` times with ``k`` rounds left. Buildings change hands, so ``w[k]`` is well below
``k``. The command plays games of the opponent model (``greedy_playout.model_step``, each seat
making the model's likeliest placement), with selections of pieces as searching players make
them (the balanced one ``--balanced`` of the time, else any candidate drawn at random, the
balanced one included), and at each round's end keeps, for every player, three differences from
the other players' mean: the score so far, the board's score, and the final score. For each
player count and rounds left, it fits ``final - so far = w[k] * board`` by least squares and
reports ``w[k]``, with the mean squared error of that prediction beside the flat weight of 0.6 a
round that ISMCTS's simulations use. Game ``i`` is dealt from the seed ``{seed}-{i}``. Example::

    manhattan bench horizon --games 4000
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass

from manhattan.bots.greedy_playout import model_step
from manhattan.bots.halving import FUTURE_BOARD
from manhattan.bots.ismcts import selection_candidates
from manhattan.bots.playout import FUTURE_ROUND_WEIGHT
from manhattan.engine import new_game
from manhattan.engine.play import Game
from manhattan.engine.rollout import color_to_select
from manhattan.engine.scoring import player_totals, score_board

DEFAULT_GAMES = 4000
DEFAULT_SEED = "horizon"
#: How often a searching player is made to pick the balanced selection outright (the other draws
#: pick it too, one time in some thirteen; ``bench opponents`` measures how often they do).
DEFAULT_BALANCED = 0.3


@dataclass(frozen=True, slots=True)
class Sample:
    """One player at one round's end, each figure less the other players' mean."""

    rounds_left: int
    later: float  # the final score less the score so far
    board: float  # the board's score as it stands


@dataclass(frozen=True, slots=True)
class Fit:
    rounds_left: int
    weight: float
    samples: int
    error: float  # mean squared error of the fitted prediction
    flat_error: float  # the same with FUTURE_ROUND_WEIGHT a round


def _less_others(values: Sequence[float], player: int) -> float:
    others = [v for p, v in enumerate(values) if p != player]
    return values[player] - sum(others) / len(others)


def _standing(game: Game) -> tuple[list[float], list[float]]:
    """Each player's score so far and board score (summed over the player's colors)."""
    rules = game.rules
    board = [b.total for b in score_board(game.board, rules.color_count)]
    scores = player_totals(game.scores, rules.colors)
    return [float(s) for s in scores], [float(b) for b in player_totals(board, rules.colors)]


def play_samples(players: int, seed: str, balanced: float) -> list[Sample]:
    """One self-play game's samples, one per player at each round's end but the last."""
    game = Game(new_game(players=players, seed=seed))
    rng = random.Random(seed)
    standings: list[tuple[int, list[float], list[float]]] = []
    scored = game.round
    while game.phase != "over":
        color = color_to_select(game)
        if color is None:
            model_step(game, rng)
        else:
            choices = selection_candidates(game.supply[color], game.rules.pieces_per_round)
            game.select(color, choices[0] if rng.random() < balanced else rng.choice(choices))
        if game.round != scored and game.phase != "over":
            scored = game.round
            standings.append((game.rules.rounds - game.round + 1, *_standing(game)))
    final = _standing(game)[0]
    return [
        Sample(
            left,
            _less_others(final, p) - _less_others(scores, p),
            _less_others(boards, p),
        )
        for left, scores, boards in standings
        for p in range(players)
    ]


def fit(samples: Sequence[Sample]) -> list[Fit]:
    """``later = w * board`` by least squares, for each number of rounds left."""
    fits = []
    for left in sorted({s.rounds_left for s in samples}):
        rows = [s for s in samples if s.rounds_left == left]
        spread = sum(s.board * s.board for s in rows)
        weight = sum(s.board * s.later for s in rows) / spread if spread else 0.0
        flat = FUTURE_ROUND_WEIGHT * left
        fits.append(
            Fit(
                left,
                weight,
                len(rows),
                sum((s.later - weight * s.board) ** 2 for s in rows) / len(rows),
                sum((s.later - flat * s.board) ** 2 for s in rows) / len(rows),
            )
        )
    return fits


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="manhattan bench horizon", description=__doc__)
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, help="games per count")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4], choices=(2, 3, 4))
    parser.add_argument("--seed", default=DEFAULT_SEED)
    parser.add_argument(
        "--balanced",
        type=float,
        default=DEFAULT_BALANCED,
        help="share of selections that are the balanced one outright",
    )
    return parser


def run(argv: list[str]) -> int:
    """Prints one JSON document: each fit, and the fitted weights as ``FUTURE_BOARD`` holds
    them (rounded to 0.01)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if not 0.0 <= args.balanced <= 1.0:
        parser.error("--balanced must be within 0 and 1")
    fits: dict[str, list[dict[str, float | None]]] = {}
    weights: dict[str, list[float]] = {}
    for players in args.players:
        samples = [
            s
            for g in range(args.games)
            for s in play_samples(players, f"{args.seed}-{g}", args.balanced)
        ]
        shipped = FUTURE_BOARD.get(players, ())
        found = fit(samples)
        fits[str(players)] = [
            {
                "roundsLeft": f.rounds_left,
                "samples": f.samples,
                "weight": round(f.weight, 4),
                "shipped": shipped[f.rounds_left] if f.rounds_left < len(shipped) else None,
                "error": round(f.error, 2),
                "flatError": round(f.flat_error, 2),
            }
            for f in found
        ]
        weights[str(players)] = [0.0, *(round(f.weight, 2) for f in found)]
    report = {
        "games": args.games,
        "seed": args.seed,
        "balanced": args.balanced,
        "flatWeight": FUTURE_ROUND_WEIGHT,
        "fits": fits,
        "futureBoard": weights,
    }
    print(json.dumps(report, indent=1))
    return 0
