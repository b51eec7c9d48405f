"""GraphQL types of tables (DESIGN §9): the REST answers (``manhattan.wire.tables``) as typed
objects, each built ``from_json`` from the tables' one projection, and the results' unions.

A table's view, its legal moves and its ranking are the stateless schema's ``PlayerView``,
``Move`` and ``Placing``; statuses, seat kinds and stream event types are enums made from the
wire's ``Literal``s. Two things stay ``JSON``: the events of a move (the REST event objects:
a table sends each receiver only the events it may see, so the stateless ``Event.visibleTo`` is
not known here) and a stream event's ``data`` (one shape per event type, as the SSE stream's).

Every table mutation, and ``table``, answers a union with ``TableRejected`` for its expected
failures (the codes the error table knows), as the stateless fields answer ``MoveRejected``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, get_args

import strawberry
from strawberry.scalars import JSON

import manhattan
from manhattan.api.graphql.enums import closed_set
from manhattan.api.graphql.json_objects import FromJson
from manhattan.api.graphql.results import answer_or_reject
from manhattan.api.graphql.score_types import Placing
from manhattan.api.graphql.types import MoveType, PlayerView, as_json_scalar
from manhattan.api.graphql.wire_types import wire_type
from manhattan.tables import TableError
from manhattan.wire import tables as wire
from manhattan.wire.codes import CodedError
from manhattan.wire.tables import SeatKind, TableEventType, TableStatus

if TYPE_CHECKING:  # the strings they carry; the types derived from wire shapes
    TableStatusEnum = str
    SeatKindEnum = str
    TableEventTypeEnum = str
    TableSeat = Any
    ChatMessage = Any
    TableTicket = Any
    SeatToken = Any
else:
    TableStatusEnum = closed_set("TableStatus", get_args(TableStatus), "A table's status.")
    SeatKindEnum = closed_set("SeatKind", get_args(SeatKind), "Who sits at a seat.")
    TableEventTypeEnum = closed_set(
        "TableEventType", get_args(TableEventType), "An event of a table's stream."
    )
    _SEAT = "A place at the table (not a board side): open, a person or a bot."
    _TICKET = "A single-use ticket for the event stream."
    TableSeat = wire_type(wire.TableSeat, description=_SEAT, types={"kind": SeatKindEnum})
    # ``at`` is a Float in the GraphQL contract (epoch milliseconds pass 2^31)
    _CHAT = "A chat message of a table."
    ChatMessage = wire_type(wire.ChatMessage, description=_CHAT, types={"at": float})
    TableTicket = wire_type(wire.TableTicket, description=_TICKET)
    SeatToken = wire_type(
        wire.SeatToken, description="A reserved seat's token, for the platform to hand out."
    )


@strawberry.type(description="A table (DESIGN §9) as the caller may see it.")
class Table:
    table_id: str
    name: str
    status: TableStatusEnum
    version: int
    public: bool
    turn_seconds: int | None
    seats: list[TableSeat]
    to_move: int | None
    deadline: float | None = strawberry.field(description="epoch milliseconds (UTC), or null")
    view: PlayerView | None = strawberry.field(
        description="the caller's seat's view, or the public view (player null, no hand); "
        "null before the start"
    )
    moves: list[MoveType] = strawberry.field(
        description="the caller's legal moves on its turn, else []"
    )
    players: int | None
    ranking: list[Placing] | None = strawberry.field(description="once the game is over")
    you: int | None = strawberry.field(description="the caller's seat")
    chat: list[ChatMessage]
    rematch: str | None = strawberry.field(description="the id of the rematch's table")
    raw: JSON = strawberry.field(description="the table exactly as REST gives it")

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Table:
        view = obj["view"]
        ranking = obj.get("ranking")
        return cls(
            table_id=obj["tableId"],
            name=obj["name"],
            status=obj["status"],
            version=obj["version"],
            public=obj["public"],
            turn_seconds=obj["turnSeconds"],
            seats=[TableSeat.from_json(seat) for seat in obj["seats"]],
            to_move=obj["toMove"],
            deadline=obj["deadline"],
            view=None if view is None else PlayerView.from_json(view),
            moves=MoveType.from_domain_list([manhattan.Move.from_json(m) for m in obj["moves"]]),
            players=obj["players"],
            ranking=None if ranking is None else [Placing.from_json(p) for p in ranking],
            you=obj["you"],
            chat=[ChatMessage.from_json(message) for message in obj["chat"]],
            rematch=obj["rematch"],
            raw=as_json_scalar(obj),
        )


@strawberry.type(
    description="A new table and its host's token; with a platform key, one token per reserved "
    "seat."
)
class CreatedTable(FromJson):
    table_id: str
    host_token: str
    table: Table
    seat_tokens: list[SeatToken] | None = strawberry.field(
        default=None, description="with a platform key: one per reserved seat"
    )
    webhook_secret: str | None = strawberry.field(
        default=None, description="With a webhook (a platform key): the secret it is signed with."
    )


@strawberry.type(description="A seat taken: its player and its token.")
class SeatedAtTable:
    table_id: str
    player: int
    seat_token: str
    table: Table


@strawberry.type(description="The caller's move, played: its view after it, and what happened.")
class TableMoved(FromJson):
    version: int
    view: PlayerView
    events: list[JSON] = strawberry.field(
        description="the events this seat may see, as REST gives them: {type, ...fields}"
    )


@strawberry.type(description="A chat message sent, at the table's new version.")
class ChatSent(FromJson):
    version: int
    message: ChatMessage


@strawberry.type(
    description="The rematch's table: a seat token for a person of the old table, a host token "
    "for its host."
)
class TableRematch(FromJson):
    table_id: str
    table: Table
    player: int | None
    seat_token: str | None
    host_token: str | None


@strawberry.type(description="One event of a table's stream; the same as the SSE stream's.")
class TableEvent:
    id: int = strawberry.field(description="the table version")
    event: TableEventTypeEnum
    data: JSON = strawberry.field(description="the SSE event's data (a snapshot: the raw Table)")


@strawberry.type(
    description="One event of a table's history: its type and its data, as the stream's event "
    "of that type gave it (a move without the view after it)."
)
class TableHistoryEvent(FromJson):
    event: TableEventTypeEnum
    data: JSON


@strawberry.type(
    description="What happened at a table so far, oldest first, as the caller may see it: the "
    "start, every move with the events the caller may see, recent joins, leaves, timeouts and "
    "the end (REST's GET /v1/tables/{id}/history)."
)
class TableHistory(FromJson):
    table_id: str
    version: int = strawberry.field(description="the table's version the history goes up to")
    events: list[TableHistoryEvent]


@strawberry.type(
    description="An expected failure of a table operation: the stable code, a message, the JSON "
    "path of a faulty argument, and, for STALE_VERSION, the current table."
)
class TableRejected:
    code: str
    message: str
    path: str | None = strawberry.field(default=None, description="e.g. $.seats[1].bot.seed")
    table: Table | None = None


TableResult = Annotated[Table | TableRejected, strawberry.union("TableResult")]
CreateTableResult = Annotated[CreatedTable | TableRejected, strawberry.union("CreateTableResult")]
JoinTableResult = Annotated[SeatedAtTable | TableRejected, strawberry.union("JoinTableResult")]
TableMoveResult = Annotated[TableMoved | TableRejected, strawberry.union("TableMoveResult")]
ChatResult = Annotated[ChatSent | TableRejected, strawberry.union("ChatResult")]
RematchResult = Annotated[TableRematch | TableRejected, strawberry.union("RematchResult")]
HistoryResult = Annotated[TableHistory | TableRejected, strawberry.union("TableHistoryResult")]
TicketResult = Annotated[TableTicket | TableRejected, strawberry.union("TicketResult")]

Answer = TypeVar("Answer")


def _table_rejected(error: CodedError, exc: Exception) -> TableRejected:
    table = exc.table if isinstance(exc, TableError) else None
    return TableRejected(
        code=error.code,
        message=error.message,
        path=error.path,
        table=None if table is None else Table.from_json(table),
    )


async def table_rejected_or(run: Callable[[], Awaitable[Answer]]) -> Answer | TableRejected:
    """``run()``'s answer, or a ``TableRejected``, with the current table when the table error
    carries one (``STALE_VERSION``)."""
    return await answer_or_reject(run, _table_rejected)
