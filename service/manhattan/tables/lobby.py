"""Creating tables, the lobby of public waiting tables, and what anyone may read of a table."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack
import msgspec

import manhattan
from manhattan import InvalidSetupError, View, wire
from manhattan.bots import BotChoice

from .errors import TableError
from .model import Seat, Table
from .projection import SPECTATOR, initial_state, record_json, table_json
from .records import LOBBY_KEY, MAX_SWAP_TRIES, TableRecords, now_ms, table_key
from .tokens import Bearer, host_token, new_table_id


class Lobby(TableRecords):
    async def create(
        self,
        body: object,
        *,
        max_turn_seconds: int | None = None,
        prepare: Callable[[Table], Awaitable[None]] | None = None,
    ) -> dict[str, Any]:
        """``POST /v1/tables``: ``{"tableId", "hostToken", "table"}``. ``max_turn_seconds``
        overrides the settings' bound (a platform key's tables); ``prepare`` is awaited with
        the new table before it is stored (a platform keeps its webhook first, so no change of
        the table can come before it)."""
        table = self.new_table(body, max_turn_seconds=max_turn_seconds)
        if prepare is not None:
            await prepare(table)
        await self.insert(table)
        if table.public:
            await self.index(add=table.id)
        return {
            "tableId": table.id,
            "hostToken": host_token(self.sealer, table.id, table.host_epoch),
            "table": table_json(table, 1, SPECTATOR),
        }

    def new_table(self, body: object, *, max_turn_seconds: int | None = None) -> Table:
        """A new table from a ``wire.NewTable`` body (faults: its codes and paths)."""
        new = wire.read(body, wire.NewTable)
        setup = new.setup or wire.TableSetup()
        players = setup.players
        seats_in = new.seats if new.seats is not None else ["open"] * (players or 4)
        if players is not None and len(seats_in) != players:
            raise wire.WireError(
                "INVALID_SETUP", "setup.players and the number of seats differ", path="$.seats"
            )
        seats = [_read_seat(i, s) for i, s in enumerate(seats_in)]
        turn_seconds = new.turn_seconds
        most = max_turn_seconds or self.settings.max_turn_seconds
        if turn_seconds is not None and turn_seconds > most:
            raise wire.WireError(
                "INVALID_REQUEST",
                f"'turnSeconds' is 1 to {most} here, or null",
                path="$.turnSeconds",
            )
        stored = msgspec.to_builtins(setup)
        stored.pop("players", None)
        table = Table(
            id=new_table_id(),
            name=new.name or "table",
            public=new.public,
            turn_seconds=turn_seconds,
            setup=stored,
            seed=secrets.token_hex(16),
            seats=seats,
            created=now_ms(),
        )
        try:  # the setup is checked now, with every seat filled, rather than at start
            initial_state(table)
        except InvalidSetupError as exc:
            raise TableError("INVALID_SETUP", exc.message) from None
        return table

    async def index(self, *, add: str | None = None, remove: str | None = None) -> None:
        """The index of public waiting tables: newest last, bounded; ``list_public`` skips the
        ids of tables that started or expired since."""
        for _ in range(MAX_SWAP_TRIES):
            record = await self.store.read(LOBBY_KEY)
            ids: list[str] = [] if record is None else msgpack.unpackb(record.data)
            ids = [i for i in ids if i not in (add, remove)]
            if add is not None:
                ids.append(add)
            data: bytes = msgpack.packb(ids[-2 * self.settings.max_listed :])
            expected = 0 if record is None else record.version
            done, _ = await self.store.swap(
                LOBBY_KEY, expected, data, ttl=self.settings.idle_seconds
            )
            if done:
                return

    async def list_public(self) -> list[dict[str, Any]]:
        record = await self.store.read(LOBBY_KEY)
        if record is None:
            return []
        ids: list[str] = msgpack.unpackb(record.data)
        out = []
        for table_id in reversed(ids):  # newest first
            found = await self.store.read(table_key(table_id))
            if found is None:
                continue
            table = Table.decode(found.data)
            open_seat = any(s.kind == "open" and s.reserved is None for s in table.seats)
            if table.status == "waiting" and table.public and open_seat:
                out.append(table_json(table, found.version, SPECTATOR))
                if len(out) == self.settings.max_listed:
                    break
        return out

    async def get(self, table_id: str, bearer: Bearer | None) -> dict[str, Any]:
        table, version = await self.load(table_id)
        receiver = self.check_bearer(table, bearer)
        if bearer is None and not table.public:
            raise TableError("NOT_SEATED", "a private table is seen by its people and its host")
        return table_json(table, version, receiver, connected=await self.connected(table_id))

    async def seat_view(self, table_id: str, bearer: Bearer | None) -> View:
        """The view of the seat to move, for what-if questions (preview, explanations) that
        the seat may ask of its own position: computed from the view, so nothing in them
        depends on what the seat cannot see (RULES §11)."""
        table, _ = await self.load(table_id)
        receiver = self.seated(table, bearer)
        if table.status == "over":
            raise TableError("GAME_OVER", "the game is over (RULES §8)")
        if table.status != "playing":
            raise TableError("TABLE_NOT_PLAYING", "the game has not started")
        assert receiver.sid is not None
        player = table.player_of(receiver.sid)
        state = table.game()
        if state.to_move != player:
            raise TableError(
                "NOT_YOUR_TURN", f"it is player {state.to_move}'s turn, not {player}'s"
            )
        assert player is not None
        return manhattan.view(state, player)

    async def record(self, table_id: str) -> dict[str, Any]:
        table, _ = await self.load(table_id)
        if table.status != "over":
            raise TableError("TABLE_NOT_OVER", "the record is published when the game is over")
        return record_json(table)


def _read_seat(index: int, seat: str | wire.BotSeat) -> Seat:
    if isinstance(seat, str):  # "open"
        return Seat(index)
    bot = seat.bot if isinstance(seat.bot, BotChoice) else BotChoice.of(seat.bot)
    if bot.seed:
        raise wire.WireError(
            "INVALID_BOT",
            "a table's bots draw a new seed every turn: leave 'seed' out",
            path=f"$.seats[{index}].bot.seed",
        )
    stored = {"level": bot.level, "iterations": bot.iterations, "timeMs": bot.time_ms}
    stored = {key: value for key, value in stored.items() if value is not None}
    return Seat(index, "bot", f"bot {index + 1} ({bot.level})", stored)
