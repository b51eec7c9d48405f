"""Bots that never cheat: each decides from its player's ``View`` alone (RULES §11).

One interface (``Bot.suggest(view, stop)``, ``protocol.py``), one validated choice
(``BotChoice``: level, seed, iterations, timeMs) and a registry of levels: ``random``,
``beginner``, ``greedy``, ``ismcts`` (Cowling, Powley and Whitehouse 2012) and ``expert``
(``halving.py``), rated against each other by the ladder (``ladder.py``). ``suggest(view, level=...,
iterations=..., time_ms=..., seed=...)`` is the one-call entry point. The service runs bots in
worker processes (``manhattan.bot_pool``), never on its event loop.
"""

from manhattan.bots.choice import DEFAULT_LEVEL, BotChoice
from manhattan.bots.errors import BotError
from manhattan.bots.protocol import Alternative, Bot, Stop, Suggestion
from manhattan.bots.registry import BOTS, LEVELS, make_bot
from manhattan.bots.suggestion import suggest

__all__ = [
    "BOTS",
    "DEFAULT_LEVEL",
    "LEVELS",
    "Alternative",
    "Bot",
    "BotChoice",
    "BotError",
    "Stop",
    "Suggestion",
    "make_bot",
    "suggest",
]
