"""Ratings (DESIGN §10): OpenSkill (Plackett-Luce) ratings of a platform key's players, kept
by the key and updated once when one of its ``rated`` tables is over.

A key's ratings are one versioned record (``board_key``): every player's ``[mu, sigma, games]``
and the ids of the tables already counted, with when. A game is counted by one compare-and-set
of that record that adds its table id, so a second replica (or a second call) that counts the
same table finds it there and writes nothing: exactly once on every store. Table ids are kept
for ``COUNTED_DAYS`` days (a finished table is gone long before) and at most ``MAX_COUNTED``.

The one record is what makes the count exactly once with a single compare-and-set, and its
limit: every count, lookup and page reads it whole. Measured on the embedded store (2 cores,
loaded): 1,000 players 25 KiB, a count ~37 ms; 10,000 players 254 KiB, ~200 ms; 50,000 players
1.3 MiB, ~1.5 s. A key with tens of thousands of rated players wants per-player records and a
sorted index (a Redis sorted set) instead, with the same per-table idempotence.

Who is rated: a reserved seat's player id, and each bot under its level and budget
(``bot:ismcts:1000`` for 1000 iterations, ``bot:ismcts:250ms`` for a time budget, ``bot:greedy``
without one), so a platform can say what a bot is worth; no platform id starts with ``bot:``
(``wire/player_ids.py``), so the two never share a record. A bot is one player however many
seats it plays: a table with the same bot at two seats counts one game for it, at the mean of its
seats' places (first and third: second, a tie with whoever was second), so its record is neither
counted twice nor written over by its last seat. A person who joined an open seat has no id and
is not rated; a player who left is rated by the result of the seat. Equal places are ties.

A bot whose level and budget are on the bots' ladder (``manhattan.bots.ladder``,
``GET /v1/bots``) plays every rated game at its ladder rating, which the game does not change:
its strength was measured against the other levels, and a key's few games would only blur it.
"""

from __future__ import annotations

import logging
from typing import Any

import msgpack
from msgspec import to_builtins
from openskill.models import PlackettLuce

from manhattan.bots.choice import BotChoice
from manhattan.bots.errors import BotError
from manhattan.bots.ladder import ladder_level
from manhattan.platforms.errors import PlatformError
from manhattan.store.cas import VersionedStore
from manhattan.tables.model import Seat, Table
from manhattan.tables.projection import ranking_json
from manhattan.tables.records import MAX_SWAP_TRIES, PREFIX, now_ms
from manhattan.wire.numbers import ascii_decimal
from manhattan.wire.tables import Rating

log = logging.getLogger("manhattan.platforms")

#: A rating record lives this long after its last change (ten years: as good as forever).
RATINGS_TTL = 10 * 365 * 86_400
COUNTED_DAYS = 30
MAX_COUNTED = 50_000
MAX_PAGE = 100
DEFAULT_PAGE = 50

_MODEL = PlackettLuce()


def board_key(key: str) -> str:
    return f"{PREFIX}:{{platform:{key}}}:ratings"


def rating(player: str, mu: float, sigma: float, games: int) -> Rating:
    """A player's rating as the wire answers it: ``ordinal`` is ``mu - 3 sigma``."""
    return Rating(player=player, mu=mu, sigma=sigma, ordinal=mu - 3 * sigma, games=games)


def rated_name(seat: Seat) -> str | None:
    """Whom a seat's result rates: its platform player, its bot by level and budget, or
    nobody (a person without a platform id)."""
    if seat.player_id is not None:
        return seat.player_id
    if seat.kind != "bot" or seat.bot is None:
        return None
    bot = seat.bot
    name = f"bot:{bot['level']}"
    if bot.get("iterations") is not None:
        name += f":{bot['iterations']}"
    if bot.get("timeMs") is not None:
        name += f":{bot['timeMs']}ms"
    return name


def ladder_ratings(table: Table) -> dict[str, tuple[float, float]]:
    """The ``(mu, sigma)`` of each bot seat of ``table`` that the bots' ladder rates."""
    out = {}
    for seat in table.seats:
        if seat.player_id is None and seat.kind == "bot" and seat.bot is not None:
            try:
                entry = ladder_level(BotChoice.from_json(seat.bot))
            except BotError:  # not a choice a seat could be given: rated as any other name
                continue
            name = rated_name(seat)
            if entry is not None and name is not None:
                out[name] = (entry.mu, entry.sigma)
    return out


def placings(table: Table) -> list[tuple[str, float]]:
    """The rated players of a finished table and their places (1 = first; ties share)."""
    seats = [(rated_name(table.seats[p["player"]]), p["place"]) for p in ranking_json(table)]
    return once_each([(name, place) for name, place in seats if name is not None])


