"""GraphQL types of the lobby (``Query.lobby``): a page of public waiting tables as REST's
``GET /v1/tables`` answers it (``manhattan.wire.tables.TableList``), newest activity first; both
read from that JSON by ``FromJson``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import strawberry
from strawberry.scalars import JSON

from manhattan.api.graphql.json_objects import FromJson
from manhattan.api.graphql.table_types import SeatKindEnum, TableStatusEnum
from manhattan.api.graphql.wire_types import wire_type
from manhattan.wire import tables as wire

if TYPE_CHECKING:
    LobbySeat = Any
    LobbySetup = Any
else:
    LobbySeat = wire_type(
        wire.LobbySeat, description="A seat of a listed table.", types={"kind": SeatKindEnum}
    )
    LobbySetup = wire_type(
        wire.LobbySetup,
        description="A listed table's setup: seats, edition, variants, rounds and its clock.",
        types={"variants": JSON},
    )


@strawberry.type(description="A public waiting table as the lobby lists it.")
class LobbyTable(FromJson):
    table_id: str
    name: str
    status: TableStatusEnum
    public: bool
    host: str | None = strawberry.field(description="the first seated person's name")
    setup: LobbySetup
    seats: list[LobbySeat]
    open_seats: int = strawberry.field(description="seats anyone may join")
    version: int
    activity: float = strawberry.field(description="epoch milliseconds of the last change")
    turn_seconds: int | None


@strawberry.type(description="A page of the lobby; next is the following page's cursor.")
class LobbyPage(FromJson):
    tables: list[LobbyTable]
    next: str | None = strawberry.field(description="the cursor of the next page (null: last)")
