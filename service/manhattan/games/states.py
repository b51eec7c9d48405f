"""``States``: the states a request names and the states the service hands out.

It resolves a ``StateRef`` (JSON, cached id, sealed token) under the trust policy (strict mode
refuses JSON; a token issued to one player answers only that player), stores and seals what the
service hands out (``seal``), and in strict mode keeps each game's latest position
(``positions``): a move is claimed from it before any work and settles it after. The other parts
of the game service (``Transitions``, ``BotSessions``, ``Operations``) are handed one.
"""

from __future__ import annotations

import msgpack

import manhattan
from manhattan import State
from manhattan.engine.validation import MAX_SEED
from manhattan.games.errors import GameError
from manhattan.games.memo import DerivedResults, ParsedStates
from manhattan.games.positions import Claim, LatestPositions
from manhattan.games.refs import STATE_ID, Caller, Resolved, StateRef, game_id
from manhattan.games.results import Sealed
from manhattan.sealing import BadTokenError, Sealer
from manhattan.store.cache import StateCache

#: The msgpack size of the longest seed (MAX_SEED characters of up to 4 UTF-8 bytes): tokens are
#: padded up to it, so a token's length does not tell the seed's length.
_SEED_ROOM = len(msgpack.packb("x" * 4 * MAX_SEED))


class States:
    """State references resolved and results sealed, over one cache and one sealer."""

    def __init__(
        self,
        cache: StateCache,
        sealer: Sealer,
        *,
        strict_states: bool = False,
        positions: LatestPositions | None = None,
        parsed_states: int = 1_024,
    ) -> None:
        self.cache = cache
        self.sealer = sealer
        self.strict_states = strict_states
        #: Strict mode's latest position of each game: None, not kept (nor outside strict mode).
        self.positions = positions if strict_states else None
        self.parsed = ParsedStates(parsed_states)
        #: Pure results of a state (its legal moves, their encodings), kept by the state object
        #: that ``parsed`` hands out again for a state asked about again.
        self.derived = DerivedResults(parsed_states)

    # -- reading a reference ---------------------------------------------------------------
    async def resolve(self, ref: StateRef) -> Resolved:
        resolved = await self._resolve(ref)
        if ref.player is not None:
            if resolved.player is not None and resolved.player != ref.player:
                raise GameError(
                    "WRONG_PLAYER",
                    f"this token was issued to player {resolved.player}, not {ref.player}",
                )
            if not ref.player < resolved.state.rules.players:
                raise GameError("INVALID_PLAYER", f"this game has no player {ref.player}")
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
            raise GameError(
                "STATE_JSON_REFUSED",
                "this service accepts states only as sealed tokens or cached ids",
            )
        else:
            resolved = Resolved(self.parsed.from_json(ref.json))
        if ref.game is not None and game_id(resolved.state) != ref.game:
            raise GameError("WRONG_GAME", f"this state is not of game {ref.game}")
        return resolved

    async def _load(self, state_id: str) -> State:
        if not STATE_ID.fullmatch(state_id):  # malformed: the request's fault (an unknown id: 404)
            raise GameError("INVALID_REQUEST", "a state id is 32 lowercase hex characters")
        state = self.parsed.by_id(state_id)
        if state is not None:
            return state
        data = await self.cache.load_state(state_id)
        if data is not None:
            state = State.from_msgpack(data)
            if manhattan.state_id(state) == state_id:  # DESIGN §6: re-hashed, a mismatch is a miss
                self.parsed.remember(state_id, state)
                return state
        raise GameError("STATE_NOT_FOUND", f"no cached state with id {state_id}; send the state")

    @staticmethod
    def fresh(state: State, caller: Caller) -> Resolved:
        """A state the service just made, with the caller's expectations applied."""
        if caller.player is not None and not caller.player < state.rules.players:
            raise GameError("INVALID_PLAYER", f"this game has no player {caller.player}")
        if caller.game is not None and game_id(state) != caller.game:
            raise GameError("WRONG_GAME", f"this setup is not of game {caller.game}")
        return Resolved(state, caller.player)

    # -- handing states out ----------------------------------------------------------------
    async def seal(self, state: State, player: int | None = None) -> Sealed:
        """Store ``state`` under its id and mint a token (issued to ``player`` if given).

        In strict mode every caller is untrusted, so nothing but a player's token and view
        leaves the service: a result for no player (a full-information token, a state id) is
        refused here, where every result is made."""
        if player is None and self.strict_states:
            raise GameError(
                "PLAYER_REQUIRED",
                "this service hands out only tokens issued to a player: send Manhattan-Player "
                "(or a token issued to a player)",
            )
        data = state.to_msgpack()
        state_id = manhattan.state_id(state)
        await self.cache.save_state(state_id, data)
        self.parsed.remember(state_id, state)
        game = game_id(state)
        padding = _SEED_ROOM - len(msgpack.packb(state.seed))
        token = self.sealer.seal(data, player, game, padding=padding)
        view = None if player is None else manhattan.view(state, player)
        return Sealed(state, state_id, token, player, view, self.strict_states, game)

    # -- strict mode: one move per position ------------------------------------------------
    async def claim(self, resolved: Resolved) -> Claim | None:
        """Strict mode: a move may only be made from its game's latest position (see
        ``positions``); the claim its result must settle. Checked before any work is done."""
        if self.positions is None:
            return None
        return await self.positions.check(game_id(resolved.state), resolved.state_id)

    async def settle(self, claim: Claim | None, sealed: Sealed) -> Sealed:
        """Make the sealed result its game's latest position (after it is stored and sealed,
        so a client is never left without the token of the latest position)."""
        if claim is not None:
            assert self.positions is not None
            await self.positions.advance(claim, sealed.state_id)
        return sealed

    async def started(self, sealed: Sealed) -> Sealed:
        """Record a new game's first position (strict mode)."""
        if self.positions is not None:
            await self.positions.start(sealed.game_id, sealed.state_id)
        return sealed
