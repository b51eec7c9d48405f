"""The bot registry: level name -> ``Bot`` class (as OpenSpiel's ``bots`` registry).
``make_bot(choice)`` is the only way the service, tables and tools build a bot."""

from __future__ import annotations

from .choice import BotChoice
from .levels import GreedyBot, IsmctsBot, RandomBot
from .protocol import Bot

BOTS: dict[str, type[Bot]] = {cls.level: cls for cls in (RandomBot, GreedyBot, IsmctsBot)}
LEVELS = tuple(BOTS)


def make_bot(choice: BotChoice) -> Bot:
    """The bot of a (validated) choice."""
    return BOTS[choice.level](choice)
