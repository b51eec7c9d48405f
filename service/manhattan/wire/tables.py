"""The tables' request and response shapes (DESIGN §9), once, with their bounds.

``manhattan.tables`` reads every body with these (``read``: the same codes and paths as the
stateless API), ``api/rest/openapi.py`` states them in ``/openapi.json`` and the boundary test sends
each bound's edges. The answers are built by ``tables/projection.py``; a test converts each one
to its shape here, so the document and the answers cannot drift apart.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from manhattan.bots.choice import BotChoice, BotLevel
from manhattan.wire import player_ids
from manhattan.wire.games import Edition, GameOptions, MoveIn, MoveOut, Placing, Validation
from manhattan.wire.player_ids import MAX_PLAYER_ID
from manhattan.wire.reading import Answer, Shape, ref

#: Longest table name, person's name and chat message; a turn's longest time; a move id's length.
MAX_NAME = 40
MAX_CHAT = 280
MAX_TURN_SECONDS = 86_400
#: A platform key's tables (correspondence play, DESIGN §10) may give a turn up to 14 days.
MAX_KEYED_TURN_SECONDS = 14 * 86_400
MAX_WEBHOOK_URL = 2048
MAX_MOVE_ID = 64

Name = Annotated[str, Meta(min_length=1, max_length=MAX_NAME)]
TableStatus = Literal["waiting", "playing", "over"]
SeatKind = Literal["open", "human", "bot"]
#: The event types of a table's stream (SSE ``event:``, GraphQL ``tableEvents``).
TableEventType = Literal["snapshot", "joined", "left", "started", "move", "chat", "timeout", "over"]
#: The events a table's history holds: the stream's but its snapshots and chat.
HistoryEventType = Literal["joined", "left", "started", "move", "timeout", "over"]
#: The events a table's webhook may ask for (DESIGN §10).
WebhookEvent = Literal["table.started", "table.turn", "table.timeout", "table.left", "table.over"]


# -- request bodies ----------------------------------------------------------------------------
class TableSetup(GameOptions):
    """A table's game: as ``Setup`` but without a seed (the service always draws it) and with
    ``players`` optional (the seats filled at start decide it)."""

    players: Annotated[int, Meta(ge=2, le=4)] | None = None


class PlatformPlayer(Shape):
    """A platform's player (DESIGN §10): its id (1-64 printable characters, not starting with
    ``bot:``, checked where the seat is read) and a name (the rule of a join's)."""

    id: Annotated[str, Meta(min_length=1, max_length=MAX_PLAYER_ID, description=player_ids.RULE)]
    name: Name


class SeatChoice(Shape):
    """A seat that is not open: exactly one of ``{"bot": BotChoice}`` (or a level name; a
    table's bots draw a new seed every turn, so a seed is refused) and ``{"reserved": {"id",
    "name"}}``, a seat kept for a platform's player (with a key only), taken only with the seat
    token the creation answers with (``seatTokens``)."""

    bot: BotChoice | BotLevel | None = None
    reserved: PlatformPlayer | None = None


class WebhookSpec(Shape):
    """A table's webhook (with a platform key): where to ``POST`` and which events (default:
    ``table.turn`` and ``table.over``)."""

    url: Annotated[str, Meta(min_length=1, max_length=MAX_WEBHOOK_URL)]
    events: Annotated[list[WebhookEvent], Meta(min_length=1, max_length=5)] | None = None


class NewTable(Shape):
    """``POST /v1/tables``. Without ``seats``, ``setup.players`` open seats (4 by default).
    ``autoStart``, ``rated`` and reserved seats need a platform key (``Manhattan-Key``)."""

    setup: TableSetup | None = None
    seats: (
        Annotated[list[Literal["open"] | SeatChoice], Meta(min_length=2, max_length=4)] | None
    ) = None
    public: (
        Annotated[
            bool, Meta(description="listed in the lobby; default: true, false with a platform key")
        ]
        | msgspec.UnsetType
    ) = msgspec.UNSET
    turn_seconds: (
        Annotated[
            int,
            Meta(
                ge=1,
                le=MAX_KEYED_TURN_SECONDS,
                description=f"at most {MAX_TURN_SECONDS}; with a platform key, 14 days",
            ),
        ]
        | None
    ) = None
    name: Annotated[str, Meta(max_length=MAX_NAME)] | None = None
    auto_start: bool = False
    rated: bool = False
    #: With a platform key (DESIGN §10).
    webhook: WebhookSpec | None = None
    remind_before: (
        Annotated[
            int,
            Meta(
                ge=1,
                le=MAX_KEYED_TURN_SECONDS - 1,
                description=(
                    "seconds before a turn's deadline to send table.turn again: below "
                    "turnSeconds, with a webhook that takes table.turn"
                ),
            ),
        ]
        | None
    ) = None


class JoinTable(Shape):
    """``POST /v1/tables/{id}/join``: a name (not blank) and, optionally, the seat wanted."""

    name: Name
    seat: Annotated[int, Meta(ge=0, le=3, description="a seat of this table")] | None = None


Cursor = Annotated[str, Meta(max_length=80, description="the previous page's `next`")]
Players = Annotated[int, Meta(ge=2, le=4, description="only tables of this many seats")]


class LobbyQuery(Shape):
    """``GET /v1/tables``'s query: a page of public waiting tables, newest activity first."""

    limit: Annotated[int, Meta(ge=1, le=100, description="tables in the page")] = 20
    cursor: Cursor | None = None
    players: Players | None = None
    edition: Edition | None = None
    open: Annotated[
        bool, Meta(description="true (the default): tables with a free seat; false: full ones")
    ] = True


class TableMoveRequest(Shape):
    """``POST /v1/tables/{id}/moves``: the move, the version it was chosen at, and a move id
    that makes a retry safe."""

    move: MoveIn
    version: Annotated[int, Meta(ge=1, description="the table version the move was chosen at")]
    move_id: Annotated[str, Meta(min_length=1, max_length=MAX_MOVE_ID)] | None = None


class SeatPreviewRequest(Shape):
    """``POST /v1/tables/{id}/preview``: without ``move``, every legal move's preview."""

    move: MoveIn | None = None


class SeatMoveRequest(Shape):
    """``POST /v1/tables/{id}/validate``."""

    move: MoveIn


class ChatRequest(Shape):
    """``POST /v1/tables/{id}/chat`` (not blank)."""

    text: Annotated[str, Meta(min_length=1, max_length=MAX_CHAT)]


# -- answers -----------------------------------------------------------------------------------
class TableSeat(Answer):
    player: int
    name: str | None
    kind: SeatKind
    connected: bool
    away: bool
    kept_for: Annotated[
        str | None, Meta(description="the person a rematch keeps this seat for")
    ] = None
    back: Annotated[bool, Meta(description="the person the seat is kept for took it")] = False
    id: Annotated[
        str | None, Meta(description="the platform's player id (to the owning key only)")
    ] = None


class ChatMessage(Answer):
    player: int
    name: str | None
    text: str
    at: Annotated[int, Meta(description="epoch milliseconds (UTC)")]


class Table(Answer):
    """A table as the caller may see it."""

    table_id: str
    name: str
    status: TableStatus
    version: int
    seats: list[TableSeat]
    to_move: int | None
    deadline: Annotated[
        int | None, Meta(description="epoch milliseconds (UTC) by which the seat to move acts")
    ]
    view: Annotated[Any, Meta(description="the caller's seat's view, or the public view")]
    public: bool = True
    turn_seconds: int | None = None
    moves: Annotated[list[MoveOut], Meta(description="the caller's legal moves on its turn")] = (
        msgspec.field(default_factory=list)
    )
    players: int | None = None
    you: Annotated[int | None, Meta(description="the caller's seat")] = None
    chat: list[ChatMessage] = msgspec.field(default_factory=list)
    rematch: str | None = None
    ranking: list[Placing] | None = None


class LobbySetup(Answer):
    """A listed table's setup: seats, edition, variants, rounds and its clock."""

    players: int
    edition: str
    variants: dict[str, Any]
    rounds: int | None = None
    turn_seconds: Annotated[int | None, Meta(description="the clock: seconds per turn")] = None


class LobbySeat(Answer):
    player: int
    name: str | None
    kind: SeatKind
    kept_for: str | None = None
    back: bool = False


class LobbyTable(Answer):
    """A public waiting table as the lobby lists it."""

    table_id: str
    name: str
    status: TableStatus
    public: bool
    host: Annotated[str | None, Meta(description="the first seated person's name")]
    setup: LobbySetup
    seats: list[LobbySeat]
    open_seats: Annotated[int, Meta(description="seats anyone may join")]
    version: int
    activity: Annotated[int, Meta(description="epoch milliseconds of the last change")]
    turn_seconds: int | None = None


class TableList(Answer):
    """A lobby page; ``next`` is the cursor of the following page (null: the last)."""

    tables: list[LobbyTable]
    next: str | None = None


class SeatToken(Answer):
    """A reserved seat's token, for the platform to hand to its player."""

    seat: int
    id: str
    seat_token: str


class TableCreated(Answer):
    table_id: str
    host_token: str
    table: Table
    seat_tokens: list[SeatToken] | None = None


class MyTables(Answer):
    """``GET /v1/tables?player=<id>`` with a key: waiting and playing tables first (newest
    first), then the last finished ones."""

    player: str
    tables: list[Table]


class Rating(Answer):
    """A player's OpenSkill (Plackett-Luce) rating under a platform key: ``ordinal`` is
    ``mu - 3 sigma``."""

    player: str
    mu: float
    sigma: float
    ordinal: float
    games: int


class RatingList(Answer):
    """``GET /v1/ratings``: the key's players by ordinal, best first; ``next`` is the cursor
    of the following page (null on the last)."""

    ratings: list[Rating]
    next: str | None = None
    #: With a webhook (DESIGN §10): the ``whsec_`` secret its deliveries are signed with.
    webhook_secret: str | None = None


class TableJoined(Answer):
    player: int
    seat_token: str
    table: Table


class TableAnswer(Answer):
    table: Table


class TableMoved(Answer):
    version: int
    view: Annotated[Any, Meta(extra_json_schema=ref("view"))]
    events: list[Annotated[Any, Meta(extra_json_schema=ref("Event"))]]


class TableChat(Answer):
    version: int
    message: ChatMessage


class TableRematch(Answer):
    """The rematch: a seat token for a person who sat at the old table, a host token for its
    host."""

    table_id: str
    table: Table
    player: int | None = None
    seat_token: str | None = None
    host_token: str | None = None


class TableTicket(Answer):
    ticket: str
    expires_in: Annotated[int, Meta(description="seconds")]


class TableRecord(Answer):
    setup: Annotated[dict[str, Any], Meta(description="the setup, with the seed")]
    moves: list[MoveOut]


class HistoryEvent(Answer):
    """One event of a table's history: its type and its data as the stream's event of that type
    gave it to this receiver, without what only the newest event carries (a move's view after
    it, the legal moves then)."""

    event: HistoryEventType
    data: dict[str, Any]


class TableHistory(Answer):
    """``GET /v1/tables/{id}/history``: what happened at the table, oldest first, as the caller
    may see it: the start, every move with the events the caller may see, and the joins, leaves,
    timeouts and end among the table's recent events. Chat is the table's ``chat``."""

    table_id: str
    version: Annotated[int, Meta(description="the table's version the history goes up to")]
    events: list[HistoryEvent]


TABLE_REQUESTS: tuple[type[msgspec.Struct], ...] = (
    NewTable,
    SeatChoice,
    JoinTable,
    TableMoveRequest,
    SeatPreviewRequest,
    SeatMoveRequest,
    ChatRequest,
    LobbyQuery,
)
TABLE_RESPONSES: tuple[type[msgspec.Struct], ...] = (
    Table,
    TableList,
    TableCreated,
    SeatToken,
    MyTables,
    Rating,
    RatingList,
    TableJoined,
    TableAnswer,
    TableMoved,
    TableChat,
    TableRematch,
    TableTicket,
    TableRecord,
    TableHistory,
    HistoryEvent,
    Validation,
)
