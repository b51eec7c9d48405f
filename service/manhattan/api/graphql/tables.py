"""GraphQL for tables (DESIGN §9): ``Query.table``/``tables``, the table mutations, and
``Subscription.tableEvents`` (graphql-transport-ws only) giving the SSE stream's events.

Thin adapters over ``manhattan.tables``: the bearer is the HTTP ``Authorization`` header, as for
REST; a subscription names its seat with a ticket (``POST /v1/tables/{id}/ticket`` or the
``tableTicket`` mutation), since a browser's WebSocket cannot send headers either. Every payload
comes from the tables' one projection; the types (``graphql_table_types``) only give it fields.
Each mutation's body is the REST body, read by ``Tables`` with ``manhattan.wire`` (the same codes
and paths). ``table`` and every mutation answer a union with ``TableRejected`` (code, message,
path and, for ``STALE_VERSION``, the current table), as the stateless fields answer
``MoveRejected``; ``tables`` (no input) raises, and a subscription that cannot open is the
protocol's ``error`` message with ``extensions.code``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, TypeVar

import strawberry
from graphql import GraphQLError
from starlette.requests import HTTPConnection
from strawberry.types import Info

from manhattan.api.caller_limits import check_quota
from manhattan.api.client_address import client_address
from manhattan.api.graphql.inputs import BotInput, GameSetup, MoveInput
from manhattan.api.graphql.lobby_types import LobbyPage
from manhattan.api.graphql.platforms import ReservedSeatInput, caller, platforms
from manhattan.api.graphql.table_socket import socket_token
from manhattan.api.graphql.table_types import (
    ChatResult,
    ChatSent,
    CreatedTable,
    CreateTableResult,
    HistoryResult,
    JoinTableResult,
    RematchResult,
    SeatedAtTable,
    Table,
    TableEvent,
    TableHistory,
    TableMoved,
    TableMoveResult,
    TableRejected,
    TableRematch,
    TableResult,
    TableTicket,
    TicketResult,
    table_rejected_or,
)
from manhattan.api.graphql.types import as_json_scalar
from manhattan.api.graphql.wire_types import wire_arguments
from manhattan.live.push import Push
from manhattan.live.runtime import TableRuntime
from manhattan.live.stream import table_stream
from manhattan.store.cache import StoreUnavailable
from manhattan.tables import Bearer, TableError, Tables
from manhattan.tables.records import check_table_id
from manhattan.wire import WireError
from manhattan.wire import tables as wire


def runtime(info: Info) -> TableRuntime:
    connection: HTTPConnection = info.context["request"]
    found: TableRuntime = connection.app.state.tables
    return found


def bearer(info: Info, table_id: str) -> Bearer | None:
    given = socket_token(info)  # the seat's credential given once on a websocket, if any
    if given is not None:
        return runtime(info).tables.authenticate(table_id, given)
    connection: HTTPConnection = info.context["request"]
    header = connection.headers.get("authorization")
    token = None
    if header is not None:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise TableError("BAD_SEAT", "send the seat token as 'Authorization: Bearer <token>'")
    return runtime(info).tables.authenticate(table_id, token.strip() if token else None)


Answer = dict[str, Any]
Result = TypeVar("Result")


async def for_bearer(
    info: Info,
    id: strawberry.ID,
    act: Callable[[Tables, str, Bearer | None], Awaitable[Answer]],
    result: Callable[[Answer], Result],
    quota: str | None = None,
) -> Result | TableRejected:
    """``act`` on the table ``id`` for the request's bearer, its answer as ``result`` makes it,
    or the refusal as a ``TableRejected``; ``quota`` names the caller's quota it counts in."""

    async def run() -> Result:
        table_id = check_table_id(str(id))  # (a malformed id is refused before anything else)
        if quota is not None:
            await check_quota(info.context["request"], quota)
        return result(await act(runtime(info).tables, table_id, bearer(info, table_id)))

    return await table_rejected_or(run)


def _table_of(answer: Answer) -> Table:
    return Table.from_json(answer["table"])


@strawberry.input(
    name="WebhookInput",
    description="A table's webhook (with a platform key): where to POST and which events "
    "(table.started, table.turn, table.timeout, table.left, table.over; default: table.turn "
    "and table.over).",
)
class WebhookInput:
    url: str
    events: list[str] | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"url": self.url}
        if self.events is not None:
            out["events"] = self.events
        return out


