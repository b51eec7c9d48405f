"""The operations both interfaces expose (DESIGN §4), as engine values in and out.

REST and GraphQL are thin encoders over this module: they read their wire form into a
``StateRef`` and plain move objects, call one method here, and render the result. This module
resolves state references (JSON, cached id, sealed token), applies the trust policy (strict mode,
tokens issued to one player), calls the engine and mints ids and tokens. It holds no rules logic.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import msgpack
import msgspec

import manhattan
from manhattan import Event, Move, State, View, wire
from manhattan.api.encoding import moves_json
from manhattan.api.errors import ApiError, to_api_error
from manhattan.bot_pool import BotPool
from manhattan.engine import codec
from manhattan.engine.formats import StateFormat
from manhattan.engine.scoring import RoundScore
from manhattan.engine.validation import MAX_SEED
from manhattan.games.positions import Claim, LatestPositions
from manhattan.games.suggestions import (
    DEFAULT_BOT,
    BotBudget,
    Suggestion,
    bot_choice,
    bot_levels,
    decode_suggestion,
    encode_suggestion,
    suggest_move,
    suggestion_key,
)
from manhattan.sealing import BadTokenError, Sealer
from manhattan.store.cache import StateCache

_STATE_ID = re.compile(r"[0-9a-f]{32}")
_GAME_ID = re.compile(r"[0-9a-f]{32}")
_REF_SHAPES = ({"id"}, {"token"}, {"id", "game"}, {"token", "game"})
#: The msgpack size of the longest seed (MAX_SEED characters of up to 4 UTF-8 bytes): tokens are
#: padded up to it, so a token's length does not tell the seed's length.
_SEED_ROOM = len(msgpack.packb("x" * 4 * MAX_SEED))
#: How many bot moves one ``advance`` may play before the caller's turn (a safety bound: a
#: whole round of four players is far below it).
MAX_ADVANCE_MOVES = 200
#: Headers a trusted platform in front of the service sets on the requests it relays.
GAME_HEADER = "manhattan-game"
PLAYER_HEADER = "manhattan-player"


def game_id(state: State) -> str:
    """The id of the game a state belongs to: 128 bits of SHA-256 over the rules and the seed,
    which every state of one game shares (the seed never changes during a game). It names the
    game, not the position; it is public (it reveals no more about the seed than a player's own
    hand does, and a seed must be unguessable anyway: the shuffle is public)."""
    rules = msgpack.packb(state.rules.to_json(), use_bin_type=True)
    digest = hashlib.sha256(b"manhattan/game@1\0" + rules + b"\0" + state.seed.encode())
    return digest.hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Caller:
    """What a trusted platform in front of the service says about a request, in headers:
    ``Manhattan-Game`` (every state must belong to that game) and ``Manhattan-Player`` (the
    request is on behalf of that player: answers are addressed to them, and a token issued to
    another player is refused)."""

    game: str | None = None
    player: int | None = None

    @classmethod
    def from_headers(cls, headers: Mapping[str, str]) -> Caller:
        game = headers.get(GAME_HEADER)
        player = headers.get(PLAYER_HEADER)
        if game is None and player is None:
            return NO_CALLER
        if game is not None and not _GAME_ID.fullmatch(game):
            raise ApiError("INVALID_REQUEST", "Manhattan-Game is a game id (32 hex characters)")
        if player is not None and not (player.isascii() and player.isdigit() and int(player) < 4):
            raise ApiError("INVALID_PLAYER", "Manhattan-Player is a player index from 0 to 3")
        return cls(game, None if player is None else int(player))


NO_CALLER = Caller()


@dataclass(frozen=True, slots=True)
class StateRef:
    """A state as a request names it: exactly one of the JSON object (or its format, already
    read: ``formats.StateFormat``), a cached id or a token;
    ``game`` and ``player``, when set, are what the caller expects (see ``Caller``)."""

    json: object = None
    id: str | None = None
    token: str | None = None
    game: str | None = None
    player: int | None = None

    @classmethod
    def from_wire(cls, value: object, caller: Caller = NO_CALLER) -> StateRef:
        """REST: the state object itself, or ``{"id": ...}``, or ``{"token": ...}``; the last two
        may add ``"game"``: the id of the game the caller expects."""
        if isinstance(value, dict) and set(value) in _REF_SHAPES:
            game = value.get("game")
            if game is not None and not (isinstance(game, str) and _GAME_ID.fullmatch(game)):
                raise ApiError("INVALID_REQUEST", "'state.game' is a game id", path="$.state.game")
            if caller.game is not None and game is not None and game != caller.game:
                raise ApiError("WRONG_GAME", "'state.game' differs from Manhattan-Game")
            game = game or caller.game
            if "id" in value:
                return cls(id=_text(value["id"], "state.id"), game=game, player=caller.player)
            return cls(token=_text(value["token"], "state.token"), game=game, player=caller.player)
        if value is None:
            raise ApiError("INVALID_REQUEST", "'state' is required", path="$.state")
        return cls(json=value, game=caller.game, player=caller.player)

    def bound(self, caller: Caller) -> StateRef:
        """This reference with the caller's expectations (GraphQL reads them from headers)."""
        if caller is NO_CALLER:
            return self
        return replace(self, game=caller.game or self.game, player=caller.player)


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

    @property
    def known(self) -> State | View:
        """What the caller may know: the player's view, or the full state."""
        return self.state if self.player is None else manhattan.view(self.state, self.player)


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
    game_id: str = ""

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
    verdict: manhattan.Verdict | None = None  # issue 9: the refusal explained

    @classmethod
    def of(cls, verdict: manhattan.Verdict) -> Validation:
        """The answer to "is this move legal?" from the engine's explained verdict."""
        if verdict.legal:
            return cls(True, verdict.move)
        assert verdict.code is not None and verdict.message is not None
        return cls(False, None, ApiError(verdict.code, verdict.message), verdict)


