"""The bots' measured strengths: the ladder that ``manhattan bench ladder`` wrote, shipped with
the package (``ladder.json`` beside this module) and served by ``GET /v1/bots`` and GraphQL
``bots``.

Each level at its default budget has an OpenSkill (Plackett-Luce) rating, the model of the
platforms' ratings, from many 2-, 3- and 4-player games between the levels, so that a platform
picks the bot whose rating is nearest its player's, and a bot's seat at a rated table counts at
its ladder rating (``manhattan.platforms.ratings``).
"""

from __future__ import annotations

import functools
from importlib import resources

import msgspec

from manhattan.bots.choice import BotChoice, BotLevel
from manhattan.bots.registry import BOTS

LADDER_FILE = "ladder.json"


class LadderLevel(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """A bot level at its default budget and its rating on the ladder: ``ordinal`` is
    ``mu - 3 sigma``, as the platforms' ratings say it."""

    level: BotLevel
    description: str
    #: The level's default budget in search iterations a move (null: the level does not search).
    iterations: int | None
    mu: float
    sigma: float
    ordinal: float
    #: Ladder games the level played.
    games: int


class Ladder(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """``GET /v1/bots``: every level, strongest first, and how the ratings were measured."""

    bots: list[LadderLevel]
    #: The command that measured them (``manhattan bench ladder ...``) and its games and seed.
    command: str
    games: int
    seed: str
    model: str = "openskill PlackettLuce"


@functools.cache
def ladder() -> Ladder:
    """The shipped ladder (read once)."""
    data = resources.files("manhattan.bots").joinpath(LADDER_FILE).read_bytes()
    return msgspec.json.decode(data, type=Ladder)


def ladder_level(choice: BotChoice) -> LadderLevel | None:
    """The ladder's rating of a bot choice: its level at the ladder's budget (a choice without
    a budget plays the default); None for another budget, a budget in time, or an unrated
    level."""
    if choice.time_ms is not None:
        return None
    iterations = choice.iterations
    if iterations is None:
        iterations = BOTS[choice.level].default_iterations
    for entry in ladder().bots:
        if entry.level == choice.level and entry.iterations == iterations:
            return entry
    return None
