"""Creating tables, the lobby of public waiting tables, and what anyone may read of a table."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack
import msgspec

import manhattan
from manhattan import InvalidSetupError, State, View, wire
from manhattan.bots import BotChoice
from manhattan.tables.errors import TableError
from manhattan.tables.model import Seat, Table
from manhattan.tables.names import check_names_distinct, check_text, person_name
from manhattan.tables.projection import SPECTATOR, initial_state, record_json, table_json
from manhattan.tables.records import TableRecords, is_table_id, now_ms, table_key
from manhattan.tables.tokens import Bearer, host_token, new_table_id, seat_token
from manhattan.wire.numbers import ascii_decimal
from manhattan.wire.player_ids import check_player_id


class Lobby(TableRecords):
    async def create(
        self,
        body: object,
        *,
        owner: str | None = None,
        max_turn_seconds: int | None = None,
        prepare: Callable[[Table], Awaitable[None]] | None = None,
    ) -> dict[str, Any]:
        """``POST /v1/tables``: ``{"tableId", "hostToken", "table"}``; a platform (``owner``,
        its key's name) also gets ``seatTokens`` for its reserved seats (DESIGN §10).
        ``max_turn_seconds`` overrides the settings' bound (a platform key's tables);
        ``prepare`` is awaited with the new table before it is stored (a platform keeps its
        webhook first, so no change of the table can come before it)."""
        table, auto_start = self.new_table(body, owner, max_turn_seconds=max_turn_seconds)
        if auto_start:  # started in the same write that creates it
            self.begin(table, 1)
        if prepare is not None:
            await prepare(table)
        await self.insert(table)
        created: dict[str, Any] = {
            "tableId": table.id,
            "hostToken": host_token(self.sealer, table.id, table.host_epoch),
            "table": table_json(table, 1, SPECTATOR, key=owner),  # nobody is connected yet
        }
        if owner is not None:
            created["seatTokens"] = [
                {
                    "seat": index,
                    "id": seat.player_id,
                    "seatToken": seat_token(self.sealer, table.id, seat.sid, seat.epoch),
                }
                for index, seat in enumerate(table.seats)
                if seat.player_id is not None
            ]
        return created

    def new_table(
        self, body: object, owner: str | None = None, *, max_turn_seconds: int | None = None
    ) -> tuple[Table, bool]:
        """A new table from a ``wire.NewTable`` body (faults: its codes and paths) and whether
        it asks to start at once. Reserved seats, ``rated`` and ``autoStart`` need an owner."""
        new = wire.read(body, wire.NewTable)
        if new.name is not None:
            check_text(new.name, "$.name", "a table's name")
        if owner is None:
            _refuse_platform_fields(new)
        setup = new.setup or wire.TableSetup()
        players = setup.players
        seats_in = new.seats if new.seats is not None else ["open"] * (players or 4)
        if players is not None and len(seats_in) != players:
            raise wire.WireError(
                "INVALID_SETUP", "setup.players and the number of seats differ", path="$.seats"
            )
        seats = [_read_seat(i, s) for i, s in enumerate(seats_in)]
        ids = [s.player_id for s in seats if s.player_id is not None]
        if len(set(ids)) != len(ids):
            raise wire.WireError(
                "INVALID_REQUEST", "a player id is reserved at most once a table", path="$.seats"
            )
        check_names_distinct((s.sid, s.name) for s in seats if s.name is not None)
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
            public=owner is None if new.public is msgspec.UNSET else new.public,
            turn_seconds=turn_seconds,
            setup=stored,
            seed=secrets.token_hex(16),
            seats=seats,
            created=now_ms(),
            owner=owner,
            rated=new.rated,
        )
        try:  # the setup is checked now, with every seat filled, rather than at start
            initial_state(table)
        except InvalidSetupError as exc:
            raise TableError("INVALID_SETUP", exc.message) from None
        return table, new.auto_start

    def begin(self, table: Table, version: int) -> None:
        """Start ``table``'s game (its change at ``version``): the filled seats play, in order."""
        if table.status != "waiting":
            raise TableError("TABLE_NOT_WAITING", "the game has already started")
        filled = [s for s in table.seats if s.kind != "open"]
        if len(filled) < 2:
            raise TableError(
                "TOO_FEW_PLAYERS",
                f"a game needs 2 to 4 seats filled; {len(filled)} is filled: wait for "
                "another player to join, or open the table with a bot seat",
            )
        table.seats = filled
        try:
            state = initial_state(table)
        except InvalidSetupError as exc:
            raise TableError("INVALID_SETUP", exc.message) from None
        table.set_game(state)
        table.status = "playing"
        self._set_deadline(table, state)
        seats = [{"player": i, "name": s.name, "kind": s.kind} for i, s in enumerate(filled)]
        started = {"seats": seats, "deadline": table.deadline, "state": table.state}
        table.add_event(version, "started", started)

    def _set_deadline(self, table: Table, state: State) -> None:
        """A person to move gets ``turnSeconds``; bots and stand-ins have no deadline."""
        table.bot_turn = False
        table.deadline = None
        if state.is_over or table.turn_seconds is None:
            return
        assert state.to_move is not None
        seat = table.seats[state.to_move]
        if not seat.bot_plays:
            table.deadline = now_ms() + table.turn_seconds * 1000

    async def page(self, query: object) -> dict[str, Any]:
        """``GET /v1/tables``: a page of the lobby (``wire.LobbyQuery``), newest activity first,
        from the index (``lobby_index``): its cost is the page's, whatever the number of
        tables. Filters are applied to the entries in order; a page whose filters skipped
        ``SCAN_LIMIT`` entries ends early with a ``next`` cursor to go on from."""
        q = wire.read(query, wire.LobbyQuery)
        last = _read_cursor(q.cursor)
        out: list[dict[str, Any]] = []
        scanned, more = 0, False
        while not more:
            # Most tables listed have a free seat: a first batch of the page (and one to know
            # whether there is a next), then larger ones while filters skip entries.
            want = q.limit + 1 if scanned == 0 else 100
            batch = await self.lobby_index.after(last, want)
            for activity, table_id, blob in batch:
                entry: dict[str, Any] = msgpack.unpackb(blob)
                if _matches(entry, q):
                    if len(out) == q.limit:
                        more = True
                        break
                    out.append(entry)
                last = (activity, table_id)
                scanned += 1
            if len(batch) < want:
                break
            if scanned >= SCAN_LIMIT:
                more = True
        return {"tables": out, "next": _cursor(last) if more and last else None}

    async def list_public(self) -> list[dict[str, Any]]:
        """GraphQL's ``tables``: the newest public tables with a free seat, in full (at most
        ``max_listed`` reads, never a scan)."""
        page = await self.page({"limit": self.settings.max_listed})
        out = []
        for entry in page["tables"]:
            found = await self.store.read(table_key(entry["tableId"]))
            if found is not None:
                out.append(table_json(Table.decode(found.data), found.version, SPECTATOR))
        return out

    async def get(
        self, table_id: str, bearer: Bearer | None, *, key: str | None = None
    ) -> dict[str, Any]:
        """A table as the bearer sees it; ``key`` (a platform key's name) sees its own private
        tables and its player ids (DESIGN §10)."""
        table, version = await self.load(table_id)
        receiver = self.check_bearer(table, bearer)
        owns = key is not None and key == table.owner
        if bearer is None and not table.public and not owns:
            raise TableError("NOT_SEATED", "a private table is seen by its people and its host")
        return await self.view_for(table, version, receiver, key=key)

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


