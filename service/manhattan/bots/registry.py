"""The bot registry: level name -> ``Bot`` class (as OpenSpiel's ``bots`` registry).
``make_bot(choice)`` is the only way the service, tables and tools build a bot."""

from __future__ import annotations

from manhattan.bots.choice import LEVELS, BotChoice
from manhattan.bots.levels import BeginnerBot, ExpertBot, GreedyBot, IsmctsBot, RandomBot
from manhattan.bots.protocol import Bot

#: One bot per level of ``choice.BotLevel``, in the same order (``LEVELS``; a test checks).
BOTS: dict[str, type[Bot]] = {
    cls.level: cls for cls in (RandomBot, BeginnerBot, GreedyBot, IsmctsBot, ExpertBot)
}

__all__ = ["BOTS", "LEVELS", "make_bot"]


def make_bot(choice: BotChoice) -> Bot:
    """The bot of a (validated) choice."""
    return BOTS[choice.level](choice)
