"""GraphQL for tables (DESIGN §9): ``Query.table``/``tables``, the table mutations, and
``Subscription.tableEvents`` (graphql-transport-ws only) giving the SSE stream's events.

Thin adapters over ``manhattan.tables``: the bearer is the HTTP ``Authorization`` header, as for
REST; a subscription names its seat with a ticket (``POST /v1/tables/{id}/ticket`` or the
``tableTicket`` mutation), since a browser's WebSocket cannot send headers either. Every payload
comes from the tables' one projection; these types only give it fields. ``tableMove`` returns a
union with ``TableRejected`` (code, message and, for ``STALE_VERSION``, the current table) as
the other move operations do; the other mutations raise, rendered with ``extensions.code``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Annotated, Any

import strawberry
from graphql import GraphQLError
from starlette.requests import HTTPConnection
from strawberry.scalars import JSON
from strawberry.types import Info

from ..tables import Bearer, TableError, TableRuntime, table_stream
from .errors import to_api_error
from .graphql_inputs import GameSetup, MoveInput
from .graphql_types import as_json_scalar

SeatsArgument = Annotated[
    list[str] | None,
    strawberry.argument(description='each seat "open" or a bot level ("random", "greedy", ...)'),
]


def runtime(info: Info) -> TableRuntime:
    connection: HTTPConnection = info.context["request"]
    found: TableRuntime = connection.app.state.tables
    return found


def bearer(info: Info, table_id: str) -> Bearer | None:
    connection: HTTPConnection = info.context["request"]
    header = connection.headers.get("authorization")
    token = None
    if header is not None:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise TableError("BAD_SEAT", "send the seat token as 'Authorization: Bearer <token>'")
    rt = runtime(info)
    if len(table_id) == 32:
        rt.driver.watch(table_id)
    return rt.tables.authenticate(table_id, token.strip() if token else None)


@strawberry.type(description="A place at the table (not a board side): open, a person or a bot.")
class TableSeat:
    player: int
    name: str | None
    kind: str
    connected: bool
    away: bool


@strawberry.type(description="A table (DESIGN §9) as the caller may see it.")
class Table:
    table_id: str
    name: str
    status: str
    version: int
    public: bool
    turn_seconds: int | None
    seats: list[TableSeat]
    to_move: int | None
    deadline: float | None = strawberry.field(description="epoch milliseconds (UTC), or null")
    view: JSON | None = strawberry.field(description="the caller's view, or the public view")
    moves: JSON = strawberry.field(description="the caller's legal moves on their turn, else []")
    players: int | None
    ranking: JSON | None
    you: int | None
    chat: JSON
    rematch: str | None
    raw: JSON = strawberry.field(description="the table exactly as REST gives it")

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Table:
        return cls(
            table_id=obj["tableId"],
            name=obj["name"],
            status=obj["status"],
            version=obj["version"],
            public=obj["public"],
            turn_seconds=obj["turnSeconds"],
            seats=[TableSeat(**seat) for seat in obj["seats"]],
            to_move=obj["toMove"],
            deadline=obj["deadline"],
            view=obj["view"],
            moves=obj["moves"],
            players=obj["players"],
            ranking=obj.get("ranking"),
            you=obj["you"],
            chat=obj["chat"],
            rematch=obj["rematch"],
            raw=as_json_scalar(obj),
        )


@strawberry.type
class CreatedTable:
    table_id: str
    host_token: str
    table: Table


@strawberry.type
class SeatedAtTable:
    table_id: str
    player: int
    seat_token: str
    table: Table


@strawberry.type
class TableMoved:
    version: int
    view: JSON
    events: JSON


@strawberry.type(description="A refused table move: the code, and the current table when stale.")
class TableRejected:
    code: str
    message: str
    table: Table | None = None


TableMoveResult = Annotated[TableMoved | TableRejected, strawberry.union("TableMoveResult")]


@strawberry.type
class ChatSent:
    version: int
    message: JSON


@strawberry.type
class TableTicket:
    ticket: str
    expires_in: int


@strawberry.type(description="One event of a table's stream; the same as the SSE stream's.")
class TableEvent:
    id: int = strawberry.field(description="the table version")
    event: str = strawberry.field(description="snapshot joined left started move chat timeout over")
    data: JSON


@strawberry.type
class TableQuery:
    @strawberry.field(description="A table, as the bearer (a seat, the host) or anyone may see it.")
    async def table(self, info: Info, id: strawberry.ID) -> Table:
        table_id = str(id)
        return Table.from_json(await runtime(info).tables.get(table_id, bearer(info, table_id)))

    @strawberry.field(description="Public tables waiting for players.")
    async def tables(self, info: Info) -> list[Table]:
        return [Table.from_json(t) for t in await runtime(info).tables.list_public()]


@strawberry.type
class TableMutation:
    @strawberry.mutation(description="A table; the seed is drawn by the service.")
    async def create_table(
        self,
        info: Info,
        setup: GameSetup | None = None,
        seats: SeatsArgument = None,
        public: bool | None = None,
        turn_seconds: int | None = None,
        name: str | None = None,
    ) -> CreatedTable:
        body: dict[str, Any] = {}
        seat_list = None
        if seats is not None:
            seat_list = [s if s == "open" else {"bot": {"level": s}} for s in seats]
        for key, value in (
            ("setup", setup.to_wire() if setup is not None else None),
            ("seats", seat_list),
            ("public", public),
            ("turnSeconds", turn_seconds),
            ("name", name),
        ):
            if value is not None:
                body[key] = value
        created = await runtime(info).tables.create(body)
        runtime(info).driver.watch(created["tableId"])
        return CreatedTable(
            table_id=created["tableId"],
            host_token=created["hostToken"],
            table=Table.from_json(created["table"]),
        )

    @strawberry.mutation(description="Take a free seat (or the one asked for), atomically.")
    async def join_table(
        self, info: Info, id: strawberry.ID, name: str, seat: int | None = None
    ) -> SeatedAtTable:
        body: dict[str, Any] = {"name": name}
        if seat is not None:
            body["seat"] = seat
        joined = await runtime(info).tables.join(str(id), body)
        return SeatedAtTable(
            table_id=str(id),
            player=joined["player"],
            seat_token=joined["seatToken"],
            table=Table.from_json(joined["table"]),
        )

    @strawberry.mutation(description="Start the game (the host or anyone seated).")
    async def start_table(self, info: Info, id: strawberry.ID) -> Table:
        table_id = str(id)
        started = await runtime(info).tables.start(table_id, bearer(info, table_id))
        return Table.from_json(started["table"])

    @strawberry.mutation(description="The bearer's move at ``version``; ``moveId`` for retries.")
    async def table_move(
        self,
        info: Info,
        id: strawberry.ID,
        move: MoveInput,
        version: int,
        move_id: str | None = None,
    ) -> TableMoveResult:
        table_id = str(id)
        try:
            answer = await runtime(info).tables.move(
                table_id, bearer(info, table_id), move.to_wire(), version, move_id
            )
        except Exception as exc:
            error = to_api_error(exc)
            if error is None:
                raise
            table = exc.table if isinstance(exc, TableError) else None
            return TableRejected(
                code=error.code,
                message=error.message,
                table=None if table is None else Table.from_json(table),
            )
        return TableMoved(version=answer["version"], view=answer["view"], events=answer["events"])

    @strawberry.mutation(
        description="Leave: before the start the seat opens, after it a bot plays."
    )
    async def leave_table(self, info: Info, id: strawberry.ID) -> Table:
        table_id = str(id)
        left = await runtime(info).tables.leave(table_id, bearer(info, table_id))
        return Table.from_json(left["table"])

    @strawberry.mutation(description="A short chat message to the table.")
    async def send_chat(self, info: Info, id: strawberry.ID, text: str) -> ChatSent:
        table_id = str(id)
        sent = await runtime(info).tables.chat(table_id, bearer(info, table_id), text)
        return ChatSent(version=sent["version"], message=sent["message"])

    @strawberry.mutation(description="A new table for the same people after a finished game.")
    async def rematch(self, info: Info, id: strawberry.ID) -> JSON:
        table_id = str(id)
        return as_json_scalar(await runtime(info).tables.rematch(table_id, bearer(info, table_id)))

    @strawberry.mutation(description="A single-use ticket (60 s) for the event stream.")
    async def table_ticket(self, info: Info, id: strawberry.ID) -> TableTicket:
        table_id = str(id)
        issued = await runtime(info).tables.ticket(table_id, bearer(info, table_id))
        return TableTicket(ticket=issued["ticket"], expires_in=issued["expiresIn"])


@strawberry.type
class TableSubscription:
    @strawberry.subscription(
        description="The table's events for a ticket's seat (no ticket: a public table's "
        "spectator): the SSE stream's events, starting with a snapshot or, with lastEventId, "
        "the events after it."
    )
    async def table_events(
        self,
        info: Info,
        id: strawberry.ID,
        ticket: str | None = None,
        last_event_id: int | None = None,
    ) -> AsyncGenerator[TableEvent, None]:
        rt = runtime(info)
        table_id = str(id)
        try:
            who = await rt.tables.open_ticket(table_id, ticket) if ticket is not None else None
            source = table_stream(
                rt, table_id, who, last_event_id=last_event_id, heartbeat=rt.heartbeat
            )
            first = await anext(source)
        except TableError as exc:
            # The WebSocket transport formats errors itself: the code goes in by hand.
            raise GraphQLError(exc.message, extensions={"code": exc.code}) from None
        try:
            item = first
            while True:
                if item is not None:  # the protocol has its own pings
                    yield TableEvent(id=item.id, event=item.event, data=as_json_scalar(item.data))
                item = await anext(source)
        except StopAsyncIteration:
            return
        finally:
            await source.aclose()
