"""The plain-data execution context answers exactly what graphql-core's general path answers.

Each query runs on two schemas that differ only in the execution context class; data and errors
(messages, paths) must be equal. The tiny schema has the shapes the fast path handles and the
ones it must hand back: nulls in non-null positions, values that do not coerce, resolvers that
raise, resolvers with arguments, nested objects, directives, aliases and fragments.
"""

from __future__ import annotations

from typing import Any

import pytest
import strawberry
from strawberry.schema.config import StrawberryConfig

import manhattan
from manhattan.api.graphql import execution as graphql_execution
from manhattan.api.graphql.execution import PlainDataExecutionContext


@strawberry.type
class Leaf:
    name: str
    size: int | None
    tags: list[int] | None
    maybe_tags: list[int | None] | None
    flag: bool


@strawberry.type
class Item:
    kind: str
    count: int | None
    values: list[int] | None
    ratio: float | None
    leaf: Leaf | None = None

    @strawberry.field
    def computed(self) -> str:
        return self.kind.upper()

    @strawberry.field
    def scaled(self, by: int = 2) -> int:
        return (self.count or 0) * by

    @strawberry.field
    def broken(self) -> int | None:
        raise ValueError("broken on purpose")


def _items() -> list[Item]:
    leaf = Leaf(name="l", size=None, tags=[1, 2], maybe_tags=[None, 3], flag=True)
    return [
        Item(kind="a", count=1, values=[1, 2, 3], ratio=0.5, leaf=leaf),
        Item(kind="b", count=None, values=None, ratio=None),
        Item(kind="c", count=2**40, values=[1], ratio=1.0),  # Int out of range: an error
        Item(kind=None, count=3, values=[4], ratio=2.0),  # type: ignore[arg-type]  # null in String!
        Item(kind="e", count=4, values=[None, 5], ratio=3.0),  # type: ignore[list-item]
        Item(kind="f", count=True, values=(6, 7), ratio=4.0),  # type: ignore[arg-type]
        Item(kind="g", count="8", values=[9], ratio=float("nan")),  # type: ignore[arg-type]
    ]


@strawberry.type
class Query:
    @strawberry.field
    def items(self) -> list[Item]:
        return _items()

    @strawberry.field
    async def async_items(self) -> list[Item]:
        return _items()

    @strawberry.field
    def good(self) -> list[Item]:
        return [i for i in _items() if i.kind in ("a", "b")]


def _schema(fast: bool) -> strawberry.Schema:
    extra: dict[str, Any] = {"execution_context_class": PlainDataExecutionContext} if fast else {}
    return strawberry.Schema(query=Query, config=StrawberryConfig(auto_camel_case=True), **extra)


QUERIES = [
    "{ good { kind count values ratio } }",
    "{ good { __typename kind k2: kind count } }",
    "{ good { kind leaf { name size tags maybeTags flag } } }",
    "{ good { kind computed scaled(by: 3) } }",
    "{ good { kind count @include(if: false) values @skip(if: true) } }",
    "{ good { ...F } } fragment F on Item { kind values }",
    "{ good { kind ... on Item { count } } }",
    "{ good { kind kind } }",
    "{ items { kind count values } }",
    "{ items { kind } }",
    "{ items { count } }",
    "{ items { values } }",
    "{ items { ratio } }",
    "{ items { kind broken } }",
    "{ asyncItems { kind count values leaf { name tags maybeTags } } }",
]


def _run(schema: strawberry.Schema, query: str) -> tuple[Any, list[tuple[str, Any]]]:
    result = schema.execute_sync(query) if "async" not in query else None
    if result is None:
        import asyncio

        result = asyncio.run(schema.execute(query))
    errors = sorted((e.message, e.path) for e in result.errors or [])
    return result.data, errors


@pytest.mark.parametrize("query", QUERIES)
def test_fast_path_matches_graphql_core(query: str) -> None:
    assert _run(_schema(fast=True), query) == _run(_schema(fast=False), query)


def test_fast_path_is_taken_for_plain_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    completed: list[object] = []
    compile_plan = graphql_execution._compile.__wrapped__

    def counting_compile(plan: Any) -> Any:
        complete = compile_plan(plan)

        def counting(source: Any) -> Any:
            completed.append(source)
            return complete(source)

        return counting

    monkeypatch.setattr(graphql_execution, "_compile", counting_compile)
    data, errors = _run(_schema(fast=True), "{ good { kind count values } }")
    assert errors == []
    assert len(completed) == 2 == len(data["good"])
    completed.clear()
    _run(_schema(fast=True), "{ good { kind computed } }")  # a resolver: not plain
    assert completed == []


def test_every_field_of_the_service_move_type_is_plain() -> None:
    from manhattan.api.graphql.schema import build_schema

    move_type = build_schema()._schema.type_map["Move"]
    names = ["type", "player", "card", "neighborhood", "floors", "color", "pieces", "block"]
    names.append("notation")
    assert all(graphql_execution._plain_field(move_type, n, [_details(n)]) for n in names)


def _details(name: str) -> Any:
    from graphql import FieldNode, NameNode
    from graphql.execution.collect_fields import FieldDetails

    return FieldDetails(FieldNode(name=NameNode(value=name), arguments=(), directives=()), None)


def test_engine_moves_have_every_field_of_the_graphql_move_type() -> None:
    """``legalMoves`` serves engine moves as they are (``MoveType.from_domain_list``)."""
    from manhattan.api.graphql.schema import build_schema
    from manhattan.api.graphql.types import MoveType

    move = manhattan.Move.build(3, 1, 2, color=0).with_context(1, (1, 0, 2))
    copied = MoveType.from_domain(move)
    fields = build_schema()._schema.type_map["Move"].fields  # type: ignore[union-attr]
    for field in fields.values():
        name = field.extensions["strawberry-definition"].python_name
        value = getattr(move, name)
        assert (list(value) if isinstance(value, tuple) else value) == getattr(copied, name)
