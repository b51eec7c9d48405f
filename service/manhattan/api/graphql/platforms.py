"""GraphQL for platforms (DESIGN §10): ``Query.myTables``, ``Query.ratings``, the reserved seat
input of ``createTable``. The key is read from the same ``Manhattan-Key`` header as REST's, and
every answer is the REST answer of ``manhattan.platforms`` as typed objects.

``myTables`` and ``ratings`` raise their failures (``BAD_KEY`` without a key, ``PLAYER_NOT_FOUND``
...) as errors with ``extensions.code``, as ``tables`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import strawberry
from starlette.requests import HTTPConnection
from strawberry.types import Info

from manhattan.api.graphql.json_objects import FromJson
from manhattan.api.graphql.table_types import Table
from manhattan.api.graphql.wire_types import wire_type
from manhattan.platforms import Platforms
from manhattan.wire import tables as wire

if TYPE_CHECKING:
    Rating = Any
else:
    Rating = wire_type(
        wire.Rating,
        description="A player's OpenSkill (Plackett-Luce) rating under the calling key; "
        "ordinal = mu - 3 sigma.",
    )


def platforms(info: Info) -> Platforms:
    connection: HTTPConnection = info.context["request"]
    found: Platforms = connection.app.state.platforms
    return found


def caller(info: Info) -> str | None:
    """The calling platform key's name (None: anonymous; ``BAD_KEY``: unknown)."""
    connection: HTTPConnection = info.context["request"]
    return platforms(info).caller(connection.headers)


def platform(info: Info) -> str:
    """The calling platform key's name, for what only a platform may ask (``BAD_KEY``)."""
    connection: HTTPConnection = info.context["request"]
    return platforms(info).platform(connection.headers)


@strawberry.input(
    name="ReservedSeatInput",
    description="A platform's player for a reserved seat: its id (1-64 printable characters) "
    "and name; needs a platform key.",
)
class ReservedSeatInput:
    id: str
    name: str

    def to_wire(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name}


@strawberry.type(
    description="A page of the calling key's ratings, best ordinal first; next is the cursor of "
    "the following page (null on the last)."
)
class RatingPage(FromJson):
    ratings: list[Rating]
    next: str | None


@strawberry.type
class PlatformQuery:
    @strawberry.field(
        description="The calling key's tables where this player holds a seat: waiting and "
        "playing first, then the last finished ones (needs a platform key)."
    )
    async def my_tables(self, info: Info, player: str) -> list[Table]:
        answer = await platforms(info).my_tables(platform(info), player)
        return [Table.from_json(table) for table in answer["tables"]]

    @strawberry.field(
        description="The calling key's ratings: one player's (player given; PLAYER_NOT_FOUND "
        "before a first rated game) or a page of them by ordinal (needs a platform key)."
    )
    async def ratings(
        self,
        info: Info,
        player: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> RatingPage:
        found, key = platforms(info), platform(info)
        if player is not None:
            one = Rating.from_json(await found.rating(key, player))
            return RatingPage(ratings=[one], next=None)
        page = await found.rating_page(key, None if limit is None else str(limit), cursor)
        return RatingPage.from_json(page)
