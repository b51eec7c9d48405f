"""Tables (DESIGN §9): the lobby, seats, moves, chat and rematch over the versioned store.

Every change is read -> decide -> one compare-and-set on the table's version; a lost race is read
again and decided again (a join then finds the seat taken and takes another, a move finds its
version stale), so no change is ever lost or applied twice, on one replica or many. Credentials
are checked before any state is touched. Every successful change publishes ``[tableId,
version]`` on one channel; each replica's ``Hub`` fans that out to its local streams and its
``Driver`` (bots and timers).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import msgpack
import msgspec

import manhattan
from manhattan import InvalidSetupError, Move, State, View
from manhattan.store.cas import VersionedStore

from .. import wire
from ..bots import BotChoice
from ..sealing import Sealer
from .errors import TableError
from .model import CHAT_SIZE, Seat, Table
from .projection import (
    SPECTATOR,
    Receiver,
    initial_state,
    move_answer,
    record_json,
    table_json,
)
from .tokens import TICKET_SECONDS, Bearer, host_token, new_table_id, new_ticket, read_bearer
from .tokens import seat_token as make_seat_token

log = logging.getLogger("manhattan.tables")

T = TypeVar("T")

PREFIX = "manhattan:1"
CHANNEL = f"{PREFIX}:tables:changed"
LOBBY_KEY = f"{PREFIX}:{{tables}}:lobby"
MAX_SWAP_TRIES = 64


def table_key(table_id: str) -> str:
    return f"{PREFIX}:{{table:{table_id}}}"


def presence_key(table_id: str) -> str:
    return f"{PREFIX}:{{table:{table_id}}}:presence"


def ticket_key(ticket: str) -> str:
    return f"{PREFIX}:tableticket:{ticket}"


def lease_key(table_id: str, version: int) -> str:
    return f"{PREFIX}:{{table:{table_id}}}:turn:{version}"


@dataclass(frozen=True, slots=True)
class TableSettings:
    #: Seconds a table lives after its last change (every change renews it).
    idle_seconds: int = 6 * 3600
    #: Chat: messages per seat within ``chat_window`` seconds.
    chat_burst: int = 5
    chat_window: float = 10.0
    #: Level that plays the seats of people who left or ran out of time.
    stand_in_level: str = "greedy"
    #: Seconds a bot may think per move (capped again by a bot seat's own budget).
    bot_seconds: float = 2.0
    #: Longest turnSeconds a table may ask for.
    max_turn_seconds: int = 86_400
    #: Public waiting tables listed at most.
    max_listed: int = 100


@dataclass(slots=True)
class Changed:
    """The outcome of one change: the table as stored and its new version."""

    table: Table
    version: int


class NoChange(Exception):
    """Raised by a change function that decided nothing needs writing; carries the answer."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer


def now_ms() -> int:
    return int(time.time() * 1000)


