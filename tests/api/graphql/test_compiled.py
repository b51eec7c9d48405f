"""Compiled query plans (``api/graphql/compiled.py``) answer exactly what the general path does.

Each case of the lean-path comparison runs twice: the first request validates the document on
the general path (which records it), the second is served by a plan where the query has the
simple shape, and both must agree with strawberry's view. Other tests check that plans are
really made and used for the shapes they are for, and never for the others.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from graphql import GraphQLUnionType, parse

from manhattan.api.graphql.compiled import make_plan
from manhattan.api.graphql.schema import build_schema
from tests.api.graphql.test_perf_http import (
    MOVES,
    _cases,
    _finished_game,
    compare,
    graphql_app,
    op,
    scope_of,
)
from tests.conftest import MakeApp
from tests.service_client import connect

pytestmark = pytest.mark.anyio

LEGAL = f"query($s: StateRef!) {{ legalMoves(state: $s) {{ {MOVES} }} }}"
SCORE = (
    "query($s: StateRef!) { score(state: $s) { __typename ... on Score { round phase scores } "
    "... on MoveRejected { code message path } } }"
)


async def test_plans_answer_as_the_general_path(
    make_app: MakeApp, mid_json: dict[str, Any]
) -> None:
    over = _finished_game()
    app = make_app()
    async with connect(app):
        for name, body in _cases(mid_json, over):
            first, _ = await compare(app, scope_of(app), body)
            second, _ = await compare(app, scope_of(app), body)
            if "newGame" not in body.decode() and "storeState" not in body.decode():
                assert first == second, name


async def test_the_common_query_is_served_by_a_plan(
    make_app: MakeApp, mid_json: dict[str, Any]
) -> None:
    app = make_app()
    endpoint = graphql_app(app)
    body = op(LEGAL, {"s": {"json": mid_json}})
    async with connect(app):
        general, _ = await compare(app, scope_of(app), body)
        assert endpoint._compiled is not None
        assert endpoint._compiled.plan(LEGAL, None) is not None
        execute = endpoint.schema.execute

        async def refuse(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("the general executor ran")

        endpoint.schema.execute = refuse  # type: ignore[method-assign]
        try:
            planned, _ = await compare_lean_only(app, body)
        finally:
            endpoint.schema.execute = execute  # type: ignore[method-assign]
    assert planned == general["body"]
    assert len(planned["data"]["legalMoves"]) > 0


async def compare_lean_only(app: Any, body: bytes) -> tuple[dict[str, Any], int]:
    messages: list[dict[str, Any]] = []
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)

    await graphql_app(app)(scope_of(app), receive, send)
    start = next(m for m in messages if m["type"] == "http.response.start")
    payload = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
    return json.loads(payload), start["status"]


@pytest.mark.parametrize(
    ("query", "planned"),
    [
        (LEGAL, True),
        ("{ __typename rules }", True),
        ("query($s: StateRef!) { a: legalMoves(state: $s) { type } b: rules }", True),
        (
            "query($s: StateRef!) { legalMoves(state: $s) { ...M } } fragment M on Move { type }",
            False,
        ),
        ("query($s: StateRef!) { legalMoves(state: $s) { type @skip(if: true) card } }", False),
        ("query($s: StateRef!) { legalMoves(state: $s) { t: type t: type } }", False),
        ("{ __schema { queryType { name } } }", False),
        ("mutation($s: StateRef!) { storeState(state: $s) { stateId } }", False),
        (  # the shape only: applyMove stays unplanned as it is not listed as reading
            "query($s: StateRef!, $m: MoveInput!) { applyMove(state: $s, move: $m) "
            "{ __typename } }",
            True,
        ),
        ("query($s: StateRef!) { view(state: $s, player: 0) { view { hand } } }", False),
        (SCORE, True),
        ("query($s: StateRef!) { score(state: $s) { ... on Score { round } } }", True),
        ("query($s: StateRef!) { score(state: $s) { __typename } }", True),
        (
            "query($s: StateRef!) { boardSvg(state: $s) { ... on BoardSvg { svg } "
            "... on MoveRejected { code } } }",
            True,
        ),
        (
            "query($s: StateRef!) { score(state: $s) { ... on Score { ranking { player } } } }",
            False,
        ),
        ("query($s: StateRef!) { score(state: $s) { ...S } } fragment S on Score { round }", False),
        ("query($s: StateRef!) { score(state: $s) { ... { __typename } } }", False),
        ("query($s: StateRef!) { score(state: $s) { ... on ScoreResult { __typename } } }", False),
        (
            "query($s: StateRef!) { score(state: $s) { ... on Score @skip(if: false) { round } } }",
            False,
        ),
    ],
)
def test_plans_are_made_only_for_the_simple_shape(query: str, planned: bool) -> None:
    schema = build_schema()._schema
    assert (make_plan(schema, parse(query), None) is not None) is planned


@pytest.mark.parametrize(
    ("ref", "typename"),
    [("mid", "Score"), ("broken", "MoveRejected"), ("unknown id", "MoveRejected")],
)
async def test_a_union_result_is_served_by_a_plan(
    make_app: MakeApp, mid_json: dict[str, Any], ref: str, typename: str
) -> None:
    """A field that answers a result or ``MoveRejected`` is planned, both members complete as
    graphql-core completes them, and a bad state's rejection keeps its path."""
    state = {
        "mid": {"json": mid_json},
        "broken": {"json": {**mid_json, "round": "nope"}},
        "unknown id": {"id": "0" * 32},
    }[ref]
    app = make_app()
    endpoint = graphql_app(app)
    body = op(SCORE, {"s": state})
    async with connect(app):
        general, _ = await compare(app, scope_of(app), body)
        assert endpoint._compiled is not None
        assert endpoint._compiled.plan(SCORE, None) is not None
        execute = endpoint.schema.execute

        async def refuse(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("the general executor ran")

        endpoint.schema.execute = refuse  # type: ignore[method-assign]
        try:
            planned, _ = await compare_lean_only(app, body)
        finally:
            endpoint.schema.execute = execute  # type: ignore[method-assign]
    assert planned == general["body"]
    answer = planned["data"]["score"]
    assert answer["__typename"] == typename
    if ref == "broken":
        assert answer["code"] == "INVALID_STATE" and answer["path"] == "$.round"
    if ref == "unknown id":
        assert answer["code"] == "STATE_NOT_FOUND"


def test_a_union_plan_completes_by_the_exact_class_and_gives_up_on_any_other() -> None:
    """The member is found by the value's class, the one strawberry made the type from; a
    subclass (which strawberry would still resolve) makes the plan give up: the general path
    answers it."""
    from manhattan.api.graphql.compiled import union_completer
    from manhattan.api.graphql.execution import GiveUp
    from manhattan.api.graphql.types import MoveRejected

    schema = build_schema()._schema
    union = schema.get_type("ScoreResult")
    assert isinstance(union, GraphQLUnionType)
    document = parse(
        '{ score(state: {id: "x"}) { ... on MoveRejected { code p: path } __typename '
        "... on Score { round } } }"
    )
    root = document.definitions[0].selection_set.selections[0]  # type: ignore[attr-defined]
    complete = union_completer(union, root.selection_set.selections)
    assert complete is not None
    rejected = MoveRejected(code="INVALID_STATE", message="m", path="$.round")
    assert complete(rejected) == {
        "code": "INVALID_STATE",
        "p": "$.round",
        "__typename": "MoveRejected",
    }

    class Sub(MoveRejected):
        pass

    with pytest.raises(GiveUp):
        complete(Sub(code="X", message="m"))
