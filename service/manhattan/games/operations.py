"""The operations both interfaces expose (DESIGN §4), as engine values in and out.

REST and GraphQL are thin encoders over this package: they read their wire form into a
``StateRef`` and plain move objects, call one method of ``Operations``, and render the result.
The package resolves state references (JSON, cached id, sealed token: ``states``), applies the
trust policy (strict mode, tokens issued to one player: ``refs``), calls the engine
(``transitions``, and the reading operations here) and the bots (``sessions``), and mints ids and
tokens. It holds no rules logic.
"""

from __future__ import annotations

from typing import Any

import manhattan
from manhattan import Move, State
from manhattan.bot_pool import BotPool
from manhattan.engine.events import EVENT_TYPES
from manhattan.engine.moves import MOVE_TYPES
from manhattan.engine.rules import EDITIONS, MONSTERS
from manhattan.games.encoding import moves_json
from manhattan.games.memo import DerivedResults, ParsedStates
from manhattan.games.positions import LatestPositions
from manhattan.games.refs import NO_CALLER, Caller, StateRef
from manhattan.games.results import ScoreReport, Sealed
from manhattan.games.sessions import Sessions
from manhattan.games.suggestions import BotBudget, bot_levels
from manhattan.games.transitions import Transitions
from manhattan.render import render_svg
from manhattan.sealing import Sealer
from manhattan.store.cache import StateCache
from manhattan.wire.codes import HTTP_STATUS


class Operations(Transitions, Sessions):
    """Every operation of the service, over one cache, one sealer and one bot pool."""

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
        self.positions = positions if strict_states else None
        self.cache = cache
        self.sealer = sealer
        self.strict_states = strict_states
        self.max_moves = max_moves
        self._parsed = ParsedStates(parsed_states)
        self._derived = DerivedResults(parsed_states)
        self.bot_budget = bot_budget or BotBudget()
        self.bot_pool = bot_pool or BotPool()

    # -- legal moves -----------------------------------------------------------------------
    async def _listed(self, ref: StateRef) -> State | None:
        """The state whose legal moves the caller may list, or None (no moves to list): a
        player's token only lists that player's own moves."""
        resolved = await self.resolve(ref)
        state = resolved.state
        return None if resolved.player is not None and state.to_move != resolved.player else state

    async def legal_moves(self, ref: StateRef) -> list[Move]:
        state = await self._listed(ref)
        return [] if state is None else list(self._derived.get("legal", state, _legal_moves))

    async def legal_moves_body(self, ref: StateRef) -> bytes:
        """REST's ``{"moves": [...]}`` as JSON bytes. For a state named by id the encoded body is
        a pure result, cached under ``legal:{id}``: a hit skips the state, the engine and the
        encoder. For a state already parsed (sent again inline) the body is kept by the state
        object. (GraphQL must build typed objects anyway, so it uses ``legal_moves``.)"""
        cacheable = ref.id is not None and ref.player is None and ref.game is None
        if cacheable:
            assert ref.id is not None
            cached = await self.cache.load_result("legal", ref.id)
            if cached is not None:
                return cached
        state = await self._listed(ref)
        body = (
            moves_json([])
            if state is None
            else self._derived.get("legal.json", state, _legal_moves_json)
        )
        if cacheable:
            assert ref.id is not None
            await self.cache.save_result("legal", ref.id, body)
        return body

    # -- reading ---------------------------------------------------------------------------
    async def score(self, ref: StateRef) -> ScoreReport:
        resolved = await self.resolve(ref)
        return ScoreReport(resolved.state, resolved.player)

    async def view(self, ref: StateRef, player: object) -> Sealed:
        resolved = await self.resolve(ref)
        return await self.seal(resolved.state, resolved.seat(player))

    async def store(self, ref: StateRef) -> Sealed:
        resolved = await self.resolve(ref)
        return await self.seal(resolved.state, resolved.player)

    async def load(self, state_id: str, caller: Caller = NO_CALLER) -> Sealed:
        resolved = await self.resolve(StateRef(id=state_id).bound(caller))
        return await self.seal(resolved.state, resolved.player)

    # -- analysis (issue 9): on what the caller may know -----------------------------------
    async def analysis(self, ref: StateRef) -> manhattan.Analysis:
        return manhattan.analyze((await self.resolve(ref)).known)

    async def preview(self, ref: StateRef, move_obj: object = None) -> Any:
        """What ``move_obj`` would change; without a move, a list: every legal move previewed."""
        known = (await self.resolve(ref)).known
        if move_obj is None:
            return manhattan.preview_all(known)
        return manhattan.preview(known, self.read_move(move_obj))

    async def threats(self, ref: StateRef, player: object) -> manhattan.Threats:
        resolved = await self.resolve(ref)
        seat = resolved.seat(resolved.player if player is None else player)
        return manhattan.threats(manhattan.view(resolved.state, seat))

    async def render_svg(self, ref: StateRef, player: object = None) -> str:
        """The board picture of the state, or of a player's view (always, for a player's token)."""
        resolved = await self.resolve(ref)
        if player is not None or resolved.player is not None:
            seat = resolved.seat(resolved.player if player is None else player)
            return render_svg(manhattan.view(resolved.state, seat))
        return render_svg(resolved.state)


def _legal_moves(state: State) -> tuple[Move, ...]:
    return tuple(manhattan.legal_moves(state))


def _legal_moves_json(state: State) -> bytes:
    return moves_json(manhattan.legal_moves(state))


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
