"""The operations that make a new position: a new game, moves applied, a game replayed, and the
check of a move before it is applied (``validate``). Each resolves its state (``States``),
lets the engine decide, and seals what it hands out. Moves arrive read (``MoveReader``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import manhattan
from manhattan import Event, Move, State, wire
from manhattan.games.errors import GameError
from manhattan.games.move_reader import MoveReader
from manhattan.games.positions import Claim
from manhattan.games.refs import NO_CALLER, Caller, StateRef
from manhattan.games.results import Applied, Replayed, Sealed, Validation
from manhattan.games.states import States
from manhattan.wire.codes import CodedError


class Transitions:
    """New games, moves and replays, over ``states`` (references resolved, results sealed) and
    ``moves`` (a request's moves read)."""

    def __init__(self, states: States, moves: MoveReader) -> None:
        self.states = states
        self.moves = moves

    def new_game_state(self, setup: object) -> State:
        """The shape and bounds of ``wire.Setup`` first, then the engine's rules (colors that
        add up, rounds × pieces); both answer ``INVALID_SETUP`` with the fault's path."""
        if setup is None:
            setup = {}
        if not isinstance(setup, Mapping):
            raise GameError(
                "INVALID_SETUP", 'a setup is an object such as {"players": 4}', path="$"
            )
        if self.states.strict_states and setup.get("seed") is not None:
            # A caller who knows the seed knows the shuffle, so every hand and the deck order.
            raise GameError(
                "INVALID_SETUP",
                "this service draws every game's seed itself: leave 'seed' out",
                path="$.seed",
            )
        wire.read(setup, wire.Setup, "INVALID_SETUP")
        return manhattan.new_game_from_setup(setup)

    async def new_game(self, setup: object, caller: Caller = NO_CALLER) -> Sealed:
        states = self.states
        resolved = states.fresh(self.new_game_state(setup), caller)
        return await states.started(await states.seal(resolved.state, resolved.player))

    async def validate(self, ref: StateRef, move_obj: object) -> Validation:
        resolved = await self.states.resolve(ref)
        move = self.moves.one(move_obj)
        resolved.check_mover(move)
        return Validation.of(manhattan.explain(resolved.known, move))  # check_move, then why not

    async def apply(self, ref: StateRef, moves: Sequence[Move]) -> Applied:
        """``moves`` (read by ``MoveReader`` before the state is looked at) applied in order; a
        fault in a list of several names the move's index."""
        states = self.states
        resolved = await states.resolve(ref)
        claim = await states.claim(resolved)
        state = resolved.state
        events: list[Event] = []
        played: list[Move] = []
        for i, move in enumerate(moves):
            index = i if len(moves) > 1 else None
            resolved.check_mover(move, state, index)
            try:
                transition = manhattan.play(state, move)
            except manhattan.IllegalMoveError as exc:
                raise GameError(exc.code, exc.message, index=index) from None
            state = transition.state
            events.extend(transition.events)
            played.append(transition.move)
        if resolved.player is not None:
            events = [e for e in events if e.visible_for(resolved.player)]
        sealed = await states.settle(claim, await states.seal(state, resolved.player))
        return Applied(sealed, events, played)

    async def replay(self, game: object, caller: Caller = NO_CALLER) -> Replayed:
        if not isinstance(game, Mapping):
            raise GameError(
                "INVALID_REQUEST",
                'a game record is {"setup": {...}, "moves": [...]} (or "state" for setup)',
                path="$",
            )
        wire.read(game, wire.GameRecord)
        if "state" in game and "setup" in game:
            raise GameError("INVALID_REQUEST", "give either 'setup' or 'state', not both")
        moves = self.moves.listed(game.get("moves", []))
        states = self.states
        claim: Claim | None = None
        if "state" in game:
            resolved = await states.resolve(StateRef.from_wire(game["state"], caller))
            claim = await states.claim(resolved) if moves else None
        else:
            resolved = states.fresh(self._record_setup(game.get("setup")), caller)
        state = resolved.state
        for i, move in enumerate(moves):
            resolved.check_mover(move, state, i)
            try:
                state = manhattan.apply_move(state, move)
            except manhattan.IllegalMoveError as exc:
                raise GameError(exc.code, f"move {i}: {exc.message}", index=i) from None
        sealed = await states.seal(state, resolved.player)
        sealed = await (
            states.started(sealed) if "state" not in game else states.settle(claim, sealed)
        )
        return Replayed(sealed, len(moves), manhattan.ranking(state))

    def _record_setup(self, setup: object) -> State:
        """A game record's first state from its setup; a fault's path is within the record."""
        try:
            return self.new_game_state(setup)
        except (CodedError, manhattan.InvalidSetupError) as exc:
            where = "$.setup" + (exc.path or "$")[1:]
            raise GameError(exc.code, exc.message, path=where) from None
