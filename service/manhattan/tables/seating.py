"""Seats: joining, leaving, the rematch with the same people, and stream tickets."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack

from manhattan import wire
from manhattan.tables.errors import TableError
from manhattan.tables.lobby import Lobby
from manhattan.tables.model import Seat, Table
from manhattan.tables.names import check_name_free, person_name
from manhattan.tables.projection import SPECTATOR, Receiver, ranking_json, table_json
from manhattan.tables.records import NoChange, TableRecords, ticket_key
from manhattan.tables.tokens import TICKET_SECONDS, Bearer, host_token, new_ticket
from manhattan.tables.tokens import seat_token as make_seat_token

#: What a rematch's opener awaits with the old table and the new one, before the new one is stored.
Rematching = Callable[[Table, Table], Awaitable[None]]

BAD_TICKET = "this ticket is not valid (they are single use, 60 s)"


class Seating:
    """Joining, leaving, the rematch and stream tickets, written through ``records`` (the one
    write path); a rematch's new table is made by the ``lobby``."""

    def __init__(self, records: TableRecords, lobby: Lobby) -> None:
        self.records = records
        self.lobby = lobby

    async def join(
        self, table_id: str, body: object, bearer: Bearer | None = None
    ) -> dict[str, Any]:
        """``POST .../join``: the first open seat (or the one asked for), atomically. With the
        seat token of a reserved seat its player left (``leave``), that seat, taken back."""
        join = wire.read(body, wire.JoinTable)
        name, wanted = person_name(join.name, "$.name"), join.seat

        def change(table: Table, version: int) -> Seat:
            if table.status != "waiting":
                raise TableError("TABLE_NOT_WAITING", "the game has started; seats are closed")
            back = _kept_seat(table, bearer)
            if back is not None and wanted not in (None, table.seats.index(back)):
                raise wire.WireError(
                    "INVALID_REQUEST", "a seat token takes back its own seat only", path="$.seat"
                )
            seat = back if back is not None else _free_seat(table, wanted)
            check_name_free(name, _names_at(table, but=seat))
            seat.kind, seat.name, seat.kept_for = "human", name, None
            if back is None:  # a taken-back seat keeps its token
                seat.epoch += 1
            table.add_event(version, "joined", {"player": seat.sid, "name": seat.name})
            return seat

        changed, seat = await self.records.write(table_id, change)
        table = changed.table
        token = make_seat_token(self.records.sealer, table.id, seat.sid, seat.epoch)
        return {
            "player": seat.sid,
            "seatToken": token,
            "table": await self.records.view_for(table, changed.version, Receiver(seat.sid)),
        }

    async def leave(
        self, table_id: str, bearer: Bearer | None, *, owner: str | None = None
    ) -> dict[str, Any]:
        """Before the start the seat opens; after it, a bot plays it to the end. Either way
        the seat token is revoked, but for a seat a platform reserved, left before the start:
        it stays its player's (``keep_reserved``) unless the key that created the table
        (``owner``) frees it."""

        def change(table: Table, version: int) -> None:
            receiver = self.records.seated(table, bearer)
            assert receiver.sid is not None
            seat = table.seat(receiver.sid)
            assert seat is not None
            player = table.seats.index(seat)
            name = seat.name
            if table.status == "waiting" and seat.player_id is not None:
                keep_reserved(seat, freed=owner is not None and owner == table.owner)
            elif table.status == "waiting":
                seat.epoch += 1
                seat.kind, seat.name, seat.away, seat.reserved = "open", None, False, None
            else:
                seat.epoch += 1
                seat.left, seat.away = True, True
                seat.bot = {"level": self.records.settings.stand_in_level}
                if table.status == "playing" and table.state is not None:
                    state = table.game()
                    if state.to_move == player:
                        table.deadline = None
            table.add_event(version, "left", {"player": player, "name": name})

        changed, _ = await self.records.write(table_id, change)
        return {"table": table_json(changed.table, changed.version, SPECTATOR)}

    async def rematch(
        self, table_id: str, bearer: Bearer | None, prepare: Rematching | None = None
    ) -> dict[str, Any]:
        """A new table with the same setup, seats and settings (a new seed); the caller keeps
        their seat (a new token), the other people's seats are kept for them to join, and the
        old table points to the new one (``rematch``). ``prepare`` is awaited with the old
        table and the new one before the new one is stored (a platform's webhook goes on).

        The new table's id is derived from the old one's, so concurrent rematches all name the
        same table: the first insert wins and the others write nothing of their own."""
        if bearer is None:
            raise TableError("NOT_SEATED", "rematch needs the host token or a seat token")
        old, _ = await self.records.load(table_id)
        receiver = self.records.check_bearer(old, bearer)
        if old.status != "over":
            raise TableError("TABLE_NOT_OVER", "a rematch follows a finished game")
        new_id = old.rematch
        if new_id is None:
            new_id = await self._open_rematch(old, prepare)
            opened = new_id

            def change(table: Table, version: int) -> str:
                if table.rematch is not None:
                    raise NoChange(table.rematch)
                table.rematch = opened
                table.add_event(
                    version, "over", {"ranking": ranking_json(table), "rematch": opened}
                )
                return opened

            with contextlib.suppress(NoChange):
                await self.records.write(table_id, change)
        return await self._join_rematch(new_id, old, receiver)

    async def _open_rematch(self, old: Table, prepare: Rematching | None) -> str:
        """Insert the rematch table unless a concurrent call already has: its id."""
        seats: list[Any] = [
            {"bot": s.bot or {"level": self.records.settings.stand_in_level}}
            if s.kind == "bot"
            else "open"
            for s in old.seats
        ]
        body = {
            "setup": old.setup,
            "seats": seats,
            "public": old.public,
            "turnSeconds": old.turn_seconds,
            "name": old.name,
        }
        new, _ = self.lobby.new_table(body)
        new.id = rematch_id(old.id)
        new.owner, new.rated = old.owner, old.rated  # a platform's table stays its own
        for old_seat, new_seat in zip(old.seats, new.seats, strict=True):
            if old_seat.kind == "bot":  # its name at the old table, where no person's is like it
                new_seat.name = old_seat.name
            if old_seat.kind == "human" and not old_seat.left:
                new_seat.reserved = f"{old.id}:{old_seat.sid}"
                new_seat.kept_for = old_seat.name
                new_seat.player_id = old_seat.player_id
        if prepare is not None:
            await prepare(old, new)
        try:
            await self.records.insert(new)
        except TableError as exc:
            if exc.code != "STALE_VERSION":
                raise
            return new.id  # another call inserted it first
        return new.id

    async def _join_rematch(self, new_id: str, old: Table, receiver: Receiver) -> dict[str, Any]:
        """The caller's seat at the rematch: the one kept for them (again on a second ask);
        the host gets the new table's host token."""
        if receiver.sid is None:
            table, version = await self.records.load(new_id)
            return {
                "tableId": new_id,
                "hostToken": host_token(self.records.sealer, new_id, table.host_epoch),
                "table": table_json(table, version, SPECTATOR),
            }
        old_seat = old.seat(receiver.sid)
        assert old_seat is not None
        mark = f"{old.id}:{old_seat.sid}"

        def change(table: Table, version: int) -> Seat:
            for seat in table.seats:
                if seat.reserved == mark:
                    if seat.kind == "human":
                        raise NoChange(seat)  # asked again: the same seat, a token for it
                    if table.status != "waiting":
                        raise TableError("TABLE_NOT_WAITING", "the rematch has started")
                    seat.kind, seat.name, seat.epoch = "human", old_seat.name, seat.epoch + 1
                    table.add_event(version, "joined", {"player": seat.sid, "name": seat.name})
                    return seat
            raise TableError("TABLE_FULL", "no seat at the rematch is kept for this seat")

        try:
            changed, seat = await self.records.write(new_id, change)
            table, version = changed.table, changed.version
        except NoChange as again:
            seat = again.answer
            table, version = await self.records.load(new_id)
        return {
            "tableId": new_id,
            "player": seat.sid,
            "seatToken": make_seat_token(self.records.sealer, new_id, seat.sid, seat.epoch),
            "table": await self.records.view_for(table, version, Receiver(seat.sid)),
        }

    async def ticket(self, table_id: str, bearer: Bearer | None) -> dict[str, Any]:
        table, _ = await self.records.load(table_id)
        receiver = self.records.check_bearer(table, bearer)
        if bearer is None:
            raise TableError("NOT_SEATED", "a ticket needs a seat token or the host token")
        ticket = new_ticket()
        data: bytes = msgpack.packb([table_id, receiver.sid, bearer.epoch])
        await self.records.store.put(ticket_key(ticket), data, TICKET_SECONDS)
        return {"ticket": ticket, "expiresIn": TICKET_SECONDS}

    async def open_ticket(self, table_id: str, ticket: str) -> Bearer:
        """The bearer a ticket was issued to; used up by this call."""
        if not 8 <= len(ticket) <= 64:
            raise TableError("BAD_SEAT", BAD_TICKET)
        data = await self.records.store.take(ticket_key(ticket))
        if data is None:
            raise TableError("BAD_SEAT", BAD_TICKET)
        issued_for, sid, epoch = msgpack.unpackb(data)
        if issued_for != table_id:
            raise TableError("BAD_SEAT", "this ticket is for another table")
        return Bearer(sid, epoch)


