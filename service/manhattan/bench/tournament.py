"""``manhattan tournament``: seeded games between bots, win rates with 95% Wilson intervals.

A candidate bot plays against a field of copies of one opponent bot, for each player count and
each candidate budget; the candidate takes every seat in turn (game ``i`` seats it at player
``i mod players``), and game ``i`` always has the seed ``{seed}-{players}p-{i}``, so two runs with
iteration budgets play the same games. A win is a sole first place; a shared first place is
counted apart. Example::

    manhattan tournament --candidate ismcts --budgets 100it,300it,1000ms --opponent greedy \\
        --players 2 4 --games 40 --jobs 2 --plot bots-win-rate.png
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from multiprocessing import Pool
from typing import Any

from manhattan.bench.arena import bot_label, play_game
from manhattan.bench.plot import plot_win_rates
from manhattan.bench.stats import wilson_interval
from manhattan.bots import BotChoice
from manhattan.bots.choice import MAX_ITERATIONS, MAX_TIME_MS
from manhattan.bots.registry import LEVELS

#: Levels that use a budget (the others ignore it, so it would only mislabel the bot).
SEARCH_LEVELS = ("ismcts", "expert")
DEFAULT_BUDGETS = "200it"


@dataclass(frozen=True, slots=True)
class Match:
    candidate: BotChoice
    opponent: BotChoice
    players: int
    index: int
    seed: str
    edition: str


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    match: Match
    won: bool
    shared_first: bool
    score: int
    best_opponent_score: int


def _play(match: Match) -> MatchOutcome:
    seat = match.index % match.players
    bots = [match.opponent] * match.players
    bots[seat] = match.candidate
    result = play_game(
        bots, seed=f"{match.seed}-{match.players}p-{match.index}", edition=match.edition
    )
    firsts = result.places.count(1)
    first = result.places[seat] == 1
    others = [s for p, s in enumerate(result.scores) if p != seat]
    return MatchOutcome(
        match, first and firsts == 1, first and firsts > 1, result.scores[seat], max(others)
    )


@dataclass
class Cell:
    """The outcomes of one candidate budget at one player count."""

    players: int
    candidate: str
    opponent: str
    games: int = 0
    wins: int = 0
    shared: int = 0
    score_sum: int = 0
    opponent_score_sum: int = 0

    def add(self, outcome: MatchOutcome) -> None:
        self.games += 1
        self.wins += outcome.won
        self.shared += outcome.shared_first
        self.score_sum += outcome.score
        self.opponent_score_sum += outcome.best_opponent_score

    def summary(self) -> dict[str, Any]:
        low, high = wilson_interval(self.wins, self.games)
        return {
            **asdict(self),
            "win_rate": self.wins / self.games if self.games else 0.0,
            "ci95": [round(low, 3), round(high, 3)],
            "mean_score": self.score_sum / max(1, self.games),
            "mean_best_opponent_score": self.opponent_score_sum / max(1, self.games),
        }


def _progress(done: int, total: int, start: float) -> None:
    width = 30
    filled = width * done // total
    elapsed = time.perf_counter() - start
    eta = elapsed / done * (total - done) if done else 0.0
    bar = "#" * filled + "-" * (width - filled)
    print(
        f"\r[{bar}] {done}/{total} games  {elapsed:.0f}s elapsed, ~{eta:.0f}s left",
        end="",
        file=sys.stderr,
        flush=True,
    )


def _outcomes(matches: list[Match], jobs: int) -> Iterator[MatchOutcome]:
    if jobs <= 1:
        yield from map(_play, matches)
        return
    with Pool(jobs) as pool:
        yield from pool.imap_unordered(_play, matches)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="manhattan tournament",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--candidate", default="ismcts", help="level of the bot under test")
    parser.add_argument(
        "--budgets",
        default=None,
        help="comma-separated candidate budgets: 500it, 1000ms, or '-' for none "
        f"(default: {DEFAULT_BUDGETS} for ismcts and expert, '-' for the others)",
    )
    parser.add_argument("--opponent", default="greedy", help="the field: a level@budget")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--games", type=int, default=20, help="games per player count and budget")
    parser.add_argument("--seed", default="tournament")
    parser.add_argument("--edition", default="classic", choices=("classic", "modern"))
    parser.add_argument("--jobs", type=int, default=1, help="games played in parallel")
    parser.add_argument("--plot", default=None, help="write a PNG of win rate against budget")
    parser.add_argument("--json", default=None, help="write the results as JSON")
    parser.add_argument("--log", default=None, help="append each game's outcome as a JSON line")
    return parser


def _bot(text: str) -> BotChoice:
    """``level`` or ``level@500it`` or ``level@1000ms`` as a ``BotChoice``, each fault said in
    the tournament's words before the game would find it."""
    level, _, budget_text = text.partition("@")
    iterations = time_ms = None
    try:
        if budget_text.endswith("ms"):
            time_ms = int(budget_text[:-2])
        elif budget_text:
            iterations = int(budget_text.removesuffix("it"))
    except ValueError:
        raise ValueError(f"bad budget in {text!r}: use 500it or 1000ms") from None
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")
    budget = iterations if iterations is not None else time_ms
    if budget is not None and level not in SEARCH_LEVELS:
        raise ValueError(f"{level} takes no budget ({text!r}); use '-'")
    high = MAX_ITERATIONS if iterations is not None else MAX_TIME_MS
    if budget is not None and not 1 <= budget <= high:
        raise ValueError(f"budget out of range in {text!r}: 1 to {high}")
    return BotChoice.of(level, 0, iterations, time_ms)


