"""The stateless game service (DESIGN §4), transport-neutral: resolve a state (inline, by id or by
sealed token), legal moves, apply, score, views, previews, analysis and bot suggestions through
the bot pool. ``api/rest`` and ``api/graphql`` adapt it to HTTP; it knows neither.

- ``refs``: how a request names a state (``StateRef``) and who asks (``Caller``);
- ``states``: references resolved, results stored and sealed, strict mode's latest positions
  (``positions``), over the memos of ``memo``;
- ``transitions``: new games, moves, replays; ``sessions``: bot moves (``suggestions``);
- ``operations``: ``Operations``, all of them, and the reading ones;
- ``results``: what they answer; ``errors``: ``GameError``; ``encoding``: the JSON they write.
"""

from manhattan.games.errors import GameError
from manhattan.games.operations import Operations, rules_info
from manhattan.games.positions import LatestPositions
from manhattan.games.refs import (
    GAME_HEADER,
    NO_CALLER,
    PLAYER_HEADER,
    Caller,
    Resolved,
    StateRef,
    game_id,
)
from manhattan.games.results import Applied, Replayed, ScoreReport, Sealed, Validation
from manhattan.games.suggestions import BotBudget, BotTurn, bot_turn

__all__ = [
    "GAME_HEADER",
    "NO_CALLER",
    "PLAYER_HEADER",
    "Applied",
    "BotBudget",
    "BotTurn",
    "Caller",
    "GameError",
    "LatestPositions",
    "Operations",
    "Replayed",
    "Resolved",
    "ScoreReport",
    "Sealed",
    "StateRef",
    "Validation",
    "bot_turn",
    "game_id",
    "rules_info",
]
