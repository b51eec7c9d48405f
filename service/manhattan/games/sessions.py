"""The operations that ask a bot: ``suggest`` (a move for one player) and ``advance`` (a player's
session step: their move, then bots for every other seat). Every bot move runs in the bot pool,
by one deadline per request."""

from __future__ import annotations

import msgspec

import manhattan
from manhattan.bot_pool import BotPool
from manhattan.bots import BotChoice, Suggestion
from manhattan.games.errors import GameError
from manhattan.games.move_reader import MoveReader
from manhattan.games.refs import StateRef
from manhattan.games.results import Applied
from manhattan.games.states import States
from manhattan.games.suggestions import (
    BotBudget,
    decode_suggestion,
    encode_suggestion,
    suggest_move,
    suggestion_key,
)

#: How many bot moves one ``advance`` may play before the caller's turn (a safety bound: a
#: whole round of four players is far below it).
MAX_ADVANCE_MOVES = 200


class BotSessions:
    """Bot moves over ``states``, in ``bot_pool``, within ``bot_budget``; a player's own move
    in a session step is read by ``moves``."""

    def __init__(
        self, states: States, moves: MoveReader, bot_pool: BotPool, bot_budget: BotBudget
    ) -> None:
        self.states = states
        self.moves = moves
        self.bot_pool = bot_pool
        self.bot_budget = bot_budget

    async def suggest(
        self, ref: StateRef, player: object, choice: BotChoice, *, deadline: float | None = None
    ) -> Suggestion:
        """``choice``'s move for ``player`` (default: the player to move), computed in the bot
        pool by ``deadline`` (``time.monotonic()``; at most the pool's deadline from now)."""
        resolved = await self.states.resolve(ref)
        state = resolved.state
        if state.is_over:
            raise GameError("GAME_OVER", "the game is over (RULES §8)")
        seat = state.to_move if player is None and resolved.player is None else player
        seat = resolved.seat(resolved.player if seat is None else seat)
        if state.to_move != seat:
            raise GameError("NOT_YOUR_TURN", f"it is player {state.to_move}'s turn, not {seat}'s")
        choice = self.bot_budget.admit(choice)
        # Only a suggestion without a time budget is reproducible, so only that one is cached.
        key = suggestion_key(resolved.state_id, seat, choice) if choice.reproducible else None
        cache = self.states.cache
        if key is not None and (cached := await cache.load_result("suggest", key)):
            return decode_suggestion(cached, state)
        found = await suggest_move(self.bot_pool, state, seat, choice, deadline=deadline)
        if key is not None and found.reproducible:
            await cache.save_result("suggest", key, encode_suggestion(found))
        return found

    async def advance(
        self,
        ref: StateRef,
        *,
        player: object = None,
        move: object = None,
        choice: BotChoice | None = None,
        deadline: float | None = None,
    ) -> Applied:
        """A player's session step: apply the player's ``move`` (if given), then let bots play
        every other seat, each from its own view, until the player is to move again or the game
        is over. The result is addressed to the player: their view, the events they may see and
        a token issued to them. The call's ``k``-th bot move uses seed ``choice.seed + k``.

        Every bot move runs in the bot pool, and all of them share one deadline (the pool's
        from now, or ``deadline`` if sooner): each move gets an equal share of what is left
        for the seats still to play before the player's turn."""
        deadline = self.bot_pool.deadline() if deadline is None else deadline
        choice = self.bot_budget.admit(choice or BotChoice())
        states = self.states
        resolved = await states.resolve(ref)
        seat = resolved.seat(resolved.player if player is None else player)
        resolved.player = seat
        claim = await states.claim(resolved)  # before any bot runs
        transitions: list[manhattan.Transition] = []
        if move is not None:
            mine = self.moves.one(move)
            resolved.check_mover(mine)
            try:
                transitions.append(manhattan.play(resolved.state, mine))
            except manhattan.IllegalMoveError as exc:
                raise GameError(exc.code, exc.message) from None
        state = transitions[-1].state if transitions else resolved.state
        mine_count = len(transitions)
        while not state.is_over and state.to_move != seat:
            if len(transitions) > MAX_ADVANCE_MOVES:
                raise GameError("INVALID_REQUEST", f"more than {MAX_ADVANCE_MOVES} bot moves")
            mover = state.to_move
            assert mover is not None
            found = await suggest_move(
                self.bot_pool,
                state,
                mover,
                msgspec.structs.replace(choice, seed=choice.seed + len(transitions) - mine_count),
                deadline=deadline,
                moves_left=(seat - mover) % state.rules.players or state.rules.players,
            )
            transitions.append(manhattan.play(state, found.move))
            state = transitions[-1].state
        events = [e for t in transitions for e in t.events if e.visible_for(seat)]
        sealed = await states.seal(state, seat)
        if transitions:
            sealed = await states.settle(claim, sealed)
        return Applied(sealed, events, [t.move for t in transitions])