@dataclass(frozen=True, slots=True)
class ScoreReport:
    """Scores; ``player`` set: as that player may know them (RULES §11)."""

    state: State
    player: int | None = None

    @property
    def player_totals(self) -> list[int]:
        return manhattan.player_scores(self.state)

    def if_round_ended_now(self) -> RoundScore:
        # RULES §10-11: a player cannot see the urban deck, so under fakeNews their scoring
        # leaves the still face-down rule out (as preview does on a view).
        return manhattan.score_round(self.state, deck_known=self.player is None)

    def to_json(self) -> dict[str, Any]:
        state = self.state
        return {
            "round": state.round,
            "phase": state.phase,
            "scores": list(state.scores),
            "players": self.player_totals,
            "history": [r.to_json() for r in state.history],
            "ifRoundEndedNow": self.if_round_ended_now().to_json(),
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
        positions: LatestPositions | None = None,
        bot_pool: BotPool | None = None,
    ) -> None:
        #: Strict mode's latest position of each game (``positions``): None, not kept.
        self.positions = positions if strict_states else None
        self.bot_budget = bot_budget or BotBudget()
        self.bot_pool = bot_pool or BotPool()
        self.cache = cache
        self.sealer = sealer
        self.strict_states = strict_states
        self.max_moves = max_moves
        # Ids are content hashes, so a parsed state is valid forever: keep recent ones parsed.
        self._parsed: OrderedDict[str, State] = OrderedDict()
        self._parsed_max = parsed_states
        # Parsing is pure, so a state object sent again (a client asks several questions about
        # one position) parses to the same state: keep recent ones by their format, under the
        # format's hash (computed once per request, where a dict keyed by the format itself
        # would hash it again to insert a miss), with the format to compare on a hit.
        self._by_format: OrderedDict[int, tuple[StateFormat, State]] = OrderedDict()
        # The two memos above hand out the same State object for a state asked about again, so
        # pure results of a state (its legal moves, their JSON) are kept by that object.
        self._derived = DerivedResults(parsed_states)

    # -- state references ----------------------------------------------------------------
    async def resolve(self, ref: StateRef) -> Resolved:
        resolved = await self._resolve(ref)
        if ref.player is not None:
            if resolved.player is not None and resolved.player != ref.player:
                raise ApiError(
                    "WRONG_PLAYER",
                    f"this token was issued to player {resolved.player}, not {ref.player}",
                )
            if not ref.player < resolved.state.rules.players:
                raise ApiError("INVALID_PLAYER", f"this game has no player {ref.player}")
            resolved.player = ref.player
        return resolved

    async def _resolve(self, ref: StateRef) -> Resolved:
        if ref.token is not None:
            unsealed = self.sealer.unseal(ref.token, game=ref.game)
            state = State.from_msgpack(unsealed.state)
            if game_id(state) != unsealed.game:  # sealed by us, so only a bug gets here
                raise BadTokenError("the token's game does not match its state")
            return Resolved(state, unsealed.player)
        if ref.id is not None:
            resolved = Resolved(await self._load(ref.id), None, ref.id)
        elif self.strict_states:
            raise ApiError(
                "STATE_JSON_REFUSED",
                "this service accepts states only as sealed tokens or cached ids",
            )
        else:
            resolved = Resolved(self._from_json(ref.json))
        if ref.game is not None and game_id(resolved.state) != ref.game:
            raise ApiError("WRONG_GAME", f"this state is not of game {ref.game}")
        return resolved

    async def _load(self, state_id: str) -> State:
        if not _STATE_ID.fullmatch(state_id):  # malformed: the request's fault (an unknown id: 404)
            raise ApiError("INVALID_REQUEST", "a state id is 32 lowercase hex characters")
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

    def _from_json(self, obj: object) -> State:
        """``State.from_json``, memoized on the state's format: the structural pass
        (``formats.StateFormat``, frozen msgspec structs that hash and compare by value) runs
        every time (unless the caller decoded the body straight into the format), the engine's
        checks only for a state not seen recently. Failures are not memoized, so an invalid
        state is reported in full every time."""
        data = obj if isinstance(obj, StateFormat) else codec.read_state_format(obj)
        key = hash(data)
        entry = self._by_format.get(key)
        if entry is not None and entry[0] == data:
            self._by_format.move_to_end(key)
            return entry[1]
        state = codec.state_from_format(data)
        self._by_format[key] = (data, state)  # a colliding format replaces the other
        if len(self._by_format) > self._parsed_max:
            self._by_format.popitem(last=False)
        return state

    def _remember(self, state_id: str, state: State) -> None:
        self._parsed[state_id] = state
        if len(self._parsed) > self._parsed_max:
            self._parsed.popitem(last=False)

    async def seal(self, state: State, player: int | None = None) -> Sealed:
        """Store ``state`` under its id and mint a token (issued to ``player`` if given).

        In strict mode every caller is untrusted, so nothing but a player's token and view
        leaves the service: a result for no player (a full-information token, a state id) is
        refused here, where every result is made."""
        if player is None and self.strict_states:
            raise ApiError(
                "PLAYER_REQUIRED",
                "this service hands out only tokens issued to a player: send Manhattan-Player "
                "(or a token issued to a player)",
            )
        data = state.to_msgpack()
        state_id = manhattan.state_id(state)
        await self.cache.save_state(state_id, data)
        self._remember(state_id, state)
        game = game_id(state)
        padding = _SEED_ROOM - len(msgpack.packb(state.seed))
        token = self.sealer.seal(data, player, game, padding=padding)
        view = None if player is None else manhattan.view(state, player)
        return Sealed(state, state_id, token, player, view, self.strict_states, game)

    async def _from_latest(self, resolved: Resolved) -> Claim | None:
        """Strict mode: a move may only be made from its game's latest position (see
        ``positions``); the claim its result must settle. Checked before any work is done."""
        if self.positions is None:
            return None
        return await self.positions.check(game_id(resolved.state), resolved.state_id)

    async def _settle(self, claim: Claim | None, sealed: Sealed) -> Sealed:
        """Make the sealed result its game's latest position (after it is stored and sealed,
        so a client is never left without the token of the latest position)."""
        if claim is not None:
            assert self.positions is not None
            await self.positions.advance(claim, sealed.state_id)
        return sealed

    async def _started(self, sealed: Sealed) -> Sealed:
        if self.positions is not None:
            await self.positions.start(sealed.game_id, sealed.state_id)
        return sealed

    # -- moves ---------------------------------------------------------------------------
    @staticmethod
    def read_move(obj: object, index: int | None = None) -> Move:
        """A move as JSON (DESIGN §2), as notation text, or as ``{"notation": ...}``."""
        try:
            return Move.from_wire(obj)
        except manhattan.IllegalMoveError as exc:
            raise ApiError(exc.code, exc.message, index=index) from None

    def read_moves(self, objs: object) -> list[Move]:
        if not isinstance(objs, list):
            raise ApiError("INVALID_MOVE", "'moves' is a list of moves")
        if len(objs) > self.max_moves:
            raise ApiError("PAYLOAD_TOO_LARGE", f"at most {self.max_moves} moves in one request")
        return [self.read_move(obj, i) for i, obj in enumerate(objs)]

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

    async def validate(self, ref: StateRef, move_obj: object) -> Validation:
        resolved = await self.resolve(ref)
        move = self.read_move(move_obj)
        self._check_mover(resolved, move)
        return Validation.of(manhattan.explain(resolved.known, move))  # check_move, then why not

    async def apply(self, ref: StateRef, move_objs: Sequence[object]) -> Applied:
        resolved = await self.resolve(ref)
        claim = await self._from_latest(resolved)
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
        sealed = await self._settle(claim, await self.seal(state, resolved.player))
        return Applied(sealed, events, played)

    def _check_mover(
        self, resolved: Resolved, move: Move, state: State | None = None, index: int | None = None
    ) -> None:
        player = resolved.player
        current = (state or resolved.state).to_move
        if player is not None and current is not None and current != player:
            raise ApiError(
                "NOT_YOUR_TURN",
                f"it is player {current}'s turn, not player {player}'s",
                index=index,
            )

    # -- reading -------------------------------------------------------------------------
    async def score(self, ref: StateRef) -> ScoreReport:
        resolved = await self.resolve(ref)
        return ScoreReport(resolved.state, resolved.player)

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
        deadline: float | None = None,
    ) -> Suggestion:
        """A bot's move for ``player`` (default: the player to move), computed in the bot pool
        by ``deadline`` (``time.monotonic()``; at most the pool's deadline from now)."""
        resolved = await self.resolve(ref)
        state = resolved.state
        if state.is_over:
            raise ApiError("GAME_OVER", "the game is over (RULES §8)")
        seat = state.to_move if player is None and resolved.player is None else player
        seat = self._player(resolved, resolved.player if seat is None else seat)
        if state.to_move != seat:
            raise ApiError("NOT_YOUR_TURN", f"it is player {state.to_move}'s turn, not {seat}'s")
        choice = bot_choice(
            bot, seed=seed, iterations=iterations, time_ms=time_ms, budget=self.bot_budget
        )
        # Only a suggestion without a time budget is reproducible, so only that one is cached.
        key = (
            suggestion_key(resolved.state_id, seat, bot, iterations, seed)
            if choice.reproducible
            else None
        )
        if key is not None and (cached := await self.cache.load_result("suggest", key)):
            return decode_suggestion(cached, state)
        found = await suggest_move(self.bot_pool, state, seat, choice, deadline=deadline)
        if key is not None and found.reproducible:
            await self.cache.save_result("suggest", key, encode_suggestion(found))
        return found

    async def store(self, ref: StateRef) -> Sealed:
        resolved = await self.resolve(ref)
        return await self.seal(resolved.state, resolved.player)

    async def load(self, state_id: str, caller: Caller = NO_CALLER) -> Sealed:
        resolved = await self.resolve(StateRef(id=state_id).bound(caller))
        return await self.seal(resolved.state, resolved.player)

    # -- games ---------------------------------------------------------------------------
    def new_game_state(self, setup: object) -> State:
        """The shape and bounds of ``wire.Setup`` first, then the engine's rules (colors that
        add up, rounds × pieces); both answer ``INVALID_SETUP`` with the fault's path."""
        if setup is None:
            setup = {}
        if not isinstance(setup, Mapping):
            raise ApiError("INVALID_SETUP", 'a setup is an object such as {"players": 4}', path="$")
        if self.strict_states and setup.get("seed") is not None:
            # A caller who knows the seed knows the shuffle, so every hand and the deck order.
            raise ApiError(
                "INVALID_SETUP",
                "this service draws every game's seed itself: leave 'seed' out",
                path="$.seed",
            )
        wire.read(setup, wire.Setup, "INVALID_SETUP")
        return manhattan.new_game_from_setup(setup)

    async def new_game(self, setup: object, caller: Caller = NO_CALLER) -> Sealed:
        resolved = self._fresh(self.new_game_state(setup), caller)
        return await self._started(await self.seal(resolved.state, resolved.player))

    @staticmethod
    def _fresh(state: State, caller: Caller) -> Resolved:
        """A state the service just made, with the caller's expectations applied."""
        if caller.player is not None and not caller.player < state.rules.players:
            raise ApiError("INVALID_PLAYER", f"this game has no player {caller.player}")
        if caller.game is not None and game_id(state) != caller.game:
            raise ApiError("WRONG_GAME", f"this setup is not of game {caller.game}")
        return Resolved(state, caller.player)

    async def replay(self, game: object, caller: Caller = NO_CALLER) -> Replayed:
        if not isinstance(game, Mapping):
            raise ApiError(
                "INVALID_REQUEST",
                'a game record is {"setup": {...}, "moves": [...]} (or "state" for setup)',
                path="$",
            )
        wire.read(game, wire.GameRecord)
        if "state" in game and "setup" in game:
            raise ApiError("INVALID_REQUEST", "give either 'setup' or 'state', not both")
        moves = self.read_moves(game.get("moves", []))
        claim = None
        if "state" in game:
            resolved = await self.resolve(StateRef.from_wire(game["state"], caller))
            claim = await self._from_latest(resolved) if moves else None
        else:
            try:
                made = self.new_game_state(game.get("setup"))
            except (ApiError, manhattan.InvalidSetupError) as exc:  # paths within the record
                error = to_api_error(exc)
                assert error is not None
                where = "$.setup" + (error.path or "$")[1:]
                raise ApiError(error.code, error.message, path=where) from None
            resolved = self._fresh(made, caller)
        state = resolved.state
        for i, move in enumerate(moves):
            self._check_mover(resolved, move, state, i)
            try:
                state = manhattan.apply_move(state, move)
            except manhattan.IllegalMoveError as exc:
                raise ApiError(exc.code, f"move {i}: {exc.message}", index=i) from None
        sealed = await self.seal(state, resolved.player)
        sealed = await (
            self._started(sealed) if "state" not in game else self._settle(claim, sealed)
        )
        return Replayed(sealed, len(moves), manhattan.ranking(state))

    # -- analysis (issue 9): on what the caller may know ---------------------------------
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
        seat = self._player(resolved, resolved.player if player is None else player)
        return manhattan.threats(manhattan.view(resolved.state, seat))

    async def render_svg(self, ref: StateRef, player: object = None) -> str:
        """The board picture of the state, or of a player's view (always, for a player's token)."""
        from manhattan.render import render_svg

        resolved = await self.resolve(ref)
        if player is not None or resolved.player is not None:
            seat = self._player(resolved, resolved.player if player is None else player)
            return render_svg(manhattan.view(resolved.state, seat))
        return render_svg(resolved.state)

    async def advance(
        self,
        ref: StateRef,
        *,
        player: object = None,
        move: object = None,
        bot: str = DEFAULT_BOT,
        seed: int = 0,
        iterations: int | None = None,
        time_ms: int | None = None,
        deadline: float | None = None,
    ) -> Applied:
        """A player's session step: apply the player's ``move`` (if given), then let bots play
        every other seat, each from its own view, until the player is to move again or the game
        is over. The result is addressed to the player: their view, the events they may see and
        a token issued to them. The call's ``k``-th bot move uses seed ``seed + k``.

        Every bot move runs in the bot pool, and all of them share one deadline (the pool's
        from now, or ``deadline`` if sooner): each move gets an equal share of what is left
        for the seats still to play before the player's turn."""
        deadline = self.bot_pool.deadline() if deadline is None else deadline
        choice = bot_choice(
            bot, seed=seed, iterations=iterations, time_ms=time_ms, budget=self.bot_budget
        )
        resolved = await self.resolve(ref)
        seat = self._player(resolved, resolved.player if player is None else player)
        resolved.player = seat
        claim = await self._from_latest(resolved)  # before any bot runs
        transitions: list[manhattan.Transition] = []
        if move is not None:
            mine = self.read_move(move)
            self._check_mover(resolved, mine)
            try:
                transitions.append(manhattan.play(resolved.state, mine))
            except manhattan.IllegalMoveError as exc:
                raise ApiError(exc.code, exc.message) from None
        state = transitions[-1].state if transitions else resolved.state
        mine_count = len(transitions)
        while not state.is_over and state.to_move != seat:
            if len(transitions) > MAX_ADVANCE_MOVES:
                raise ApiError("INVALID_REQUEST", f"more than {MAX_ADVANCE_MOVES} bot moves")
            mover = state.to_move
            assert mover is not None
            found = await suggest_move(
                self.bot_pool,
                state,
                mover,
                msgspec.structs.replace(choice, seed=seed + len(transitions) - mine_count),
                deadline=deadline,
                moves_left=(seat - mover) % state.rules.players or state.rules.players,
            )
            transitions.append(manhattan.play(state, found.move))
            state = transitions[-1].state
        events = [e for t in transitions for e in t.events if e.visible_for(seat)]
        sealed = await self.seal(state, seat)
        if transitions:
            sealed = await self._settle(claim, sealed)
        return Applied(sealed, events, [t.move for t in transitions])


