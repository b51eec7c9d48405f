"""The operations that only read a state: legal moves, scores, views, analysis, previews,
threats and the board picture, each on what the caller may know. They store nothing but the
states they seal (a view's token, a stored state)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import manhattan
from manhattan import Move, State
from manhattan.games.move_reader import MoveReader
from manhattan.games.refs import NO_CALLER, Caller, StateRef
from manhattan.games.results import ScoreReport, Sealed
from manhattan.games.states import States
from manhattan.render import render_svg

#: Legal moves encoded for an answer (``api/rest``'s JSON body, for instance).
MovesEncoder = Callable[[Sequence[Move]], bytes]


class Readings:
    """The reading operations over ``states``; a previewed move is read by ``moves``."""

    def __init__(self, states: States, moves: MoveReader) -> None:
        self.states = states
        self.moves = moves

    # -- legal moves -----------------------------------------------------------------------
    async def _listed(self, ref: StateRef) -> State | None:
        """The state whose legal moves the caller may list, or None (no moves to list): a
        player's token only lists that player's own moves."""
        resolved = await self.states.resolve(ref)
        state = resolved.state
        return None if resolved.player is not None and state.to_move != resolved.player else state

    async def legal_moves(self, ref: StateRef) -> list[Move]:
        state = await self._listed(ref)
        return [] if state is None else list(self.states.derived.get("legal", state, _legal))

    async def legal_moves_encoded(self, ref: StateRef, kind: str, encode: MovesEncoder) -> bytes:
        """The legal moves as ``encode`` writes them (``kind`` names the encoding). For a state
        named by id the bytes are a pure result, cached under ``{kind}:{id}``: a hit skips the
        state, the engine and the encoder. For a state already parsed (sent again inline) they
        are kept by the state object."""
        cache = self.states.cache
        cacheable = ref.id is not None and ref.player is None and ref.game is None
        if cacheable:
            assert ref.id is not None
            cached = await cache.load_result(kind, ref.id)
            if cached is not None:
                return cached
        state = await self._listed(ref)
        if state is None:
            body = encode(())
        else:
            compute = lambda s: encode(manhattan.legal_moves(s))  # noqa: E731
            body = self.states.derived.get(f"encoded:{kind}", state, compute)
        if cacheable:
            assert ref.id is not None
            await cache.save_result(kind, ref.id, body)
        return body

    # -- reading ---------------------------------------------------------------------------
    async def score(self, ref: StateRef) -> ScoreReport:
        resolved = await self.states.resolve(ref)
        return ScoreReport(resolved.state, resolved.player)

    async def view(self, ref: StateRef, player: object) -> Sealed:
        resolved = await self.states.resolve(ref)
        return await self.states.seal(resolved.state, resolved.seat(player))

    async def store(self, ref: StateRef) -> Sealed:
        resolved = await self.states.resolve(ref)
        return await self.states.seal(resolved.state, resolved.player)

    async def load(self, state_id: str, caller: Caller = NO_CALLER) -> Sealed:
        resolved = await self.states.resolve(StateRef(id=state_id).bound(caller))
        return await self.states.seal(resolved.state, resolved.player)

    # -- analysis: on what the caller may know --------------------------------------------
    async def analysis(self, ref: StateRef) -> manhattan.Analysis:
        return manhattan.analyze((await self.states.resolve(ref)).known)

    async def preview(self, ref: StateRef, move_obj: object = None) -> Any:
        """What ``move_obj`` would change; without a move, a list: every legal move previewed."""
        known = (await self.states.resolve(ref)).known
        if move_obj is None:
            return manhattan.preview_all(known)
        return manhattan.preview(known, self.moves.one(move_obj))

    async def threats(self, ref: StateRef, player: object) -> manhattan.Threats:
        resolved = await self.states.resolve(ref)
        seat = resolved.seat(resolved.player if player is None else player)
        return manhattan.threats(manhattan.view(resolved.state, seat))

    async def render_svg(self, ref: StateRef, player: object = None) -> str:
        """The board picture of the state, or of a player's view (always, for a player's token)."""
        resolved = await self.states.resolve(ref)
        if player is not None or resolved.player is not None:
            seat = resolved.seat(resolved.player if player is None else player)
            return render_svg(manhattan.view(resolved.state, seat))
        return render_svg(resolved.state)


def _legal(state: State) -> tuple[Move, ...]:
    return tuple(manhattan.legal_moves(state))
