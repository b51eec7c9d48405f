"""Tables (DESIGN §9): people playing one game together, each from their own device.

The results of the table routes and the events of a table's stream, read from the service's JSON.
Views stay plain JSON objects, as everywhere in this client; ``raw`` keeps each answer whole.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from manhattan_client._base_errors import UnexpectedResponseError
from manhattan_client._models import JSON, Event, Move, Placing
from manhattan_client._sse import ServerSentEvent

#: The kinds of event a table's stream carries (DESIGN §9).
EVENT_KINDS = ("snapshot", "joined", "left", "started", "move", "chat", "timeout", "over")


def _need(obj: Any, key: str, kind: type | tuple[type, ...]) -> Any:
    value = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise UnexpectedResponseError(f"expected {key!r} in the table answer, got {value!r}")
    return value


def _optional_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True, slots=True)
class Seat:
    """A place at the table: ``kind`` is ``"open"``, ``"human"`` or ``"bot"``.

    ``player`` is the place's player number (seat order; open seats are dropped at start),
    ``away`` is set while a bot plays for a person whose time ran out. At a rematch,
    ``kept_for`` names the person the seat is kept for and ``back`` says they took it.
    """

    player: int | None
    name: str | None
    kind: str
    connected: bool = False
    away: bool = False
    kept_for: str | None = None
    back: bool = False
    #: A platform's player id (DESIGN §10), shown to the key that created the table only.
    id: str | None = None

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Seat:
        if not isinstance(obj, Mapping):
            raise UnexpectedResponseError(f"not a seat: {obj!r}")
        name = obj.get("name")
        player_id = obj.get("id")
        return cls(
            player=_optional_int(obj.get("player")),
            name=name if isinstance(name, str) else None,
            kind=str(obj.get("kind", "open")),
            connected=bool(obj.get("connected", False)),
            away=bool(obj.get("away", False)),
            kept_for=kept if isinstance(kept := obj.get("keptFor"), str) else None,
            back=obj.get("back") is True,
            id=player_id if isinstance(player_id, str) else None,
        )


@dataclass(frozen=True, slots=True)
class Table:
    """``GET /v1/tables/{id}`` as the caller sees it.

    ``view`` is the caller's seat's view (with a seat token) or the public view; ``moves`` are
    the caller's legal moves when it is the caller's turn, else empty. ``deadline`` is epoch
    milliseconds or None; ``players`` is set once the game started, ``ranking`` once it is over.
    """

    table_id: str
    status: str
    version: int
    seats: list[Seat]
    name: str | None = None
    to_move: int | None = None
    deadline: int | None = None
    view: JSON | None = None
    moves: list[Move] = field(default_factory=list)
    players: int | None = None
    ranking: list[Placing] = field(default_factory=list)
    #: The caller's own player number (its place at the table), when it has a seat.
    you: int | None = None
    public: bool = False
    turn_seconds: int | None = None
    #: The table ``rematch`` made of this one, once there is one.
    rematch: str | None = None
    raw: JSON = field(default_factory=dict, repr=False)

    @property
    def my_turn(self) -> bool:
        return self.status == "playing" and self.you is not None and self.to_move == self.you

    @property
    def waiting(self) -> bool:
        return self.status == "waiting"

    @property
    def over(self) -> bool:
        return self.status == "over"

    @classmethod
    def from_json(cls, obj: Any) -> Table:
        if not isinstance(obj, dict):
            raise UnexpectedResponseError(f"not a table: {obj!r}")
        name, view = obj.get("name"), obj.get("view")
        return cls(
            table_id=_need(obj, "tableId", str),
            status=_need(obj, "status", str),
            version=_need(obj, "version", int),
            seats=[Seat.from_json(s) for s in _need(obj, "seats", list)],
            name=name if isinstance(name, str) else None,
            to_move=_optional_int(obj.get("toMove")),
            deadline=_optional_int(obj.get("deadline")),
            view=view if isinstance(view, dict) else None,
            moves=[Move.from_json(m) for m in obj.get("moves") or []],
            players=_optional_int(obj.get("players")),
            ranking=[Placing.from_json(p) for p in obj.get("ranking") or []],
            you=_optional_int(obj.get("you")),
            public=obj.get("public") is True,
            turn_seconds=_optional_int(obj.get("turnSeconds")),
            rematch=rematch if isinstance(rematch := obj.get("rematch"), str) else None,
            raw=obj,
        )


@dataclass(frozen=True, slots=True)
class SeatToken:
    """A reserved seat's token (DESIGN §10), for the platform to hand to player ``id``."""

    seat: int
    id: str
    seat_token: str


