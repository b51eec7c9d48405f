"""GraphQL types derived from the wire shapes (``api/graphql/wire_types.py``): each has the
shape's fields, in order, with the shape's nullability and descriptions."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args, get_origin

import msgspec
import pytest
from strawberry.types.base import StrawberryOptional, get_object_definition

from manhattan.api.graphql import inputs, table_types, types
from manhattan.api.graphql.enums import Monster
from manhattan.api.graphql.tables import LOBBY_ARGUMENTS, TableQuery
from manhattan.api.graphql.wire_types import graphql_type, wire_arguments, wire_type
from manhattan.wire import games, tables

DERIVED: list[tuple[Any, type[msgspec.Struct]]] = [
    (types.Placing, games.Placing),
    (types.MoveAlternative, games.Alternative),
    (types.Alternative, games.BotAlternative),
    (table_types.TableSeat, tables.TableSeat),
    (table_types.ChatMessage, tables.ChatMessage),
    (table_types.TableTicket, tables.TableTicket),
    (inputs.VariantsInput, games.Variants),
]


@pytest.mark.parametrize(("derived", "shape"), DERIVED, ids=lambda x: getattr(x, "__name__", ""))
def test_a_derived_type_has_the_shapes_fields(derived: Any, shape: type[msgspec.Struct]) -> None:
    definition = get_object_definition(derived, strict=True)
    fields = msgspec.structs.fields(shape)
    assert [f.python_name for f in definition.fields] == [f.name for f in fields]
    for field, wire_field in zip(definition.fields, fields, strict=True):
        nullable = isinstance(field.type, StrawberryOptional)
        assert nullable == (type(None) in _members(wire_field.type)), field.python_name


def _members(annotation: Any) -> tuple[Any, ...]:
    if get_origin(annotation) is Annotated:  # Annotated[T, Meta]
        return _members(get_args(annotation)[0])
    return get_args(annotation)


def test_descriptions_come_from_the_shapes_meta() -> None:
    fields = {
        f.python_name: f for f in get_object_definition(table_types.ChatMessage, strict=True).fields
    }
    assert fields["at"].description == "epoch milliseconds (UTC)"
    ticket = {
        f.python_name: f for f in get_object_definition(table_types.TableTicket, strict=True).fields
    }
    assert ticket["expires_in"].description == "seconds"


def test_a_derived_type_reads_the_rest_answer() -> None:
    seat = table_types.TableSeat.from_json(
        {"player": 1, "name": None, "kind": "open", "connected": False, "away": False}
    )
    assert (seat.player, seat.name, seat.kind) == (1, None, "open")
    ticket = table_types.TableTicket.from_json({"ticket": "t", "expiresIn": 60})
    assert (ticket.ticket, ticket.expires_in) == ("t", 60)


def test_a_derived_input_has_the_shapes_defaults_and_writes_its_json() -> None:
    assert msgspec.convert(inputs.VariantsInput().to_json(), games.Variants) == games.Variants()
    chosen = inputs.VariantsInput(slow_growth=True, monster=Monster("godzilla")).to_json()
    assert chosen == {
        "antiTrust": False,
        "slowGrowth": True,
        "urbanRules": False,
        "reshuffleEachRound": False,
        "monster": "godzilla",
    }
    assert type(chosen["monster"]) is str  # the enum member as the wire's plain string


def test_what_the_wire_cannot_type_must_be_named() -> None:
    assert graphql_type(int | None) == int | None
    for untyped in (Any, Literal["a", "b"], games.Placing):
        with pytest.raises(ValueError, match="name one in types"):
            graphql_type(untyped)
    with pytest.raises(ValueError, match="no fields"):
        wire_type(games.Placing, name="P", types={"nope": int})


def test_derived_arguments_are_the_shapes_fields_renamed() -> None:
    lobby = get_object_definition(TableQuery, strict=True).get_field("lobby")
    assert lobby is not None
    wire_names = [f.name for f in msgspec.structs.fields(tables.LobbyQuery)]
    assert [(a.python_name, a.default) for a in lobby.arguments] == [
        (LOBBY_ARGUMENTS.get(name, name), None) for name in wire_names
    ]
    assert [a.python_name for a in lobby.arguments][:2] == ["first", "after"]


@pytest.mark.anyio
async def test_derived_arguments_reach_the_resolver_as_the_shapes_json() -> None:
    @wire_arguments(tables.LobbyQuery, names={"limit": "first"}, types={"edition": str})
    async def page(info: object, query: dict[str, Any]) -> dict[str, Any]:
        return query

    assert await page(None, first=5, players=None, open=False) == {"limit": 5, "open": False}
    with pytest.raises(ValueError, match="last parameter must be query"):
        wire_arguments(games.Variants, types={"monster": str})(_without_query)


async def _without_query(info: object, given: dict[str, Any]) -> None:
    return None
