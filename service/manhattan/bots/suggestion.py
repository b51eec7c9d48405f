"""``suggest``: one call for a move, from a bot that sees only its player's ``View``.

``suggest(view, level=..., iterations=..., time_ms=..., seed=...)`` builds a ``BotChoice``
(checked: ``BotError`` with ``INVALID_BOT``) and asks the registry's bot. With a budget in
``iterations`` the same view and seed always give the same suggestion; a ``time_ms`` budget
depends on the machine's speed, so its suggestion is not reproducible (the number of iterations
done is in ``stats``). ``stop`` bounds the work by a deadline or a cancel flag (the bot pool's).
"""

from __future__ import annotations

from manhattan.bots.choice import DEFAULT_LEVEL, BotChoice
from manhattan.bots.protocol import NEVER, Stop, Suggestion
from manhattan.bots.registry import make_bot
from manhattan.engine import View


def suggest(
    view: View,
    *,
    level: str = DEFAULT_LEVEL,
    iterations: int | None = None,
    time_ms: int | None = None,
    seed: int = 0,
    stop: Stop = NEVER,
) -> Suggestion:
    """A move for ``view.player``, who must be to move."""
    choice = BotChoice.of(level, seed, iterations, time_ms)
    return make_bot(choice).suggest(view, stop)
