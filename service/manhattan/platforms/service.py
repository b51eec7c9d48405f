"""``Platforms``: what the API calls for a platform's requests (DESIGN §10).

It holds the keys, the tables (which stay unaware of platforms: they take the caller's key name
as a value and announce changes and ends through ``TableChanges``, which ``Platforms``
implements, passing changes on to the webhooks and ends to the ratings and the players' table
index), the players' table index
and the ratings. Each key sees only its own: a table's player ids, a player's tables and ratings
are looked up under the calling key's name, so another key finds nothing there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from manhattan.platforms.errors import PlatformError
from manhattan.platforms.keys import ApiKeys
from manhattan.platforms.players import PlayerTables
from manhattan.platforms.ratings import Ratings, read_limit
from manhattan.platforms.webhooks import Webhooks
from manhattan.store.cas import VersionedStore
from manhattan.tables import Bearer, Tables
from manhattan.tables.model import Table
from manhattan.wire.player_ids import check_player_id, is_bot_name


class Platforms:
    def __init__(
        self, keys: ApiKeys, tables: Tables, store: VersionedStore, webhooks: Webhooks
    ) -> None:
        self.keys = keys
        self.webhooks = webhooks
        self.tables = tables
        self.players = PlayerTables(store)
        self.ratings = Ratings(store)

    # -- what the tables announce (``TableChanges``) ----------------------------------------
    def table_changed(self, table_id: str, version: int) -> None:
        self.webhooks.table_changed(table_id, version)

    async def table_over(self, table: Table) -> None:
        """A key's rated table counts in its ratings (once), and the players a rematch would
        keep a seat for learn its id (even when the ratings failed)."""
        try:
            if table.owner is not None and table.rated:
                await self.ratings.count(table.owner, table)
        finally:
            await self.players.table_over(table)

    # -- who calls ------------------------------------------------------------------------
    def caller(self, headers: Mapping[str, str]) -> str | None:
        """The calling key's name, None for an anonymous caller (``BAD_KEY`` if unknown)."""
        return self.keys.caller(headers)

    def platform(self, headers: Mapping[str, str]) -> str:
        """The calling key's name, for what only a platform may ask."""
        key = self.caller(headers)
        if key is None:
            raise PlatformError(
                "BAD_KEY", "this needs a platform key: send the 'Manhattan-Key' header"
            )
        return key

    # -- tables ---------------------------------------------------------------------------
    async def create(self, key: str | None, body: object) -> dict[str, Any]:
        """``POST /v1/tables``: with a key, reserved seats (``seatTokens``), ``rated`` and
        ``autoStart``, a webhook (``webhookSecret``); each reserved player's index learns of
        the table."""
        created = await self.webhooks.create_table(key, body)
        if key is not None:
            for given in created["seatTokens"]:
                await self.players.add(key, given["id"], created["tableId"])
        return created

    async def start(self, key: str | None, table_id: str, bearer: Bearer | None) -> dict[str, Any]:
        """The host, a seated player or the key that created the table starts it."""
        return await self.tables.start(table_id, bearer, owner=key)

    async def leave(self, key: str | None, table_id: str, bearer: Bearer | None) -> dict[str, Any]:
        """A seat token leaves; with the key that created the table, a reserved seat left
        before the start is freed (an open seat) instead of kept for its player."""
        return await self.tables.leave(table_id, bearer, owner=key)

    async def rematch(self, table_id: str, bearer: Bearer | None) -> dict[str, Any]:
        """A rematch of a key's table stays the key's (its ratings, its players' index) and
        keeps its webhook: the deliveries of the new table go where the old one's went."""
        return await self.tables.rematch(table_id, bearer, prepare=self.webhooks.carry)

    async def get(self, key: str | None, table_id: str, bearer: Bearer | None) -> dict[str, Any]:
        return await self.tables.get(table_id, bearer, key=key)

    async def my_tables(self, key: str, player: str) -> dict[str, Any]:
        """``GET /v1/tables?player=<id>``: the key's tables where ``player`` holds a seat."""
        check_player_id(player, "$.player")
        return {"player": player, "tables": await self.players.tables(key, player)}

    # -- ratings --------------------------------------------------------------------------
    async def rating(self, key: str, player: str) -> dict[str, Any]:
        """A player's rating, or a bot's (``bot:greedy``: ``ratings.rated_name``)."""
        if not is_bot_name(player):
            check_player_id(player, "$.player")
        return await self.ratings.one(key, player)

    async def rating_page(
        self, key: str, limit: str | None = None, cursor: str | None = None
    ) -> dict[str, Any]:
        return await self.ratings.page(key, read_limit(limit), cursor)