@dataclass(frozen=True, slots=True)
class CreatedTable:
    """``POST /v1/tables``: the new table and the host's credential (for ``start``); with a
    platform key, one token per reserved seat."""

    table_id: str
    host_token: str
    table: Table
    seat_tokens: list[SeatToken] = field(default_factory=list)
    #: With a webhook: the ``whsec_`` secret its deliveries are signed with (``verify_webhook``).
    webhook_secret: str | None = None

    @classmethod
    def from_json(cls, obj: Any) -> CreatedTable:
        tokens = obj.get("seatTokens") if isinstance(obj, dict) else None
        secret = obj.get("webhookSecret") if isinstance(obj, dict) else None
        return cls(
            _need(obj, "tableId", str),
            _need(obj, "hostToken", str),
            Table.from_json(_need(obj, "table", dict)),
            [
                SeatToken(_need(t, "seat", int), _need(t, "id", str), _need(t, "seatToken", str))
                for t in tokens or ()
            ],
            secret if isinstance(secret, str) else None,
        )


@dataclass(frozen=True, slots=True)
class Seating:
    """``POST .../join``: the caller's seat token (its bearer from now on) and ``player``, the
    seat's place at the table. Open seats left at the start are dropped and the players
    numbered in seat order, so once the game starts ``Table.you`` is the player number."""

    player: int
    seat_token: str
    table: Table

    @classmethod
    def from_json(cls, obj: Any) -> Seating:
        return cls(
            _need(obj, "player", int),
            _need(obj, "seatToken", str),
            Table.from_json(_need(obj, "table", dict)),
        )


@dataclass(frozen=True, slots=True)
class Rematch:
    """``POST .../rematch``: the new table (same setup, seats and settings, a new seed). A seated
    caller gets the seat kept for them (``player``, ``seat_token``); the host gets the new
    table's ``host_token`` instead."""

    table_id: str
    table: Table
    player: int | None = None
    seat_token: str | None = None
    host_token: str | None = None

    @classmethod
    def from_json(cls, obj: Any) -> Rematch:
        def text(key: str) -> str | None:
            value = obj.get(key) if isinstance(obj, dict) else None
            return value if isinstance(value, str) else None

        return cls(
            _need(obj, "tableId", str),
            Table.from_json(_need(obj, "table", dict)),
            _optional_int(obj.get("player")),
            text("seatToken"),
            text("hostToken"),
        )


@dataclass(frozen=True, slots=True)
class ChatSent:
    """``POST .../chat``: the table version the message made, and the message as stored."""

    version: int
    player: int | None
    name: str | None
    text: str
    at: int | None

    @classmethod
    def from_json(cls, obj: Any) -> ChatSent:
        message = _need(obj, "message", dict)
        name = message.get("name")
        return cls(
            _need(obj, "version", int),
            _optional_int(message.get("player")),
            name if isinstance(name, str) else None,
            str(message.get("text", "")),
            _optional_int(message.get("at")),
        )


@dataclass(frozen=True, slots=True)
class TableMove:
    """``POST .../moves``: the table's new version, the mover's view and the events it may see."""

    version: int
    view: JSON
    events: list[Event]
    raw: JSON = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, obj: Any) -> TableMove:
        return cls(
            _need(obj, "version", int),
            _need(obj, "view", dict),
            [Event.from_json(e) for e in _need(obj, "events", list)],
            raw=obj,
        )


@dataclass(frozen=True, slots=True)
class Ticket:
    """``POST .../ticket``: a single-use credential for the event stream, valid ``expires_in`` s."""

    ticket: str
    expires_in: int

    @classmethod
    def from_json(cls, obj: Any) -> Ticket:
        return cls(_need(obj, "ticket", str), _need(obj, "expiresIn", int))


