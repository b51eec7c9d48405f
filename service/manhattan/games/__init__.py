"""The stateless game service (DESIGN §4), transport-neutral: resolve a state (inline, by id or by
sealed token), legal moves, apply, score, views, previews, analysis and bot suggestions through
the bot pool. ``api/rest`` and ``api/graphql`` adapt it to HTTP; it knows neither.

- ``refs``: how a request names a state (``StateRef``) and who asks (``Caller``);
- ``states``: references resolved, results stored and sealed, strict mode's latest positions
  (``positions``), over the memos of ``memo``; ``move_reader``: a request's moves, read once;
- ``readings``: legal moves, scores, views, analysis; ``transitions``: new games, moves,
  replays; ``sessions``: bot moves (``suggestions``);
- ``operations``: ``Operations``, composed of those parts;
- ``results``: what they answer; ``errors``: ``GameError``.
"""

from manhattan.games.errors import GameError
from manhattan.games.memo import StateText
from manhattan.games.move_reader import MoveReader
from manhattan.games.operations import Operations, rules_info
from manhattan.games.positions import LatestPositions
from manhattan.games.readings import MovesEncoder, Readings
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
from manhattan.games.sessions import BotSessions
from manhattan.games.states import States
from manhattan.games.suggestions import BotBudget, BotTurn, bot_turn
from manhattan.games.transitions import Transitions

__all__ = [
    "GAME_HEADER",
    "NO_CALLER",
    "PLAYER_HEADER",
    "Applied",
    "BotBudget",
    "BotSessions",
    "BotTurn",
    "Caller",
    "GameError",
    "LatestPositions",
    "MoveReader",
    "MovesEncoder",
    "Operations",
    "Readings",
    "Replayed",
    "Resolved",
    "ScoreReport",
    "Sealed",
    "StateRef",
    "StateText",
    "States",
    "Transitions",
    "Validation",
    "bot_turn",
    "game_id",
    "rules_info",
]
