"""Every bot decision of a table goes through ``BotRunner.bot_move``, which hands it to the
service's one bounded pool of bot worker processes (``manhattan.bot_pool``): the same pool,
queue and deadlines as ``suggest`` and ``advance``, so tables' bots cannot starve the service
either. The worker builds the seat's ``View`` itself, so a bot cannot see what its seat cannot
(RULES §11). A bot that fails, misses its deadline or finds the pool busy is replaced by a
uniformly random legal move, so a table never stalls on a bot.
"""

from __future__ import annotations

import logging
import random
import secrets

import msgspec

import manhattan
from manhattan import Move, State
from manhattan.bot_pool import BotFailed, BotPool, BotsBusy
from manhattan.bots import BotChoice, BotError

log = logging.getLogger("manhattan.tables.bots")


class BotRunner:
    """Table bots on a ``BotPool`` (the app's own; a private one when none is given)."""

    def __init__(self, pool: BotPool | None = None) -> None:
        self._owned = pool is None
        self.pool = pool or BotPool()

    async def bot_move(
        self, state: State, player: int, choice: BotChoice, *, deadline: float
    ) -> Move:
        """A legal move for ``player`` (to move in ``state``) chosen from that player's view,
        by ``deadline`` (``time.monotonic()``); a random legal move if the bot fails, is late
        or no worker is free."""
        seed = secrets.randbelow(2**31)  # a fresh seed per turn: bots are not predictable
        if choice.level != "random":
            try:
                found = await self.pool.suggest(
                    state, player, msgspec.structs.replace(choice, seed=seed), deadline=deadline
                )
                return found.move
            except (BotsBusy, BotFailed, BotError) as exc:  # the table goes on
                log.warning("bot failed; playing a random move", extra={"error": repr(exc)})
        moves = manhattan.legal_moves(state)
        return moves[random.Random(seed).randrange(len(moves))]

    async def close(self) -> None:
        if self._owned:
            await self.pool.close()
