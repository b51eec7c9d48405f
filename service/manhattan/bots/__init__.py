"""Bots that never cheat: each decides from its player's ``View`` alone (RULES §11).

``suggest(view, level=..., iterations=..., time_ms=..., seed=...)`` is the one entry point;
levels ``random``, ``greedy`` and ``ismcts`` (Cowling, Powley and Whitehouse 2012).
"""

from .suggestion import LEVELS, Alternative, BotError, Suggestion, suggest

__all__ = ["LEVELS", "Alternative", "BotError", "Suggestion", "suggest"]
