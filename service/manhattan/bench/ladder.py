"""``manhattan bench ladder``: the bot levels rated against each other, written as the shipped
ladder (``manhattan/bots/ladder.json``) that ``GET /v1/bots`` serves.

Game ``i`` has ``players[i mod len(players)]`` players, the seed ``{seed}-{i}``, and its seats
taken by distinct levels drawn from that seed, each at its default budget (iterations: the same
games on every machine). After each game, in game order, the seated levels' ratings are updated
with the OpenSkill Plackett-Luce model the platforms' ratings use (equal places are ties), from
the model's default start. Example::

    manhattan bench ladder --games 60 --jobs 2
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

import msgspec
from openskill.models import PlackettLuce

from manhattan.bench.arena import play_game
from manhattan.bots import BotChoice
from manhattan.bots.ladder import LADDER_FILE, Ladder, LadderLevel
from manhattan.bots.registry import BOTS, LEVELS

DEFAULT_GAMES = 60
DEFAULT_SEED = "ladder"


@dataclass(frozen=True, slots=True)
class LadderGame:
    index: int
    levels: tuple[str, ...]  # per seat
    seed: str


def schedule(levels: list[str], games: int, players: list[int], seed: str) -> list[LadderGame]:
    """The games to play: player counts in turn, seats drawn from each game's seed."""
    out = []
    for i in range(games):
        count = min(players[i % len(players)], len(levels))
        drawn = random.Random(f"{seed}-{i}").sample(levels, count)
        out.append(LadderGame(i, tuple(drawn), f"{seed}-{i}"))
    return out


def _play(game: LadderGame) -> tuple[LadderGame, tuple[int, ...]]:
    bots = [BotChoice.of(level) for level in game.levels]
    return game, play_game(bots, seed=game.seed).places


def _played(games: list[LadderGame], jobs: int) -> Iterator[tuple[LadderGame, tuple[int, ...]]]:
    if jobs <= 1:
        yield from map(_play, games)
        return
    with Pool(jobs) as pool:  # in game order: the ratings depend on it
        yield from pool.imap(_play, games)


def rate(
    levels: list[str], results: Iterator[tuple[LadderGame, tuple[int, ...]]]
) -> tuple[dict[str, tuple[float, float]], dict[str, int]]:
    """Each level's (mu, sigma) after the games in order, and its games played."""
    model = PlackettLuce()
    ratings = {level: model.rating(name=level) for level in levels}
    played = dict.fromkeys(levels, 0)
    for game, places in results:
        teams = [[ratings[level]] for level in game.levels]
        rated = model.rate(teams, ranks=[float(p) for p in places])
        for level, team in zip(game.levels, rated, strict=True):
            ratings[level] = team[0]
            played[level] += 1
    return {k: (float(r.mu), float(r.sigma)) for k, r in ratings.items()}, played


def build_ladder(
    levels: list[str], ratings: dict[str, tuple[float, float]], played: dict[str, int], **how: str
) -> Ladder:
    """The ladder document: each level at its default budget, best ordinal first."""
    entries = [
        LadderLevel(
            level=level,  # type: ignore[arg-type]  # checked against LEVELS by the parser
            description=BOTS[level].description,
            iterations=BOTS[level].default_iterations,
            mu=round(mu, 3),
            sigma=round(sigma, 3),
            # from the rounded figures, so that the document's ordinal is its mu - 3 sigma
            ordinal=round(round(mu, 3) - 3 * round(sigma, 3), 3),
            games=played[level],
        )
        for level, (mu, sigma) in ratings.items()
    ]
    entries.sort(key=lambda e: -e.ordinal)
    return Ladder(bots=entries, command=how["command"], games=int(how["games"]), seed=how["seed"])


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="manhattan bench ladder",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES)
    parser.add_argument("--seed", default=DEFAULT_SEED)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--levels", default=",".join(LEVELS), help="comma-separated levels")
    parser.add_argument("--jobs", type=int, default=1, help="games played in parallel")
    parser.add_argument(
        "--out",
        default=str(Path(__file__).resolve().parent.parent / "bots" / LADDER_FILE),
        help="where to write the ladder (default: the package's shipped file)",
    )
    return parser


def run(argv: list[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    levels = args.levels.split(",")
    unknown = [level for level in levels if level not in LEVELS]
    if unknown or len(set(levels)) != len(levels) or len(levels) < 2:
        parser.error(f"--levels takes two or more distinct levels of {', '.join(LEVELS)}")
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be at least 1")
    if any(not 2 <= n <= 4 for n in args.players):
        parser.error("--players takes player counts from 2 to 4")
    games = schedule(levels, args.games, args.players, args.seed)
    start = time.perf_counter()

    def progress() -> Iterator[tuple[LadderGame, tuple[int, ...]]]:
        for done, result in enumerate(_played(games, args.jobs), 1):
            elapsed = time.perf_counter() - start
            print(f"\r{done}/{len(games)} games, {elapsed:.0f}s", end="", file=sys.stderr)
            yield result
        print(file=sys.stderr)

    ratings, played = rate(levels, progress())
    players = " ".join(str(n) for n in args.players)
    command = (
        f"manhattan bench ladder --games {args.games} --seed {args.seed} --players {players} "
        f"--levels {','.join(levels)}"
    )
    ladder = build_ladder(
        levels, ratings, played, command=command, games=str(args.games), seed=args.seed
    )
    Path(args.out).write_bytes(msgspec.json.format(msgspec.json.encode(ladder)) + b"\n")
    _print_table(ladder)
    print(f"ladder written to {args.out}")
    return 0


def _print_table(ladder: Ladder) -> None:
    print(f"{'level':<10} {'iterations':>10} {'mu':>7} {'sigma':>6} {'ordinal':>8} {'games':>6}")
    for e in ladder.bots:
        budget = "-" if e.iterations is None else str(e.iterations)
        print(
            f"{e.level:<10} {budget:>10} {e.mu:>7.2f} {e.sigma:>6.2f} {e.ordinal:>8.2f} "
            f"{e.games:>6}"
        )