class Tables:
    """The table operations; one per app, shared by REST, GraphQL and streams."""

    def __init__(
        self,
        store: VersionedStore,
        sealer: Sealer,
        settings: TableSettings | None = None,
        *,
        on_change: Callable[[str, int], Awaitable[None]] | None = None,
    ) -> None:
        self.store = store
        self.sealer = sealer
        self.settings = settings or TableSettings()
        self._on_change = on_change

    # -- reading --------------------------------------------------------------------------
    async def load(self, table_id: str) -> tuple[Table, int]:
        if not _is_table_id(table_id):
            raise TableError("TABLE_NOT_FOUND", "no such table")
        record = await self.store.read(table_key(table_id))
        if record is None:
            raise TableError("TABLE_NOT_FOUND", "no such table (it may have expired)")
        return Table.decode(record.data), record.version

    async def connected(self, table_id: str) -> set[int]:
        record = await self.store.read(presence_key(table_id))
        if record is None:
            return set()
        seen: dict[int, int] = msgpack.unpackb(record.data, strict_map_key=False)
        now = now_ms()
        return {sid for sid, until in seen.items() if until > now}

    async def mark_connected(self, table_id: str, sid: int, seconds: float) -> None:
        """A seat's stream is open for at least ``seconds`` more (refreshed by heartbeats)."""
        key = presence_key(table_id)
        for _ in range(MAX_SWAP_TRIES):
            record = await self.store.read(key)
            seen: dict[int, int] = (
                {} if record is None else msgpack.unpackb(record.data, strict_map_key=False)
            )
            now = now_ms()
            seen = {s: until for s, until in seen.items() if until > now}
            seen[sid] = now + int(seconds * 1000)
            data: bytes = msgpack.packb(seen)
            expected = 0 if record is None else record.version
            done, _ = await self.store.swap(key, expected, data, ttl=self.settings.idle_seconds)
            if done:
                return

    def authenticate(self, table_id: str, bearer: str | None) -> Bearer | None:
        """The bearer's claim for this table, checked cryptographically (before any read)."""
        if bearer is None:
            return None
        if not _is_table_id(table_id):
            raise TableError("TABLE_NOT_FOUND", "no such table")
        return read_bearer(self.sealer, table_id, bearer)

    @staticmethod
    def check_bearer(table: Table, bearer: Bearer | None) -> Receiver:
        """The receiver a (cryptographically valid) bearer is for this table now: a revoked
        seat token (the person left) or host token is ``BAD_SEAT``."""
        if bearer is None:
            return SPECTATOR
        if bearer.sid is None:
            if bearer.epoch != table.host_epoch:
                raise TableError("BAD_SEAT", "this host token was revoked")
            return SPECTATOR
        seat = table.seat(bearer.sid)
        if seat is None or seat.epoch != bearer.epoch or seat.kind != "human" or seat.left:
            raise TableError("BAD_SEAT", "this seat token was revoked (the seat was left)")
        return Receiver(bearer.sid)

    @staticmethod
    def seated(table: Table, bearer: Bearer | None) -> Receiver:
        receiver = Tables.check_bearer(table, bearer)
        if receiver.sid is None:
            raise TableError("NOT_SEATED", "this needs a seat token of this table")
        return receiver

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

    async def view_for(self, table: Table, version: int, receiver: Receiver) -> dict[str, Any]:
        return table_json(table, version, receiver, connected=await self.connected(table.id))

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

    async def record(self, table_id: str) -> dict[str, Any]:
        table, _ = await self.load(table_id)
        if table.status != "over":
            raise TableError("TABLE_NOT_OVER", "the record is published when the game is over")
        return record_json(table)

    # -- writing --------------------------------------------------------------------------
    async def _write(self, table_id: str, change: Callable[[Table, int], T]) -> tuple[Changed, T]:
        """Read, apply ``change(table, new_version)``, compare-and-set; again on a lost race.
        ``change`` raises TableError to refuse, or NoChange to answer without writing."""
        key = table_key(table_id)
        for _ in range(MAX_SWAP_TRIES):
            table, version = await self.load(table_id)
            result = change(table, version + 1)
            table.updated = now_ms()
            done, _ = await self.store.swap(
                key, version, table.encode(), ttl=self.settings.idle_seconds
            )
            if done:
                await self._changed(table_id, version + 1)
                return Changed(table, version + 1), result
        raise TableError("STALE_VERSION", "the table changes too fast; retry")

    async def _changed(self, table_id: str, version: int) -> None:
        try:
            message: bytes = msgpack.packb([table_id, version])
            await self.store.publish(CHANNEL, message)
        except Exception as exc:  # streams re-read on their heartbeat; never fail a change
            log.warning("publish failed", extra={"error": repr(exc)})
        if self._on_change is not None:
            await self._on_change(table_id, version)

    async def create(self, body: object) -> dict[str, Any]:
        """``POST /v1/tables``: ``{"tableId", "hostToken", "table"}``."""
        table = self._new_table(body)
        done, _ = await self.store.swap(
            table_key(table.id), 0, table.encode(), ttl=self.settings.idle_seconds
        )
        if not done:  # 128 random bits collided: never, but never overwrite either
            raise TableError("STALE_VERSION", "table id collision; retry")
        await self._changed(table.id, 1)
        if table.public:
            await self._lobby(add=table.id)
        return {
            "tableId": table.id,
            "hostToken": host_token(self.sealer, table.id, table.host_epoch),
            "table": table_json(table, 1, SPECTATOR),
        }

    def _new_table(self, body: object) -> Table:
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
        if turn_seconds is not None and turn_seconds > self.settings.max_turn_seconds:
            raise wire.WireError(
                "INVALID_REQUEST",
                f"'turnSeconds' is 1 to {self.settings.max_turn_seconds} here, or null",
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

    async def _lobby(self, *, add: str | None = None, remove: str | None = None) -> None:
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

    async def join(self, table_id: str, body: object) -> dict[str, Any]:
        """``POST .../join``: the first open seat (or the one asked for), atomically."""
        join = wire.read(body, wire.JoinTable)
        name, wanted = join.name.strip(), join.seat
        if not name:
            raise wire.WireError("INVALID_REQUEST", "'name' is not blank", path="$.name")

        def change(table: Table, version: int) -> Seat:
            if table.status != "waiting":
                raise TableError("TABLE_NOT_WAITING", "the game has started; seats are closed")
            if wanted is not None:
                if not 0 <= wanted < len(table.seats):
                    raise wire.WireError(
                        "INVALID_REQUEST",
                        f"this table has seats 0 to {len(table.seats) - 1}",
                        path="$.seat",
                    )
                seat = table.seats[wanted]
                if seat.kind != "open" or seat.reserved is not None:
                    raise TableError("TABLE_FULL", f"seat {wanted} is taken")
            else:
                free = [s for s in table.seats if s.kind == "open" and s.reserved is None]
                if not free:
                    raise TableError("TABLE_FULL", "every seat is taken")
                seat = free[0]
            seat.kind, seat.name, seat.epoch = "human", name, seat.epoch + 1
            table.add_event(version, "joined", {"player": seat.sid, "name": seat.name})
            return seat

        changed, seat = await self._write(table_id, change)
        table = changed.table
        token = make_seat_token(self.sealer, table.id, seat.sid, seat.epoch)
        if table.public and all(s.kind != "open" for s in table.seats):
            await self._lobby(remove=table.id)
        return {
            "player": seat.sid,
            "seatToken": token,
            "table": await self.view_for(table, changed.version, Receiver(seat.sid)),
        }

    async def start(self, table_id: str, bearer: Bearer | None) -> dict[str, Any]:
        if bearer is None:
            raise TableError("NOT_SEATED", "start needs the host token or a seat token")

        def change(table: Table, version: int) -> Receiver:
            receiver = self.check_bearer(table, bearer)  # host or a seated person
            if table.status != "waiting":
                raise TableError("TABLE_NOT_WAITING", "the game has already started")
            filled = [s for s in table.seats if s.kind != "open"]
            if len(filled) < 2:
                raise TableError("TABLE_NOT_WAITING", "a game needs 2 to 4 seats filled")
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
            return receiver

        changed, receiver = await self._write(table_id, change)
        if changed.table.public:
            await self._lobby(remove=table_id)
        return {"table": await self.view_for(changed.table, changed.version, receiver)}

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

    async def move(
        self,
        table_id: str,
        bearer: Bearer | None,
        move_obj: object,
        version: object,
        move_id: object = None,
    ) -> dict[str, Any]:
        """``move_request`` from its fields (GraphQL's arguments)."""
        given = {"move": move_obj, "version": version, "moveId": move_id}
        body = {key: value for key, value in given.items() if value is not None}
        return await self.move_request(table_id, bearer, body)

    async def move_request(
        self, table_id: str, bearer: Bearer | None, body: object
    ) -> dict[str, Any]:
        """``POST .../moves`` with a ``wire.TableMoveRequest`` body: ``{"version", "view",
        "events"}`` for the mover."""
        if bearer is None or bearer.sid is None:
            raise TableError("NOT_SEATED", "a move needs a seat token")
        request = wire.read(body, wire.TableMoveRequest)
        version, move_id = request.version, request.move_id
        try:
            move = Move.from_wire(request.move)
        except manhattan.IllegalMoveError as exc:
            raise TableError(exc.code, exc.message) from None
        sid = bearer.sid
        key = table_key(table_id)
        for _ in range(MAX_SWAP_TRIES):
            table, current = await self.load(table_id)
            receiver = self.seated(table, bearer)
            if move_id is not None and (answer := table.answer_for(sid, move_id)) is not None:
                return answer
            if table.status == "over":
                raise TableError("GAME_OVER", "the game is over (RULES §8)")
            if table.status != "playing":
                raise TableError("TABLE_NOT_PLAYING", "the game has not started")
            if version != current:
                raise TableError(
                    "STALE_VERSION",
                    f"the table is at version {current}, not {version}",
                    table=await self.view_for(table, current, receiver),
                )
            player = table.player_of(sid)
            state = table.game()
            if state.to_move != player:
                raise TableError(
                    "NOT_YOUR_TURN", f"it is player {state.to_move}'s turn, not {player}'s"
                )
            assert player is not None
            try:
                transition = manhattan.play(state, move)
            except manhattan.IllegalMoveError as exc:
                raise TableError(exc.code, exc.message) from None
            table.seats[player].away = False
            answer = self._apply(table, current + 1, transition, bot=False)
            if move_id is not None:
                table.remember(sid, move_id, answer)
            table.updated = now_ms()
            done, _ = await self.store.swap(
                key, current, table.encode(), ttl=self.settings.idle_seconds
            )
            if done:
                await self._changed(table_id, current + 1)
                if table.status == "over":
                    await self.finish(table_id)
                return answer
        raise TableError("STALE_VERSION", "the table changes too fast; retry")

    def _apply(
        self, table: Table, version: int, transition: manhattan.Transition, *, bot: bool
    ) -> dict[str, Any]:
        """Write a transition into ``table`` (state, record, deadline, event): the answer."""
        state = transition.state
        player = transition.move.player
        assert player is not None
        events = [[e.to_json(), e.visible_to] for e in transition.events]
        table.set_game(state)
        table.moves.append(msgpack.packb(transition.move.to_json()))
        if state.is_over:
            table.status = "over"
            table.deadline = None
            table.bot_turn = False
        else:
            self._set_deadline(table, state)
        table.add_event(
            version,
            "move",
            {
                "player": player,
                "move": transition.move.to_json(),
                "events": events,
                "toMove": state.to_move,
                "deadline": table.deadline,
                "bot": bot,
            },
        )
        return move_answer(version, state, player, events)

    async def finish(self, table_id: str) -> None:
        """The ``over`` event, its own version after the last move (idempotent)."""

        def change(table: Table, version: int) -> None:
            if table.status != "over" or table.has_event("over"):
                raise NoChange(None)
            state = table.game()
            ranking = [p.to_json() for p in manhattan.ranking(state)]
            table.add_event(version, "over", {"ranking": ranking})

        with contextlib.suppress(NoChange):
            await self._write(table_id, change)

    async def bot_turn(self, table_id: str, expected: int, move: Move) -> bool:
        """A bot's move for the player to move at version ``expected`` (False: too late)."""
        table, current = await self.load(table_id)
        if current != expected or table.status != "playing":
            return False
        state = table.game()
        try:
            transition = manhattan.play(state, move)
        except manhattan.IllegalMoveError:
            log.warning("a bot move was refused", extra={"table": table_id})
            return False
        self._apply(table, current + 1, transition, bot=True)
        table.updated = now_ms()
        done, _ = await self.store.swap(
            table_key(table_id), current, table.encode(), ttl=self.settings.idle_seconds
        )
        if done:
            await self._changed(table_id, current + 1)
            if table.status == "over":
                await self.finish(table_id)
        return done

    async def time_out(self, table_id: str, expected: int) -> bool:
        """The person to move ran out of time: marked away, a bot plays this turn."""
        table, current = await self.load(table_id)
        if (
            current != expected
            or table.status != "playing"
            or table.deadline is None
            or table.deadline > now_ms()
        ):
            return False
        state = table.game()
        assert state.to_move is not None
        table.seats[state.to_move].away = True
        table.deadline = None
        table.bot_turn = True
        table.add_event(current + 1, "timeout", {"player": state.to_move})
        table.updated = now_ms()
        done, _ = await self.store.swap(
            table_key(table_id), current, table.encode(), ttl=self.settings.idle_seconds
        )
        if done:
            await self._changed(table_id, current + 1)
        return done

    async def leave(self, table_id: str, bearer: Bearer | None) -> dict[str, Any]:
        """Before the start the seat opens; after it, a bot plays it to the end. Either way
        the seat token is revoked."""

        def change(table: Table, version: int) -> None:
            receiver = self.seated(table, bearer)
            assert receiver.sid is not None
            seat = table.seat(receiver.sid)
            assert seat is not None
            player = table.seats.index(seat)
            name = seat.name
            seat.epoch += 1
            if table.status == "waiting":
                seat.kind, seat.name, seat.away, seat.reserved = "open", None, False, None
            else:
                seat.left, seat.away = True, True
                seat.bot = {"level": self.settings.stand_in_level}
                if table.status == "playing" and table.state is not None:
                    state = table.game()
                    if state.to_move == player:
                        table.deadline = None
            table.add_event(version, "left", {"player": player, "name": name})

        changed, _ = await self._write(table_id, change)
        if changed.table.public and changed.table.status == "waiting":
            await self._lobby(add=table_id)
        return {"table": table_json(changed.table, changed.version, SPECTATOR)}

    async def chat(self, table_id: str, bearer: Bearer | None, text: object) -> dict[str, Any]:
        """``chat_request`` from its text (GraphQL's argument)."""
        return await self.chat_request(table_id, bearer, {"text": text})

    async def chat_request(
        self, table_id: str, bearer: Bearer | None, body: object
    ) -> dict[str, Any]:
        """``POST .../chat`` with a ``wire.ChatRequest`` body."""
        text = wire.read(body, wire.ChatRequest).text.strip()
        if not text:
            raise wire.WireError("INVALID_REQUEST", "'text' is not blank", path="$.text")
        window = int(self.settings.chat_window * 1000)

        def change(table: Table, version: int) -> dict[str, Any]:
            receiver = self.seated(table, bearer)
            assert receiver.sid is not None
            seat = table.seat(receiver.sid)
            assert seat is not None
            now = now_ms()
            recent = [t for t in table.chat_times.get(receiver.sid, []) if t > now - window]
            if len(recent) >= self.settings.chat_burst:
                raise TableError(
                    "RATE_LIMITED",
                    f"at most {self.settings.chat_burst} messages in "
                    f"{self.settings.chat_window:g} s",
                )
            table.chat_times[receiver.sid] = [*recent, now]
            message = {
                "player": table.seats.index(seat),
                "name": seat.name,
                "text": text,
                "at": now,
            }
            table.chat.append(message)
            del table.chat[:-CHAT_SIZE]
            table.add_event(version, "chat", message)
            return message

        changed, message = await self._write(table_id, change)
        return {"version": changed.version, "message": message}

    async def rematch(self, table_id: str, bearer: Bearer | None) -> dict[str, Any]:
        """A new table with the same setup, seats and settings (a new seed); the caller keeps
        their seat (a new token), the other people's seats are open for them to join, and the
        old table points to the new one (``rematch``)."""
        if bearer is None:
            raise TableError("NOT_SEATED", "rematch needs the host token or a seat token")
        old, _ = await self.load(table_id)
        receiver = self.check_bearer(old, bearer)
        if old.status != "over":
            raise TableError("TABLE_NOT_OVER", "a rematch follows a finished game")
        if old.rematch is not None:
            return await self._join_rematch(old.rematch, old, receiver)
        seats: list[Any] = [
            {"bot": s.bot or {"level": self.settings.stand_in_level}} if s.kind == "bot" else "open"
            for s in old.seats
        ]
        body = {
            "setup": old.setup,
            "seats": seats,
            "public": old.public,
            "turnSeconds": old.turn_seconds,
            "name": old.name,
        }
        new = self._new_table(body)
        for old_seat, new_seat in zip(old.seats, new.seats, strict=True):
            if old_seat.kind == "human" and not old_seat.left:
                new_seat.reserved = f"{old.id}:{old_seat.sid}"

        def change(table: Table, version: int) -> str:
            if table.rematch is not None:
                raise NoChange(table.rematch)
            table.rematch = new.id
            table.add_event(version, "over", {"ranking": _ranking(table), "rematch": new.id})
            return new.id

        done, _ = await self.store.swap(
            table_key(new.id), 0, new.encode(), ttl=self.settings.idle_seconds
        )
        assert done
        try:
            await self._write(table_id, change)
            new_id = new.id
            if new.public:
                await self._lobby(add=new.id)
        except NoChange as already:
            new_id = already.answer
        return await self._join_rematch(new_id, old, receiver)

    async def _join_rematch(self, new_id: str, old: Table, receiver: Receiver) -> dict[str, Any]:
        """The caller's seat at the rematch: the one kept for them (again on a second ask);
        the host gets the new table's host token."""
        if receiver.sid is None:
            table, version = await self.load(new_id)
            return {
                "tableId": new_id,
                "hostToken": host_token(self.sealer, new_id, table.host_epoch),
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
            changed, seat = await self._write(new_id, change)
            table, version = changed.table, changed.version
        except NoChange as again:
            seat = again.answer
            table, version = await self.load(new_id)
        return {
            "tableId": new_id,
            "player": seat.sid,
            "seatToken": make_seat_token(self.sealer, new_id, seat.sid, seat.epoch),
            "table": await self.view_for(table, version, Receiver(seat.sid)),
        }

    # -- tickets --------------------------------------------------------------------------
    async def ticket(self, table_id: str, bearer: Bearer | None) -> dict[str, Any]:
        table, _ = await self.load(table_id)
        receiver = self.check_bearer(table, bearer)
        if bearer is None:
            raise TableError("NOT_SEATED", "a ticket needs a seat token or the host token")
        ticket = new_ticket()
        data: bytes = msgpack.packb([table_id, receiver.sid, bearer.epoch])
        await self.store.put(ticket_key(ticket), data, TICKET_SECONDS)
        return {"ticket": ticket, "expiresIn": TICKET_SECONDS}

    async def open_ticket(self, table_id: str, ticket: str) -> Bearer:
        """The bearer a ticket was issued to; used up by this call."""
        if not 8 <= len(ticket) <= 64:
            raise TableError("BAD_SEAT", "this ticket is not valid (they are single use, 60 s)")
        data = await self.store.take(ticket_key(ticket))
        if data is None:
            raise TableError("BAD_SEAT", "this ticket is not valid (they are single use, 60 s)")
        issued_for, sid, epoch = msgpack.unpackb(data)
        if issued_for != table_id:
            raise TableError("BAD_SEAT", "this ticket is for another table")
        return Bearer(sid, epoch)


def _ranking(table: Table) -> list[dict[str, int]]:
    return [p.to_json() for p in manhattan.ranking(table.game())]


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


def _is_table_id(text: str) -> bool:
    return len(text) == 32 and all(c in "0123456789abcdef" for c in text)
