"""The operations both interfaces expose (DESIGN §4), as engine values in and out.

REST and GraphQL are thin encoders over this package: they read their wire form into a
``StateRef`` and engine moves, call one method of ``Operations``, and render the result.
``Operations`` is composed of one part per concern, each handed what it needs:

- ``states`` (``States``): references resolved (JSON, cached id, sealed token) under the trust
  policy, results stored and sealed, strict mode's latest positions;
- ``moves`` (``MoveReader``): a request's moves read, once, before any state is looked at;
- ``readings`` (``Readings``): legal moves, scores, views, analysis, previews, threats, SVG;
- ``transitions`` (``Transitions``): new games, moves applied, replays, a move validated;
- ``sessions`` (``BotSessions``): bot suggestions and a player's session step, in the bot pool.

It holds no rules logic.
"""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from typing import Any

import manhattan
from manhattan import Move, State
from manhattan.bot_pool import BotPool
from manhattan.bots import BotChoice, Suggestion
from manhattan.engine.events import EVENT_TYPES
from manhattan.engine.moves import MOVE_TYPES
from manhattan.engine.rules import EDITIONS, MONSTERS
from manhattan.games.move_reader import MoveReader
from manhattan.games.positions import LatestPositions
from manhattan.games.readings import MovesEncoder, Readings
from manhattan.games.refs import NO_CALLER, Caller, Resolved, StateRef
from manhattan.games.results import Applied, Replayed, ScoreReport, Sealed, Validation
from manhattan.games.sessions import BotSessions
from manhattan.games.states import States
from manhattan.games.suggestions import BotBudget, bot_levels
from manhattan.games.transitions import Transitions
from manhattan.sealing import Sealer
from manhattan.store.cache import StateCache
from manhattan.wire.codes import HTTP_STATUS


class Operations:
    """Every operation of the service, over one cache, one sealer and one bot pool: each call
    goes to the part that does it (see the module's docstring)."""

    def __init__(
        self,
        cache: StateCache,
        sealer: Sealer,
        *,
        strict_states: bool = False,
        max_moves: int = 2_000,
        parsed_states: int = 1_024,
        bot_budget: BotBudget | None = None,
        positions: LatestPositions | None = None,
        bot_pool: BotPool | None = None,
    ) -> None:
        self.states = States(
            cache,
            sealer,
            strict_states=strict_states,
            positions=positions,
            parsed_states=parsed_states,
        )
        self.moves = MoveReader(max_moves)
        self.readings = Readings(self.states, self.moves)
        self.transitions = Transitions(self.states, self.moves)
        self.bot_pool = bot_pool or BotPool()
        self.sessions = BotSessions(
            self.states, self.moves, self.bot_pool, bot_budget or BotBudget()
        )

    # -- what the parts share ----------------------------------------------------------------
    @property
    def cache(self) -> StateCache:
        return self.states.cache

    @property
    def sealer(self) -> Sealer:
        return self.states.sealer

    @property
    def strict_states(self) -> bool:
        return self.states.strict_states

    @property
    def positions(self) -> LatestPositions | None:
        return self.states.positions

    def resolve(self, ref: StateRef) -> Coroutine[Any, Any, Resolved]:
        return self.states.resolve(ref)

    def parsed_text(self, text: bytes) -> State | None:
        """The state a request body of exactly these bytes held, if it was parsed recently
        (sent as a ``memo.StateText``); a reference may name it as its JSON."""
        return self.states.parsed.by_text(text)

    def read_move(self, obj: object) -> Move:
        return self.moves.one(obj)

    def read_moves(self, objs: object) -> list[Move]:
        return self.moves.listed(objs)

    # -- reading -------------------------------------------------------------------------------
    def legal_moves(self, ref: StateRef) -> Coroutine[Any, Any, list[Move]]:
        return self.readings.legal_moves(ref)

    def legal_moves_encoded(
        self, ref: StateRef, kind: str, encode: MovesEncoder
    ) -> Coroutine[Any, Any, bytes]:
        return self.readings.legal_moves_encoded(ref, kind, encode)

    def score(self, ref: StateRef) -> Coroutine[Any, Any, ScoreReport]:
        return self.readings.score(ref)

    def view(self, ref: StateRef, player: object) -> Coroutine[Any, Any, Sealed]:
        return self.readings.view(ref, player)

    def store(self, ref: StateRef) -> Coroutine[Any, Any, Sealed]:
        return self.readings.store(ref)

    def load(self, state_id: str, caller: Caller = NO_CALLER) -> Coroutine[Any, Any, Sealed]:
        return self.readings.load(state_id, caller)

    def analysis(self, ref: StateRef) -> Coroutine[Any, Any, manhattan.Analysis]:
        return self.readings.analysis(ref)

    def preview(self, ref: StateRef, move_obj: object = None) -> Coroutine[Any, Any, Any]:
        return self.readings.preview(ref, move_obj)

    def threats(self, ref: StateRef, player: object) -> Coroutine[Any, Any, manhattan.Threats]:
        return self.readings.threats(ref, player)

    def render_svg(self, ref: StateRef, player: object = None) -> Coroutine[Any, Any, str]:
        return self.readings.render_svg(ref, player)

    # -- new positions ---------------------------------------------------------------------------
    def new_game_state(self, setup: object) -> State:
        return self.transitions.new_game_state(setup)

    def new_game(self, setup: object, caller: Caller = NO_CALLER) -> Coroutine[Any, Any, Sealed]:
        return self.transitions.new_game(setup, caller)

    def validate(self, ref: StateRef, move_obj: object) -> Coroutine[Any, Any, Validation]:
        return self.transitions.validate(ref, move_obj)

    def apply(self, ref: StateRef, moves: Sequence[Move]) -> Coroutine[Any, Any, Applied]:
        return self.transitions.apply(ref, moves)

    def replay(self, game: object, caller: Caller = NO_CALLER) -> Coroutine[Any, Any, Replayed]:
        return self.transitions.replay(game, caller)

    # -- bots ------------------------------------------------------------------------------------
    def suggest(
        self, ref: StateRef, player: object, choice: BotChoice, *, deadline: float | None = None
    ) -> Coroutine[Any, Any, Suggestion]:
        return self.sessions.suggest(ref, player, choice, deadline=deadline)

    def advance(
        self,
        ref: StateRef,
        *,
        player: object = None,
        move: object = None,
        choice: BotChoice | None = None,
        deadline: float | None = None,
    ) -> Coroutine[Any, Any, Applied]:
        return self.sessions.advance(
            ref, player=player, move=move, choice=choice, deadline=deadline
        )


def rules_info() -> dict[str, Any]:
    """What the service adjudicates: versions, formats, vocabularies (GET /v1/rules)."""
    return {
        "rulesVersion": manhattan.RULES_VERSION,
        "stateFormat": "manhattan/state@1",
        "viewFormat": "manhattan/view@1",
        "editions": list(EDITIONS),
        "players": [2, 3, 4],
        "variants": ["antiTrust", "slowGrowth", "urbanRules", "reshuffleEachRound", "monster"],
        "monsters": list(MONSTERS),
        "urbanCards": list(manhattan.URBAN_CARDS),
        "moveTypes": list(MOVE_TYPES),
        "eventTypes": list(EVENT_TYPES),
        "errorCodes": {code: status for code, status in HTTP_STATUS.items()},
        "bots": bot_levels(),
    }
