"""Hostile GraphQL requests: arbitrary JSON bodies and variables, aliased costly
fields and long literals never get a 5xx, and each is refused or answered quickly."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from manhattan.api.graphql.cost import operation_cost
from manhattan.api.graphql.limits import InputLimits, request_error
from manhattan.api.graphql.schema import build_schema
from manhattan.server.app import create_app
from manhattan.settings import Settings

APP = create_app(Settings(access_log=False))
SCHEMA = build_schema()._schema
TIME_LIMIT = 3.0
SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=60,
)

FIELDS = [
    "rules",
    'legalMoves(state: {id: "x"}) { type }',
    "replay(game: {setup: {players: 2}, moves: $m}) { __typename }",
    'applyMoves(state: {id: "x"}, moves: $m) { __typename }',
    'suggestMove(state: {id: "x"}) { __typename }',
    'previewAll(state: {id: "x"}) { ... on Previews { previews { move { type } } } }',
    'view(state: {id: "x"}, player: $p) { ... on SealedState { token } }',
]


def post(body: bytes) -> httpx.Response:
    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=APP)
        async with httpx.AsyncClient(transport=transport, base_url="http://fuzz") as client:
            return await client.post(
                "/graphql", content=body, headers={"content-type": "application/json"}
            )

    started = time.perf_counter()
    response = asyncio.run(send())
    assert time.perf_counter() - started < TIME_LIMIT
    assert response.status_code < 500, response.text[:300]
    if response.status_code >= 400:
        assert "code" in response.json()
    else:
        for error in response.json().get("errors", []):
            assert error["extensions"]["code"] != "INTERNAL_ERROR", error
    return response


@SETTINGS
@given(json_values)
def test_any_json_body_is_answered_without_a_server_error(body: Any) -> None:
    post(json.dumps(body).encode())


@SETTINGS
@given(
    st.lists(st.sampled_from(FIELDS), min_size=1, max_size=15),
    st.dictionaries(st.sampled_from(["m", "p", "x"]), json_values),
    st.integers(0, 3_000),
    st.text("0123456789.e-", min_size=1, max_size=400),
)
def test_aliased_costly_fields_and_odd_variables(
    fields: list[str], variables: dict[str, Any], moves: int, literal: str
) -> None:
    variables.setdefault("m", [{"notation": "x"}] * moves)
    variables.setdefault("p", 0)
    selection = " ".join(f"a{i}: {f}" for i, f in enumerate(fields))
    query = "query($m: [MoveInput!]!, $p: Int!) { " + selection + " }"
    post(json.dumps({"query": query, "variables": variables}).encode())
    literal_query = '{ view(state: {id: "x"}, player: ' + literal + ") { __typename } }"
    post(json.dumps({"query": literal_query}).encode())


@SETTINGS
@given(json_values)
def test_the_input_bounds_take_anything(variables: Any) -> None:
    from graphql import parse

    limits = InputLimits(max_list_items=5, max_values=50)
    document = parse(
        "query($m: [MoveInput!]!, $g: GameSetup, $s: StateRef!) { replay(game: {moves: $m, "
        "setup: $g}) { __typename } legalMoves(state: $s) { type } }"
    )
    for value in (variables, {"m": variables, "g": variables, "s": variables}):
        request_error(SCHEMA, document, None, value, limits)
        cost = operation_cost(document, None, value if isinstance(value, dict) else None)
        assert cost >= 2
