"""A platform's players' tables (DESIGN §10 "My tables"): an index per key and player id.

Each (key, player id) has one versioned record listing the ids of the key's tables where the
player was given a seat, newest last and bounded (``MAX_PER_PLAYER``); it is written, by
compare-and-set, when the key creates a table with reserved seats, and when such a table ends:
then its players' indexes get the id its rematch will have (``rematch_id``, the same for every
replica), since a rematch keeps their seats and ids and stays the key's table; until somebody
asks for the rematch, the id names no table and the listing skips it. Listing reads that one
record and the tables it names (never a scan of all tables), keeps those that still exist,
still belong to the key and where the id still holds a seat, and orders them: waiting and
playing first, then the last finished ones, newest first within each.
"""

from __future__ import annotations

from typing import Any

import msgpack

from manhattan.store.cas import VersionedStore
from manhattan.tables.model import Table
from manhattan.tables.projection import SPECTATOR, table_json
from manhattan.tables.records import MAX_SWAP_TRIES, PREFIX, table_key
from manhattan.tables.seating import rematch_id

#: Tables remembered per player (the oldest leave first) and finished tables listed at most.
MAX_PER_PLAYER = 200
MAX_FINISHED = 20
#: An index lives this long after its last new table (a table lives far less).
INDEX_TTL = 90 * 86_400


def player_key(key: str, player: str) -> str:
    return f"{PREFIX}:{{platform:{key}}}:player:{player}"


class PlayerTables:
    """The (key, player id) -> table ids index over the tables' versioned store."""

    def __init__(self, store: VersionedStore) -> None:
        self.store = store

    async def add(self, key: str, player: str, table_id: str) -> None:
        record_key = player_key(key, player)
        for _ in range(MAX_SWAP_TRIES):
            record = await self.store.read(record_key)
            ids: list[str] = [] if record is None else msgpack.unpackb(record.data)
            if table_id in ids:
                return
            ids = [*ids, table_id][-MAX_PER_PLAYER:]
            data: bytes = msgpack.packb(ids)
            expected = 0 if record is None else record.version
            done, _ = await self.store.swap(record_key, expected, data, ttl=INDEX_TTL)
            if done:
                return

    async def table_over(self, table: Table) -> None:
        """A game ended (``Platforms.table_over``): the players a rematch would keep a seat for
        learn its id."""
        if table.owner is None:
            return
        for seat in table.seats:
            if seat.player_id is not None and seat.kind == "human" and not seat.left:
                await self.add(table.owner, seat.player_id, rematch_id(table.id))

    async def tables(self, key: str, player: str) -> list[dict[str, Any]]:
        """The player's tables at this key, as the key sees them (with its player ids)."""
        record = await self.store.read(player_key(key, player))
        if record is None:
            return []
        ids: list[str] = msgpack.unpackb(record.data)
        current: list[dict[str, Any]] = []
        finished: list[dict[str, Any]] = []
        for table_id in reversed(ids):  # newest first
            found = await self.store.read(table_key(table_id))
            if found is None:
                continue
            table = Table.decode(found.data)
            if table.owner != key or all(s.player_id != player for s in table.seats):
                continue
            shown = table_json(table, found.version, SPECTATOR, key=key)
            if table.status == "over":
                if len(finished) < MAX_FINISHED:
                    finished.append(shown)
            else:
                current.append(shown)
        return current + finished