#: Entries a filtered page looks at before it ends early with a cursor.
SCAN_LIMIT = 1000


def _matches(entry: dict[str, Any], q: wire.LobbyQuery) -> bool:
    setup = entry["setup"]
    if q.players is not None and setup["players"] != q.players:
        return False
    if q.edition is not None and setup["edition"] != q.edition:
        return False
    return bool(entry["openSeats"] > 0) == q.open


def _cursor(last: tuple[int, str]) -> str:
    return f"{last[0]}.{last[1]}"


def _read_cursor(text: str | None) -> tuple[int, str] | None:
    if text is None:
        return None
    activity, _, table_id = text.partition(".")
    when = ascii_decimal(activity)
    if when is None or not is_table_id(table_id):
        raise wire.WireError(
            "INVALID_REQUEST", "'cursor' is the 'next' of a previous lobby page", path="$.cursor"
        )
    return when, table_id


def _refuse_platform_fields(new: wire.NewTable) -> None:
    """What only a platform may ask for, asked without a key: a clear refusal."""
    for index, seat in enumerate(new.seats or ()):
        if not isinstance(seat, str) and seat.reserved is not None:
            raise TableError(
                "BAD_KEY",
                "a reserved seat needs a platform key: send the 'Manhattan-Key' header"
                f" ($.seats[{index}])",
            )
    for field, asked in (("rated", new.rated), ("autoStart", new.auto_start)):
        if asked:
            raise TableError(
                "BAD_KEY", f"'{field}' needs a platform key: send the 'Manhattan-Key' header"
            )


def _read_seat(index: int, seat: str | wire.SeatChoice) -> Seat:
    if isinstance(seat, str):  # "open"
        return Seat(index)
    if (seat.bot is None) == (seat.reserved is None):
        raise wire.WireError(
            "INVALID_REQUEST",
            'a seat is "open", {"bot": ...} or {"reserved": {"id", "name"}}',
            path=f"$.seats[{index}]",
        )
    if seat.reserved is not None:  # filled now: its token goes to the platform
        player = seat.reserved
        path = f"$.seats[{index}].reserved"
        name = person_name(player.name, f"{path}.name")
        player_id = check_player_id(player.id, f"{path}.id")
        return Seat(index, "human", name, epoch=1, player_id=player_id)
    assert seat.bot is not None
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