def once_each(places: list[tuple[str, int]]) -> list[tuple[str, float]]:
    """Each rated player once, in order of first appearance: a player at several seats (a bot)
    at the mean of its places."""
    seen: dict[str, list[int]] = {}
    for name, place in places:
        seen.setdefault(name, []).append(place)
    return [(name, sum(found) / len(found)) for name, found in seen.items()]


def updated(
    players: dict[str, list[Any]],
    results: list[tuple[str, float]],
    fixed: dict[str, tuple[float, float]] | None = None,
) -> dict[str, list[Any]]:
    """The new ``[mu, sigma, games]`` of each player in ``results`` (Plackett-Luce); a player
    in ``fixed`` (a ladder bot) plays at that ``(mu, sigma)`` and keeps it."""
    fixed = fixed or {}
    teams = []
    for name, _ in results:
        known = players.get(name)
        if name in fixed:
            known = [*fixed[name], 0]
        rating = (
            _MODEL.rating(name=name)
            if known is None
            else _MODEL.rating(mu=known[0], sigma=known[1], name=name)
        )
        teams.append([rating])
    rated = _MODEL.rate(teams, ranks=[place for _, place in results])
    out = {}
    for (name, _), team in zip(results, rated, strict=True):
        games = 0 if name not in players else int(players[name][2])
        mu, sigma = fixed.get(name, (float(team[0].mu), float(team[0].sigma)))
        out[name] = [mu, sigma, games + 1]
    return out


class Ratings:
    """A key's ratings over the versioned store (the tables' store)."""

    def __init__(self, store: VersionedStore) -> None:
        self.store = store

    async def _board(self, key: str) -> tuple[dict[str, Any], int]:
        record = await self.store.read(board_key(key))
        if record is None:
            return {"p": {}, "t": {}}, 0
        board: dict[str, Any] = msgpack.unpackb(record.data, raw=False)
        return board, record.version

    async def count(self, key: str, table: Table) -> bool:
        """Count a finished rated table's result in its key's ratings: True if this call did,
        False if it had been counted (or rates fewer than two players)."""
        results = placings(table)
        if len(results) < 2:
            return False
        for _ in range(MAX_SWAP_TRIES):
            board, version = await self._board(key)
            counted: dict[str, int] = board["t"]
            if table.id in counted:
                return False
            board["p"].update(updated(board["p"], results, ladder_ratings(table)))
            now = now_ms()
            oldest = now - COUNTED_DAYS * 86_400_000
            kept = sorted((at, tid) for tid, at in counted.items() if at > oldest)
            board["t"] = {tid: at for at, tid in kept[-(MAX_COUNTED - 1) :]}
            board["t"][table.id] = now
            data: bytes = msgpack.packb(board, use_bin_type=True)
            done, _ = await self.store.swap(board_key(key), version, data, ttl=RATINGS_TTL)
            if done:
                log.info("rated", extra={"table": table.id, "players": len(results)})
                return True
        raise PlatformError("STORE_UNAVAILABLE", "the ratings change too fast; retry")

    async def one(self, key: str, player: str) -> dict[str, Any]:
        board, _ = await self._board(key)
        found = board["p"].get(player)
        if found is None:
            raise PlatformError("PLAYER_NOT_FOUND", "this key has no rated game of this player")
        answer: dict[str, Any] = to_builtins(rating(player, found[0], found[1], found[2]))
        return answer

    async def page(self, key: str, limit: int, cursor: str | None) -> dict[str, Any]:
        """The key's players by ordinal (best first), ``limit`` from ``cursor`` on."""
        start = read_cursor(cursor)
        board, _ = await self._board(key)
        everyone = [rating(p, v[0], v[1], v[2]) for p, v in board["p"].items()]
        everyone.sort(key=lambda r: (-r.ordinal, r.player))
        chosen = everyone[start : start + limit]
        more = start + limit < len(everyone)
        return {
            "ratings": [to_builtins(r) for r in chosen],
            "next": str(start + limit) if more else None,
        }


def read_cursor(cursor: str | None) -> int:
    if cursor is None:
        return 0
    start = ascii_decimal(cursor, digits=9)
    if start is None:
        raise PlatformError("INVALID_REQUEST", "'cursor' is a 'next' of an earlier page")
    return start


def read_limit(limit: str | None) -> int:
    if limit is None:
        return DEFAULT_PAGE
    count = ascii_decimal(limit, digits=3)
    if count is None or not 1 <= count <= MAX_PAGE:
        raise PlatformError("INVALID_REQUEST", f"'limit' is 1 to {MAX_PAGE}")
    return count
