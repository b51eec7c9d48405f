"""The rules of Manhattan as pure functions over immutable values (RULES.md, DESIGN §3)."""

import sys as _sys

from manhattan.engine.analysis import Analysis, BuildingAnalysis, analyze
from manhattan.engine.board import is_safe
from manhattan.engine.codec import state_id
from manhattan.engine.errors import (
    IllegalMoveError,
    InvalidPlayerError,
    InvalidSetupError,
    InvalidStateError,
    ManhattanError,
)
from manhattan.engine.events import EVENT_TYPES, Event
from manhattan.engine.explain import Verdict, explain
from manhattan.engine.legality import check_move, legal_moves
from manhattan.engine.moves import Move
from manhattan.engine.pickling import register as _register
from manhattan.engine.play import Game, Transition, apply_move, play
from manhattan.engine.preview import Preview, preview, preview_all
from manhattan.engine.records import Breakdown, RoundRecord, Urban
from manhattan.engine.rules import Rules, Variants
from manhattan.engine.scoring import Placing, RoundScore, player_totals, ranking, score_round
from manhattan.engine.setup import SETUP_FIELDS, new_game, new_game_from_setup
from manhattan.engine.state import State
from manhattan.engine.threats import Threats, threats
from manhattan.engine.urban import URBAN_CARDS
from manhattan.engine.view import View, sample_state, view

# Every engine module is loaded now: their frozen values pickle alike in both builds.
_register(m for name, m in list(_sys.modules.items()) if name.startswith(f"{__name__}."))


def player_scores(state: State) -> list[int]:
    """Each player's total: the sum of their colors' scores (RULES §7)."""
    return player_totals(state.scores, state.rules.colors)


#: Part of every cache key: bump when a rule's outcome changes.
RULES_VERSION = 1

__all__ = [
    "EVENT_TYPES",
    "RULES_VERSION",
    "SETUP_FIELDS",
    "URBAN_CARDS",
    "Analysis",
    "Breakdown",
    "BuildingAnalysis",
    "Event",
    "Game",
    "IllegalMoveError",
    "InvalidPlayerError",
    "InvalidSetupError",
    "InvalidStateError",
    "ManhattanError",
    "Move",
    "Placing",
    "Preview",
    "RoundRecord",
    "RoundScore",
    "Rules",
    "State",
    "Threats",
    "Transition",
    "Urban",
    "Variants",
    "Verdict",
    "View",
    "analyze",
    "apply_move",
    "check_move",
    "explain",
    "is_safe",
    "legal_moves",
    "new_game",
    "new_game_from_setup",
    "play",
    "player_scores",
    "preview",
    "preview_all",
    "ranking",
    "sample_state",
    "score_round",
    "state_id",
    "threats",
    "view",
]