class DerivedResults:
    """Pure results computed from a state, kept by the state object itself (bounded, least
    recently used dropped). A hit needs the very object: each entry holds its state, so the
    ``id`` it is keyed by cannot be reused while it is kept, and equal states parsed apart are
    simply computed again. Results are shared: callers must not mutate them (tuples, bytes)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._memo: OrderedDict[tuple[str, int], tuple[State, Any]] = OrderedDict()

    def get(self, kind: str, state: State, compute: Callable[[State], Any]) -> Any:
        key = (kind, id(state))
        entry = self._memo.get(key)
        if entry is not None and entry[0] is state:
            self._memo.move_to_end(key)
            return entry[1]
        value = compute(state)
        self._memo[key] = (state, value)
        if len(self._memo) > self.size:
            self._memo.popitem(last=False)
        return value


def _legal_moves(state: State) -> tuple[Move, ...]:
    return tuple(manhattan.legal_moves(state))


def _legal_moves_json(state: State) -> bytes:
    return moves_json(manhattan.legal_moves(state))


def _text(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise ApiError("INVALID_REQUEST", f"'{path}' is a string", path=f"$.{path}")
    return value


def rules_info() -> dict[str, Any]:
    """What the service adjudicates: versions, formats, vocabularies (GET /v1/rules)."""
    from manhattan.api.errors import HTTP_STATUS
    from manhattan.engine.events import EVENT_TYPES
    from manhattan.engine.moves import MOVE_TYPES
    from manhattan.engine.rules import EDITIONS, MONSTERS

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