def _candidates(level: str, budgets: str | None) -> list[BotChoice]:
    if budgets is None:
        budgets = DEFAULT_BUDGETS if level in SEARCH_LEVELS else "-"
    specs = [_bot(level if b == "-" else f"{level}@{b}") for b in budgets.split(",")]
    labels = [bot_label(s) for s in specs]
    if len(set(labels)) != len(labels):
        raise ValueError(f"a budget is repeated in {budgets!r}")
    return specs


def run(argv: list[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        opponent = _bot(args.opponent)
        candidates = _candidates(args.candidate, args.budgets)
    except ValueError as exc:
        parser.error(str(exc))
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be at least 1")
    if any(not 2 <= n <= 4 for n in args.players):
        parser.error("--players takes player counts from 2 to 4")
    cells = {
        (n, bot_label(c)): Cell(n, bot_label(c), bot_label(opponent))
        for n in args.players
        for c in candidates
    }
    matches = [
        Match(c, opponent, n, i, args.seed, args.edition)
        for n in args.players
        for c in candidates
        for i in range(args.games)
    ]
    start = time.perf_counter()
    _progress(0, len(matches), start)
    for done, outcome in enumerate(_outcomes(matches, args.jobs), 1):
        cells[(outcome.match.players, bot_label(outcome.match.candidate))].add(outcome)
        if args.log:
            with open(args.log, "a") as log:
                log.write(json.dumps(_log_line(outcome)) + "\n")
        _progress(done, len(matches), start)
    print(file=sys.stderr)
    summaries = [cell.summary() for cell in cells.values()]
    _print_table(summaries)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(summaries, out, indent=2)
    if args.plot:
        plot_win_rates(summaries, candidates, args.plot)
        print(f"plot written to {args.plot}")
    return 0


def _log_line(outcome: MatchOutcome) -> dict[str, object]:
    match = outcome.match
    return {
        "players": match.players,
        "candidate": bot_label(match.candidate),
        "opponent": bot_label(match.opponent),
        "game": match.index,
        "won": outcome.won,
        "sharedFirst": outcome.shared_first,
        "score": outcome.score,
        "bestOpponentScore": outcome.best_opponent_score,
    }


def _print_table(summaries: list[dict[str, Any]]) -> None:
    print(
        f"{'players':>7}  {'candidate':<18} {'opponent':<14} {'games':>5} {'wins':>5} "
        f"{'shared':>6} {'win rate':>8}  {'95% CI':<15} {'score':>6} {'best opp':>8}"
    )
    for s in summaries:
        low, high = s["ci95"]
        print(
            f"{s['players']:>7}  {s['candidate']:<18} {s['opponent']:<14} {s['games']:>5} "
            f"{s['wins']:>5} {s['shared']:>6} {s['win_rate']:>8.1%}  "
            f"[{low:.1%}, {high:.1%}]".ljust(16)
            + f" {s['mean_score']:>6.1f} {s['mean_best_opponent_score']:>8.1f}"
        )
