"""The operations both interfaces expose (DESIGN §4), as engine values in and out.

REST and GraphQL are thin encoders over this module: they read their wire form into a
``StateRef`` and plain move objects, call one method here, and render the result. This module
resolves state references (JSON, cached id, sealed token), applies the trust policy (strict mode,
tokens issued to one player), calls the engine and mints ids and tokens. It holds no rules logic.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import manhattan
from manhattan import Event, Move, State, View

from ..sealing import Sealer
from ..store import StateCache
from .encoding import encode
from .errors import ApiError
from .suggestions import BotBudget, Suggestion, bot_levels, suggest_move

_STATE_ID = re.compile(r"[0-9a-f]{32}")
SETUP_KEYS = {
    "players": "players",
    "seed": "seed",
    "edition": "edition",
    "variants": "variants",
    "seats": "seats",
    "firstPlayer": "first_player",
    "rounds": "rounds",
    "piecesPerRound": "pieces_per_round",
    "colors": "colors",
    "monsterStart": "monster_start",
}


@dataclass(frozen=True, slots=True)
class StateRef:
    """A state as a request names it: exactly one of the JSON object, a cached id or a token."""

    json: object = None
    id: str | None = None
    token: str | None = None

    @classmethod
    def from_wire(cls, value: object) -> StateRef:
        """REST: the state object itself, or ``{"id": ...}``, or ``{"token": ...}``."""
        if isinstance(value, dict) and len(value) == 1:
            if "id" in value:
                return cls(id=_text(value["id"], "state.id"))
            if "token" in value:
                return cls(token=_text(value["token"], "state.token"))
        if value is None:
            raise ApiError("INVALID_REQUEST", "'state' is required", path="$.state")
        return cls(json=value)


@dataclass(slots=True)
class Resolved:
    """A state read from a request; ``player`` is set when a token was issued to one player."""

    state: State
    player: int | None = None
    _id: str | None = None

    @property
    def state_id(self) -> str:
        if self._id is None:
            self._id = manhattan.state_id(self.state)
        return self._id


@dataclass(frozen=True, slots=True)
class Sealed:
    """A state as the service hands it out. When ``player`` is set the result is addressed to
    that player: it carries their view and a token issued to them, and no full state or id."""

    state: State
    state_id: str
    token: str
    player: int | None = None
    view: View | None = None
    strict: bool = False

    @property
    def shows_state(self) -> bool:
        return self.player is None and not self.strict


@dataclass(frozen=True, slots=True)
class Applied:
    sealed: Sealed
    events: list[Event]
    moves: list[Move]


@dataclass(frozen=True, slots=True)
class Validation:
    legal: bool
    move: Move | None = None
    error: ApiError | None = None


@dataclass(frozen=True, slots=True)
class ScoreReport:
    state: State

    @property
    def player_totals(self) -> list[int]:
        return manhattan.player_scores(self.state)

    def to_json(self) -> dict[str, Any]:
        state = self.state
        return {
            "round": state.round,
            "phase": state.phase,
            "scores": list(state.scores),
            "players": self.player_totals,
            "history": [r.to_json() for r in state.history],
            "ifRoundEndedNow": manhattan.score_round(state).to_json(),
            "ranking": [p.to_json() for p in manhattan.ranking(state)],
        }


@dataclass(frozen=True, slots=True)
class Replayed:
    sealed: Sealed
    moves_applied: int
    ranking: list[manhattan.Placing] = field(default_factory=list)


class Operations:
    """Every operation of the service, over one cache and one sealer."""

    def __init__(
        self,
        cache: StateCache,
        sealer: Sealer,
        *,
        strict_states: bool = False,
        max_moves: int = 2_000,
        parsed_states: int = 1_024,
        bot_budget: BotBudget | None = None,
    ) -> None:
        self.bot_budget = bot_budget or BotBudget()
        self.cache = cache
        self.sealer = sealer
        self.strict_states = strict_states
        self.max_moves = max_moves
        # Ids are content hashes, so a parsed state is valid forever: keep recent ones parsed.
        self._parsed: OrderedDict[str, State] = OrderedDict()
        self._parsed_max = parsed_states

    # -- state references ----------------------------------------------------------------
    async def resolve(self, ref: StateRef) -> Resolved:
        if ref.token is not None:
            unsealed = self.sealer.unseal(ref.token)
            return Resolved(State.from_msgpack(unsealed.state), unsealed.player)
        if ref.id is not None:
            return Resolved(await self._load(ref.id), None, ref.id)
        if self.strict_states:
            raise ApiError(
                "STATE_JSON_REFUSED",
                "this service accepts states only as sealed tokens or cached ids",
            )
        return Resolved(State.from_json(ref.json))

    async def _load(self, state_id: str) -> State:
        if not _STATE_ID.fullmatch(state_id):
            raise ApiError("STATE_NOT_FOUND", "a state id is 32 lowercase hex characters")
        state = self._parsed.get(state_id)
        if state is not None:
            self._parsed.move_to_end(state_id)
            return state
        data = await self.cache.load_state(state_id)
        if data is not None:
            state = State.from_msgpack(data)
            if manhattan.state_id(state) == state_id:  # DESIGN §6: re-hashed, a mismatch is a miss
                self._remember(state_id, state)
                return state
        raise ApiError("STATE_NOT_FOUND", f"no cached state with id {state_id}; send the state")

    def _remember(self, state_id: str, state: State) -> None:
        self._parsed[state_id] = state
        if len(self._parsed) > self._parsed_max:
            self._parsed.popitem(last=False)

    async def seal(self, state: State, player: int | None = None) -> Sealed:
        """Store ``state`` under its id and mint a token (issued to ``player`` if given)."""
        data = state.to_msgpack()
        state_id = manhattan.state_id(state)
        await self.cache.save_state(state_id, data)
        self._remember(state_id, state)
        token = self.sealer.seal(data, player)
        view = None if player is None else manhattan.view(state, player)
        return Sealed(state, state_id, token, player, view, self.strict_states)

    # -- moves ---------------------------------------------------------------------------
    @staticmethod
    def read_move(obj: object, index: int | None = None) -> Move:
        """A move as JSON (DESIGN §2), as notation text, or as ``{"notation": ...}``."""
        try:
            if isinstance(obj, str):
                return Move.parse(obj)
            if isinstance(obj, dict) and set(obj) == {"notation"}:
                return Move.parse(obj["notation"])
            return Move.from_json(obj)
        except manhattan.IllegalMoveError as exc:
            raise ApiError(exc.code, exc.message, index=index) from None

    def read_moves(self, objs: object) -> list[Move]:
        if not isinstance(objs, list):
            raise ApiError("INVALID_MOVE", "'moves' is a list of moves")
        if len(objs) > self.max_moves:
            raise ApiError("PAYLOAD_TOO_LARGE", f"at most {self.max_moves} moves in one request")
        return [self.read_move(obj, i) for i, obj in enumerate(objs)]

    async def legal_moves(self, ref: StateRef) -> list[Move]:
        resolved = await self.resolve(ref)
        state = resolved.state
        if resolved.player is not None and state.to_move != resolved.player:
            return []  # a player's token only lists that player's own moves
        return manhattan.legal_moves(state)

    async def legal_moves_body(self, ref: StateRef) -> bytes:
        """REST's ``{"moves": [...]}`` as JSON bytes. For a state named by id the encoded body is
        a pure result, cached under ``legal:{id}``: a hit skips the state, the engine and the
        encoder. (GraphQL must build typed objects anyway, so it uses ``legal_moves``; with the
        parsed-state LRU an id is already cheap there.)"""
        if ref.id is not None:
            cached = await self.cache.load_result("legal", ref.id)
            if cached is not None:
                return cached
        moves = await self.legal_moves(ref)
        body = encode({"moves": [m.to_json() for m in moves]}, as_msgpack=False)
        if ref.id is not None:
            await self.cache.save_result("legal", ref.id, body)
        return body

    async def validate(self, ref: StateRef, move_obj: object) -> Validation:
        resolved = await self.resolve(ref)
        move = self.read_move(move_obj)
        self._check_mover(resolved, move)
        try:
            return Validation(True, manhattan.check_move(resolved.state, move))
        except manhattan.IllegalMoveError as exc:
            return Validation(False, None, ApiError(exc.code, exc.message))

    async def apply(self, ref: StateRef, move_objs: Sequence[object]) -> Applied:
        resolved = await self.resolve(ref)
        several = len(move_objs) > 1
        moves = [self.read_move(m, i if several else None) for i, m in enumerate(move_objs)]
        state = resolved.state
        events: list[Event] = []
        played: list[Move] = []
        for i, move in enumerate(moves):
            index = i if len(moves) > 1 else None
            self._check_mover(resolved, move, state, index)
            try:
                transition = manhattan.play(state, move)
            except manhattan.IllegalMoveError as exc:
                raise ApiError(exc.code, exc.message, index=index) from None
            state = transition.state
            events.extend(transition.events)
            played.append(transition.move)
        if resolved.player is not None:
            events = [e for e in events if e.visible_for(resolved.player)]
        return Applied(await self.seal(state, resolved.player), events, played)

    def _check_mover(
        self, resolved: Resolved, move: Move, state: State | None = None, index: int | None = None
    ) -> None:
        player = resolved.player
        current = (state or resolved.state).to_move
        if player is not None and current is not None and current != player:
            raise ApiError(
                "ILLEGAL_MOVE",
                f"this token was issued to player {player}; it is player {current}'s turn",
                index=index,
            )

    # -- reading -------------------------------------------------------------------------
    async def score(self, ref: StateRef) -> ScoreReport:
        return ScoreReport((await self.resolve(ref)).state)

    async def view(self, ref: StateRef, player: object) -> Sealed:
        resolved = await self.resolve(ref)
        seat = self._player(resolved, player)
        return await self.seal(resolved.state, seat)

    def _player(self, resolved: Resolved, player: object) -> int:
        players = resolved.state.rules.players
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < players:
            raise ApiError("INVALID_PLAYER", f"'player' is a player index from 0 to {players - 1}")
        if resolved.player is not None and resolved.player != player:
            raise ApiError(
                "WRONG_PLAYER", f"this token was issued to player {resolved.player}, not {player}"
            )
        return player

    async def suggest(
        self,
        ref: StateRef,
        player: object,
        bot: str,
        *,
        seed: int | None = None,
        iterations: int | None = None,
        time_ms: int | None = None,
    ) -> Suggestion:
        resolved = await self.resolve(ref)
        state = resolved.state
        if state.is_over:
            raise ApiError("GAME_OVER", "the game is over (RULES §8)")
        seat = state.to_move if player is None and resolved.player is None else player
        seat = self._player(resolved, resolved.player if seat is None else seat)
        if state.to_move != seat:
            raise ApiError("NOT_YOUR_TURN", f"it is player {state.to_move}'s turn, not {seat}'s")
        return await suggest_move(
            state,
            seat,
            bot,
            seed=seed,
            iterations=iterations,
            time_ms=time_ms,
            budget=self.bot_budget,
        )

    async def store(self, ref: StateRef) -> Sealed:
        resolved = await self.resolve(ref)
        return await self.seal(resolved.state, resolved.player)

    async def load(self, state_id: str) -> Sealed:
        return await self.seal(await self._load(state_id))

    # -- games ---------------------------------------------------------------------------
    def new_game_state(self, setup: object) -> State:
        if setup is None:
            setup = {}
        if not isinstance(setup, Mapping):
            raise ApiError("INVALID_SETUP", 'a setup is an object such as {"players": 4}')
        kwargs: dict[str, Any] = {}
        for key, value in setup.items():
            if key not in SETUP_KEYS:
                known = ", ".join(SETUP_KEYS)
                raise ApiError(
                    "INVALID_SETUP", f"unknown setup field; known: {known}", path=f"$.{key}"
                )
            if value is not None:
                kwargs[SETUP_KEYS[key]] = value
        return manhattan.new_game(**kwargs)

    async def new_game(self, setup: object) -> Sealed:
        return await self.seal(self.new_game_state(setup))

    async def replay(self, game: object) -> Replayed:
        if not isinstance(game, Mapping) or not set(game) <= {"setup", "state", "moves"}:
            raise ApiError(
                "INVALID_REQUEST",
                'a game record is {"setup": {...}, "moves": [...]} (or "state" for setup)',
            )
        if "state" in game and "setup" in game:
            raise ApiError("INVALID_REQUEST", "give either 'setup' or 'state', not both")
        moves = self.read_moves(game.get("moves", []))
        if "state" in game:
            resolved = await self.resolve(StateRef.from_wire(game["state"]))
        else:
            resolved = Resolved(self.new_game_state(game.get("setup")))
        state = resolved.state
        for i, move in enumerate(moves):
            self._check_mover(resolved, move, state, i)
            try:
                state = manhattan.apply_move(state, move)
            except manhattan.IllegalMoveError as exc:
                raise ApiError(exc.code, f"move {i}: {exc.message}", index=i) from None
        sealed = await self.seal(state, resolved.player)
        return Replayed(sealed, len(moves), manhattan.ranking(state))

    # -- engine operations that may not exist yet ----------------------------------------
    async def analysis(self, ref: StateRef) -> Any:
        analyze = getattr(manhattan, "analyze", None)
        if analyze is None:
            raise ApiError("NOT_IMPLEMENTED", "analysis is not available in this engine version")
        return analyze((await self.resolve(ref)).state)

    async def preview(self, ref: StateRef, move_obj: object) -> Any:
        preview = getattr(manhattan, "preview", None)
        if preview is None:
            raise ApiError("NOT_IMPLEMENTED", "preview is not available in this engine version")
        resolved = await self.resolve(ref)
        return preview(resolved.state, self.read_move(move_obj))


def _text(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise ApiError("INVALID_REQUEST", f"'{path}' is a string", path=f"$.{path}")
    return value


def rules_info() -> dict[str, Any]:
    """What the service adjudicates: versions, formats, vocabularies (GET /v1/rules)."""
    from manhattan.engine.events import EVENT_TYPES
    from manhattan.engine.moves import MOVE_TYPES
    from manhattan.engine.rules import EDITIONS, MONSTERS

    from .errors import HTTP_STATUS

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