def rematch_id(table_id: str) -> str:
    """The id of a table's rematch: the same for every replica and every concurrent ask."""
    return hashlib.blake2b(f"rematch:{table_id}".encode(), digest_size=16).hexdigest()


def keep_reserved(seat: Seat, *, freed: bool) -> None:
    """A reserved seat its player leaves before the start: empty, still kept for the player's id
    and name, and its seat token (the platform's) takes it back (``join`` with that token);
    at the start it is left out like an open seat. ``freed`` (by the key): an open seat, its
    token revoked."""
    seat.kind, seat.away = "open", False
    if freed:
        seat.epoch += 1
        seat.name, seat.kept_for, seat.player_id, seat.reserved = None, None, None, None
    else:
        seat.name, seat.kept_for = None, seat.name


def _kept_seat(table: Table, bearer: Bearer | None) -> Seat | None:
    """The reserved seat ``bearer``'s seat token is for, when its player left it (to take
    back); None for any other bearer, who joins as anyone does."""
    if bearer is None or bearer.sid is None:
        return None
    seat = table.seat(bearer.sid)
    if seat is None or seat.kind != "open" or seat.player_id is None:
        return None
    return seat if seat.epoch == bearer.epoch else None


def _names_at(table: Table, but: Seat | None = None) -> list[tuple[int, str]]:
    """(seat, name) of everyone at the table, and of the people open seats are kept for
    (``but`` the seat being taken)."""
    names = []
    for index, seat in enumerate(table.seats):
        if seat is but:
            continue
        name = seat.name if seat.name is not None else seat.kept_for
        if name is not None:
            names.append((index, name))
    return names


