"""Direct resolver calls (``api/graphql/resolvers.py``) convert and call as strawberry does."""

from __future__ import annotations

import enum
from typing import Any

import pytest
import strawberry
from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLScalarType,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from strawberry.permission import BasePermission
from strawberry.relay import GlobalID
from strawberry.scalars import JSON
from strawberry.types.arguments import convert_argument

from manhattan.api.graphql.resolvers import DirectResolvers
from manhattan.api.graphql.schema import build_schema

SCHEMA = build_schema(max_depth=10, max_aliases=10, max_tokens=1000, introspection=True)
RESOLVERS = DirectResolvers(SCHEMA)
ROOT_FIELDS = [
    (type_name, name, field)
    for type_name, root in (
        ("Query", SCHEMA._schema.query_type),
        ("Mutation", SCHEMA._schema.mutation_type),
    )
    if root is not None
    for name, field in root.fields.items()
]

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


def coerced_values(type_: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values graphql-core's coercion can hand a resolver for ``type_``."""
    if isinstance(type_, GraphQLNonNull):
        return _non_null(type_.of_type, depth)
    return st.none() | _non_null(type_, depth)


def _non_null(type_: Any, depth: int) -> st.SearchStrategy[Any]:
    if isinstance(type_, GraphQLList):
        return st.lists(coerced_values(type_.of_type, depth + 1), max_size=3)
    if isinstance(type_, GraphQLEnumType):
        return st.sampled_from([v.value for v in type_.values.values()])
    if isinstance(type_, GraphQLInputObjectType):
        required = {
            n: coerced_values(f.type, depth + 1)
            for n, f in type_.fields.items()
            if isinstance(f.type, GraphQLNonNull)
        }
        optional = {
            n: coerced_values(f.type, depth + 1)
            for n, f in type_.fields.items()
            if n not in required
        }
        return st.fixed_dictionaries(required, optional=optional)
    assert isinstance(type_, GraphQLScalarType), type_
    return {
        "Int": st.integers(-(2**31), 2**31 - 1),
        "Float": st.floats(allow_nan=False),
        "String": st.text(max_size=8),
        "ID": st.text(max_size=8),
        "Boolean": st.booleans(),
        "JSON": JSON_VALUES,
    }[type_.name]


def test_every_root_field_of_the_service_is_called_directly() -> None:
    assert ROOT_FIELDS
    missing = [
        f"{t}.{name}" for t, name, field in ROOT_FIELDS if RESOLVERS.for_field(field) is None
    ]
    assert missing == []


ARGUMENTS = [
    (f"{t}.{name}({arg})", field.args[arg].type, strawberry_arg)
    for t, name, field in ROOT_FIELDS
    for arg in field.args
    for strawberry_arg in field.extensions["strawberry-definition"].arguments
    if SCHEMA.config.name_converter.from_argument(strawberry_arg) == arg
]


@pytest.mark.parametrize(
    ("name", "graphql_type", "argument"), ARGUMENTS, ids=[a[0] for a in ARGUMENTS]
)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_arguments_convert_as_strawberry_converts_them(
    name: str, graphql_type: Any, argument: Any, data: st.DataObject
) -> None:
    value = data.draw(coerced_values(graphql_type), label=name)
    convert = RESOLVERS.converter(argument.type)
    assert convert is not None
    expected = convert_argument(
        value, argument.type, SCHEMA.schema_converter.scalar_registry, SCHEMA.config
    )
    assert convert(value) == expected
    assert type(convert(value)) is type(expected)


# -- what is left to strawberry's wrapper -------------------------------------------------------
class Never(BasePermission):
    message = "no"

    def has_permission(self, source: Any, info: strawberry.Info, **kwargs: Any) -> bool:
        return False


@strawberry.enum
class Color(enum.Enum):
    RED = "red"


@strawberry.input
class Inner:
    color: Color
    tags: list[str] | None = None


@strawberry.input
class Outer:
    inner: list[Inner]
    note: str | None
    count: int = 3


@strawberry.type
class Query:
    @strawberry.field
    def plain(self, info: strawberry.Info, outer: Outer, flag: bool = False) -> str:
        return f"{type(self).__name__}:{info.field_name}:{outer!r}:{flag}"

    @strawberry.field
    def with_root(self, root: Any, n: int) -> str:
        return f"{root!r}:{n}"

    @strawberry.field(permission_classes=[Never])
    def guarded(self) -> str:
        return "secret"

    @strawberry.field
    def maybe(self, value: strawberry.Maybe[int]) -> str:
        return repr(value)

    @strawberry.field
    def global_id(self, value: GlobalID) -> str:
        return str(value)

    @strawberry.field
    def json(self, value: JSON) -> str:
        return repr(value)


def _direct(name: str) -> Any:
    schema = strawberry.Schema(Query)
    field = schema._schema.query_type.fields[name]  # type: ignore[union-attr]
    return DirectResolvers(schema).for_field(field)


@pytest.mark.parametrize("name", ["guarded", "maybe", "globalId"])
def test_extensions_and_special_types_stay_with_strawberry(name: str) -> None:
    assert _direct(name) is None


@pytest.mark.parametrize("name", ["plain", "withRoot", "json"])
def test_plain_fields_are_called_directly(name: str) -> None:
    assert _direct(name) is not None


def test_a_direct_call_answers_as_the_executor() -> None:
    schema = strawberry.Schema(Query)
    query = (
        '{ plain(outer: {inner: [{color: RED}, {color: RED, tags: ["a"]}], note: null}) '
        "withRoot(n: 2) json(value: {a: [1, 2.5, true]}) }"
    )
    result = schema.execute_sync(query, root_value=Query())
    assert result.errors is None
    data = result.data
    assert data is not None
    fields = schema._schema.query_type.fields  # type: ignore[union-attr]
    resolvers = DirectResolvers(schema)

    class Info:  # what a resolver reads of graphql-core's info here
        field_name = "plain"

    outer = {"inner": [{"color": Color.RED}, {"color": Color.RED, "tags": ["a"]}]}  # no note
    direct = resolvers.for_field(fields["plain"])
    assert direct(Query(), Info(), {"outer": outer}) == data["plain"]
    assert resolvers.for_field(fields["withRoot"])(None, Info(), {"n": 2}) == "None:2"
    value = {"a": [1, 2.5, True]}
    assert resolvers.for_field(fields["json"])(None, Info(), {"value": value}) == data["json"]


def test_without_strawberrys_internals_every_field_keeps_its_wrapper() -> None:
    class Bare:  # a strawberry schema of another version, without the attributes used here
        config = SCHEMA.config

    resolvers = DirectResolvers(Bare())
    assert all(resolvers.for_field(field) is None for _, _, field in ROOT_FIELDS)
