"""Strict mode's latest positions: one move per position, so a token cannot fork its game.

A token is stateless: without a record, a player holding one could send several different moves
from it and read, in each answer, the card that move would draw, and so learn the deck's order.
In strict mode the service keeps each game's latest position (its state id) in the versioned
store, under ``manhattan:1:{game:<gameId>}`` (one hash-tagged key: one Redis Cluster slot), and a
move is accepted only from that position; the move then replaces it by compare-and-set, so of two
moves sent at once from the same position exactly one wins. A move from any older position (an
older token, or the same token a second time) is ``STALE_TOKEN`` (409).

A game the store does not know (its record expired after ``MANHATTAN_CACHE_TTL`` seconds without a
move, or it began before strict mode was on) is adopted by the first move made in it: from then on
it is guarded like any other. Reading (legal moves, scores, views, previews) from an older token
stays allowed: it shows only what that player could already see then.
"""

from __future__ import annotations

from dataclasses import dataclass

from manhattan.games.errors import GameError
from manhattan.store.cas import VersionedStore


def position_key(game_id: str) -> str:
    return f"manhattan:1:{{game:{game_id}}}"


@dataclass(frozen=True, slots=True)
class Claim:
    """A game's latest position as read before a move: what the move's swap expects."""

    game_id: str
    version: int  # 0: the store does not know the game (yet)


class LatestPositions:
    def __init__(self, store: VersionedStore, ttl: int) -> None:
        self.store = store
        self.ttl = ttl

    async def check(self, game_id: str, state_id: str) -> Claim:
        """The claim for a move from ``state_id``; ``STALE_TOKEN`` if it is not the latest."""
        record = await self.store.read(position_key(game_id))
        if record is None:
            return Claim(game_id, 0)
        if record.data.decode() != state_id:
            raise _stale()
        return Claim(game_id, record.version)

    async def advance(self, claim: Claim, state_id: str) -> None:
        """Make ``state_id`` the game's latest position, if nothing moved since ``claim``."""
        done, _ = await self.store.swap(
            position_key(claim.game_id), claim.version, state_id.encode(), ttl=self.ttl
        )
        if not done:
            raise _stale()

    async def start(self, game_id: str, state_id: str) -> None:
        """Record a new game's first position (a game made by the service: nothing to check)."""
        await self.store.swap(position_key(game_id), 0, state_id.encode(), ttl=self.ttl)


def _stale() -> GameError:
    return GameError(
        "STALE_TOKEN",
        "this token is not the game's latest position: a move was already made from it (or "
        "after it); continue from the token that move returned",
    )