def _free_seat(table: Table, wanted: int | None) -> Seat:
    """The seat asked for, or the first open one not kept for anyone. A seat a platform
    reserved for its player is never joined (``SEAT_RESERVED``): its token was handed out."""
    if wanted is None:
        free = [s for s in table.seats if s.kind == "open" and not s.kept]
        if not free:
            kept = [s for s in table.seats if s.kind == "open"]
            if kept:
                names = ", ".join(s.kept_for or "someone" for s in kept)
                raise TableError(
                    "SEAT_RESERVED",
                    f"the open seats are kept for the players of the last game ({names}): they "
                    "take them back with rematch"
                    if any(s.reserved is not None for s in kept)
                    else f"the open seats are reserved for a platform's players ({names}): they "
                    "take them back with their seat tokens",
                )
            raise TableError("TABLE_FULL", "every seat is taken")
        return free[0]
    if not 0 <= wanted < len(table.seats):
        raise wire.WireError(
            "INVALID_REQUEST", f"this table has seats 0 to {len(table.seats) - 1}", path="$.seat"
        )
    seat = table.seats[wanted]
    if seat.player_id is not None:
        raise TableError("SEAT_RESERVED", f"seat {wanted} is reserved for a platform's player")
    if seat.kind == "open" and seat.reserved is not None:
        raise TableError(
            "SEAT_RESERVED", f"seat {wanted} is kept for {seat.kept_for or 'someone'} (a rematch)"
        )
    if seat.kind != "open" or seat.reserved is not None:
        raise TableError("TABLE_FULL", f"seat {wanted} is taken")
    return seat