@strawberry.input(
    name="SeatInput",
    one_of=True,
    description="A seat of a new table: exactly one of open (true), bot or reserved (a "
    'platform\'s player, with a key), as REST\'s "open" | {"bot": BotChoice} | {"reserved": '
    "{id, name}}; a table's bots draw their own seed, so give none (or 0).",
)
class SeatInput:
    open: bool | None = strawberry.UNSET
    bot: BotInput | None = strawberry.UNSET
    reserved: ReservedSeatInput | None = strawberry.UNSET

    def to_wire(self) -> object:
        """The seat as REST's body has it; ``open: false`` stays ``false``, which the body's
        reader refuses at ``$.seats[i]`` as it would in REST."""
        if isinstance(self.bot, BotInput):
            return {"bot": self.bot.to_wire()}
        if isinstance(self.reserved, ReservedSeatInput):
            return {"reserved": self.reserved.to_wire()}
        return "open" if self.open else False


#: The GraphQL names of the lobby query's fields that REST names otherwise (connection style).
LOBBY_ARGUMENTS = {"limit": "first", "cursor": "after"}


@strawberry.type
class TableQuery:
    @strawberry.field(
        description="A table, as the bearer (a seat, the host), its platform key or anyone may "
        "see it."
    )
    async def table(self, info: Info, id: strawberry.ID) -> TableResult:
        def get(tables: Tables, table_id: str, who: Bearer | None) -> Awaitable[Answer]:
            return platforms(info).get(caller(info), table_id, who)

        return await for_bearer(info, id, get, Table.from_json)

    @strawberry.field(
        description="What happened at a table so far, as the bearer (a seat, the host), its "
        "platform key or anyone may see it: for a page opened mid-game."
    )
    async def table_history(self, info: Info, id: strawberry.ID) -> HistoryResult:
        def history(tables: Tables, table_id: str, who: Bearer | None) -> Awaitable[Answer]:
            return tables.history(table_id, who, key=caller(info))

        return await for_bearer(info, id, history, TableHistory.from_json)

    @strawberry.field(
        description="The newest public tables with a free seat, in full (at most 100); "
        "lobby pages through them all."
    )
    async def tables(self, info: Info) -> list[Table]:
        return [Table.from_json(t) for t in await runtime(info).tables.list_public()]

    @strawberry.field(
        description="A page of public waiting tables, newest activity first (REST's GET "
        "/v1/tables): first 1 to 100 (20), after a page's next, filters on seats, edition "
        "and free seats (open: true by default; false: full tables)."
    )
    @wire_arguments(wire.LobbyQuery, names=LOBBY_ARGUMENTS, types={"edition": str})
    async def lobby(self, info: Info, query: dict[str, Any]) -> LobbyPage:
        try:
            return LobbyPage.from_json(await runtime(info).tables.page(query))
        except WireError as exc:
            path = exc.path or "$"
            for field, argument in LOBBY_ARGUMENTS.items():
                path = path.replace(f"$.{field}", f"$.{argument}")
            raise GraphQLError(exc.message, extensions={"code": exc.code, "path": path}) from None