@dataclass(frozen=True, slots=True)
class TableRecord:
    """``GET .../record`` once the game is over: the setup (with its seed) and every move, which
    ``Client.replay(record.moves, setup=record.setup)`` replays."""

    setup: JSON
    moves: list[Move]
    raw: JSON = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, obj: Any) -> TableRecord:
        return cls(
            _need(obj, "setup", dict),
            [Move.from_json(m) for m in _need(obj, "moves", list)],
            raw=obj,
        )


# -- the stream's events -----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TableEvent:
    """One event of a table's stream: ``kind`` (DESIGN §9), the table ``version`` it brought
    (the SSE ``id``) and its ``data`` as sent, filtered for the receiver. The kinds with more to
    read are subclasses: ``Snapshot``, ``MovePlayed``, ``ChatMessage``, ``GameOver``."""

    kind: str
    version: int | None
    data: JSON

    @staticmethod
    def from_sse(event: ServerSentEvent) -> TableEvent:
        try:
            data = json.loads(event.data)
        except ValueError as exc:
            raise UnexpectedResponseError(f"{event.event} event with non-JSON data") from exc
        if not isinstance(data, dict):
            raise UnexpectedResponseError(f"{event.event} event whose data is not an object")
        version = int(event.id) if event.id is not None and event.id.isdigit() else None
        return TableEvent.of(event.event, version, data)

    @staticmethod
    def of(kind: str, version: int | None, data: JSON) -> TableEvent:
        if kind == "snapshot":
            table = Table.from_json(data)
            return Snapshot(kind, table.version if version is None else version, data, table)
        if kind == "move":
            to_move = data.get("toMove")
            move = data.get("move")
            return MovePlayed(
                kind,
                version,
                data,
                None if not isinstance(move, dict) else Move.from_json(move),
                [Event.from_json(e) for e in data.get("events") or []],
                _optional_int(to_move),
                _optional_int(data.get("player")),
                bool(data.get("bot", False)),
                _optional_int(data.get("deadline")),
                [Move.from_json(m) for m in data.get("moves") or []],
            )
        if kind == "chat":
            name, text = data.get("name"), data.get("text")
            return ChatMessage(
                kind,
                version,
                data,
                _optional_int(data.get("player")),
                name if isinstance(name, str) else None,
                text if isinstance(text, str) else "",
                _optional_int(data.get("at")),
            )
        if kind == "over":
            ranking = [Placing.from_json(p) for p in data.get("ranking") or []]
            return GameOver(kind, version, data, ranking)
        return TableEvent(kind, version, data)


@dataclass(frozen=True, slots=True)
class Snapshot(TableEvent):
    """The whole table as the receiver sees it: the first event, and the answer to a gap."""

    table: Table


@dataclass(frozen=True, slots=True)
class MovePlayed(TableEvent):
    """A move (a person's or a bot's), its events as the receiver may see them, who is next."""

    move: Move | None
    events: list[Event]
    to_move: int | None
    #: Who moved, and whether a bot played the turn (a bot seat, or a person away or gone).
    player: int | None = None
    by_bot: bool = False
    deadline: int | None = None
    #: The receiver's legal moves at ``version`` when it is to move next (else empty): play one
    #: without asking for the table first.
    moves: list[Move] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ChatMessage(TableEvent):
    player: int | None
    name: str | None
    text: str
    at: int | None = None


@dataclass(frozen=True, slots=True)
class GameOver(TableEvent):
    ranking: list[Placing]


@dataclass(frozen=True, slots=True)
class TableHistory:
    """``GET .../history``: what happened at the table so far, oldest first, as the caller may
    see it (a seat's token shows its own hand's events): the start, every move, and the joins,
    leaves, timeouts and end among the table's recent events; for a client that opens a table
    mid-game. Each event is read as the stream's event of its kind, without what only the newest
    carries (a move's view after it, the legal moves then); ``version`` is the table's."""

    table_id: str
    version: int
    events: list[TableEvent]
    raw: JSON = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, obj: Any) -> TableHistory:
        events: list[TableEvent] = []
        for item in _need(obj, "events", list):
            data = _need(item, "data", dict)
            kind = _need(item, "event", str)
            events.append(TableEvent.of(kind, _optional_int(data.get("version")), data))
        return cls(_need(obj, "tableId", str), _need(obj, "version", int), events, raw=obj)