@strawberry.type
class TableMutation:
    @strawberry.mutation(description="A table; the seed is drawn by the service.")
    async def create_table(
        self,
        info: Info,
        setup: GameSetup | None = None,
        seats: list[SeatInput] | None = None,
        public: bool | None = None,
        turn_seconds: int | None = None,
        name: str | None = None,
        auto_start: bool | None = None,
        rated: bool | None = None,
        webhook: WebhookInput | None = None,
        remind_before: int | None = None,
    ) -> CreateTableResult:
        async def run() -> CreatedTable:
            await check_quota(info.context["request"], "creates")
            given = {
                "setup": None if setup is None else setup.to_wire(),
                "seats": None if seats is None else [seat.to_wire() for seat in seats],
                "public": public,
                "turnSeconds": turn_seconds,
                "name": name,
                "autoStart": auto_start,
                "rated": rated,
                "webhook": None if webhook is None else webhook.to_wire(),
                "remindBefore": remind_before,
            }
            body = {key: value for key, value in given.items() if value is not None}
            created = await platforms(info).create(caller(info), body)
            return CreatedTable.from_json(created)

        return await table_rejected_or(run)

    @strawberry.mutation(description="Take a free seat (or the one asked for), atomically.")
    async def join_table(
        self, info: Info, id: strawberry.ID, name: str, seat: int | None = None
    ) -> JoinTableResult:
        async def run() -> SeatedAtTable:
            check_table_id(str(id))
            await check_quota(info.context["request"], "joins")
            body: dict[str, Any] = {"name": name}
            if seat is not None:
                body["seat"] = seat
            joined = await runtime(info).tables.join(str(id), body, bearer(info, str(id)))
            return SeatedAtTable(
                table_id=str(id),
                player=joined["player"],
                seat_token=joined["seatToken"],
                table=Table.from_json(joined["table"]),
            )

        return await table_rejected_or(run)

    @strawberry.mutation(
        description="Start the game (the host, anyone seated or the table's platform key)."
    )
    async def start_table(self, info: Info, id: strawberry.ID) -> TableResult:
        def start(tables: Tables, table_id: str, who: Bearer | None) -> Awaitable[Answer]:
            return platforms(info).start(caller(info), table_id, who)

        return await for_bearer(info, id, start, _table_of)

    @strawberry.mutation(description="The bearer's move at ``version``; ``moveId`` for retries.")
    async def table_move(
        self,
        info: Info,
        id: strawberry.ID,
        move: MoveInput,
        version: int,
        move_id: str | None = None,
    ) -> TableMoveResult:
        def play(tables: Tables, table_id: str, who: Bearer | None) -> Awaitable[Answer]:
            return tables.move(table_id, who, move.to_wire(), version, move_id)

        return await for_bearer(info, id, play, TableMoved.from_json)

    @strawberry.mutation(
        description="Leave: before the start the seat opens (a reserved one stays its "
        "player's, unless its platform key frees it), after it a bot plays."
    )
    async def leave_table(self, info: Info, id: strawberry.ID) -> TableResult:
        def leave(tables: Tables, table_id: str, who: Bearer | None) -> Awaitable[Answer]:
            return platforms(info).leave(caller(info), table_id, who)

        return await for_bearer(info, id, leave, _table_of)

    @strawberry.mutation(description="A short chat message to the table.")
    async def send_chat(self, info: Info, id: strawberry.ID, text: str) -> ChatResult:
        def say(tables: Tables, table_id: str, who: Bearer | None) -> Awaitable[Answer]:
            return tables.chat(table_id, who, text)

        return await for_bearer(info, id, say, ChatSent.from_json, quota="chat")

    @strawberry.mutation(description="A new table for the same people after a finished game.")
    async def rematch(self, info: Info, id: strawberry.ID) -> RematchResult:
        def rematch(tables: Tables, table_id: str, who: Bearer | None) -> Awaitable[Answer]:
            return platforms(info).rematch(table_id, who)

        return await for_bearer(info, id, rematch, TableRematch.from_json)

    @strawberry.mutation(description="A single-use ticket (60 s) for the event stream.")
    async def table_ticket(self, info: Info, id: strawberry.ID) -> TicketResult:
        def ticket(tables: Tables, table_id: str, who: Bearer | None) -> Awaitable[Answer]:
            return tables.ticket(table_id, who)

        return await for_bearer(info, id, ticket, TableTicket.from_json, quota="tickets")


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
        # A coroutine that opens the stream before it returns the events: a refusal raised here
        # comes before the subscription's source exists, which graphql-transport-ws answers with
        # its ``error`` message (``next`` + ``complete`` would say the stream began).
        rt = runtime(info)
        table_id = str(id)
        try:
            check_table_id(table_id)
            who: Bearer | None
            if ticket is not None:
                who = await rt.tables.open_ticket(table_id, ticket)
            else:  # a seat's socket (its credential given at connection_init) or a spectator
                given = socket_token(info)
                who = None if given is None else rt.tables.authenticate(table_id, given)
            connection: HTTPConnection = info.context["request"]
            client = client_address(connection.scope)
            source = table_stream(
                rt,
                table_id,
                who,
                last_event_id=last_event_id,
                heartbeat=rt.heartbeat,
                client=client,
            )
            first = await anext(source)
        except TableError as exc:
            # The WebSocket transport formats errors itself: the code goes in by hand.
            raise GraphQLError(exc.message, extensions={"code": exc.code}) from None
        except StoreUnavailable as exc:
            raise GraphQLError(str(exc), extensions={"code": "STORE_UNAVAILABLE"}) from None
        return _table_events(first, source)


async def _table_events(
    first: Push | None, source: AsyncGenerator[Push | None, None]
) -> AsyncGenerator[TableEvent, None]:
    """The events of an opened stream, from its first item (None items are heartbeats: the
    protocol has its own pings)."""
    try:
        item = first
        while True:
            if item is not None:
                yield TableEvent(id=item.id, event=item.event, data=as_json_scalar(item.data))
            item = await anext(source)
    except StopAsyncIteration:
        return
    finally:
        await source.aclose()
