"""The GraphQL fast path behind one module and one setting: pinned to the versions it
is tested on, off by setting or on other versions, never planning a field that writes, and
running a failing request once."""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path
from typing import Any

import pytest
from graphql import parse

from manhattan.api.graphql import fast as graphql_fast
from manhattan.api.graphql.compiled import make_plan
from manhattan.api.graphql.schema import PLANNABLE_FIELDS, build_schema
from manhattan.engine import codec
from tests.api.graphql.test_compiled import LEGAL
from tests.api.graphql.test_perf_http import graphql_app
from tests.conftest import MakeApp
from tests.service_client import connect, gql

pytestmark = pytest.mark.anyio
PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"


def test_the_internals_it_reads_are_pinned_to_the_tested_minor_versions() -> None:
    dependencies = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    for name, tested in graphql_fast.TESTED_VERSIONS.items():
        (spec,) = [d for d in dependencies if d.split(">")[0].split("<")[0].strip() == name]
        major, minor = tested.split(".")
        assert f"<{major}.{int(minor) + 1}" in spec.replace(" ", ""), spec
    assert any(d.startswith("cross-web") for d in dependencies)  # imported by the schema
    assert graphql_fast.unsupported() is None  # what is installed here is what is tested


def test_other_versions_turn_it_off_loudly(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    assert "graphql-core 3.4.0" in (graphql_fast.unsupported({"graphql-core": "3.4.0"}) or "")
    assert graphql_fast.unsupported({"strawberry-graphql": "0.342.0"}) is not None
    monkeypatch.setattr(graphql_fast, "unsupported", lambda: "graphql-core 9.9 is installed")
    with caplog.at_level(logging.WARNING, logger="manhattan.api"):
        assert graphql_fast.enabled(True) is False
    assert "GraphQL fast path off: graphql-core 9.9" in caplog.text
    assert graphql_fast.enabled(False) is False


async def test_the_setting_turns_it_off_and_answers_stay_the_same(
    make_app: MakeApp, mid_json: dict[str, Any]
) -> None:
    slow = make_app(graphql_fast_path=False)
    assert graphql_app(slow)._compiled is None
    assert graphql_app(slow).schema.execution_context_class.__name__ != "PlainDataExecutionContext"
    fast = make_app()
    answers = []
    for app in (slow, fast, fast):  # the second fast request is served by a plan
        async with connect(app) as client:
            answers.append(await gql(client, LEGAL, s={"json": mid_json}))
    assert answers[0] == answers[1] == answers[2]
    assert graphql_app(fast)._compiled.plan(LEGAL, None) is not None


@pytest.mark.parametrize(
    "query",
    [
        "{ newGame { ... on SealedState { token } } }",
        "query($s: StateRef!) { state(state: $s) { ... on SealedState { token } } }",
        "query($s: StateRef!) { view(state: $s, player: 0) { ... on SealedState { token } } }",
        "query($s: StateRef!) { suggestMove(state: $s) { __typename } }",
        "query($s: StateRef!, $m: MoveInput!) { applyMove(state: $s, move: $m) { __typename } }",
        "query($s: StateRef!) { legalMoves(state: $s) { type } n: newGame { __typename } }",
    ],
)
def test_fields_that_write_are_never_planned(query: str) -> None:
    schema = build_schema()._schema
    document = parse(query)
    assert make_plan(schema, document, None, plannable=PLANNABLE_FIELDS) is None


def test_every_plannable_field_only_reads() -> None:
    writes = {"newGame", "state", "view", "applyMove", "applyMoves", "replay", "advance"}
    assert not PLANNABLE_FIELDS & writes
    assert set(build_schema()._schema.query_type.fields) >= PLANNABLE_FIELDS  # type: ignore[union-attr]


async def test_a_failing_request_runs_once(
    make_app: MakeApp, mid_json: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An invalid state on a planned query is decoded once, and answered as the general path
    answers it."""
    calls = []
    decode = codec.read_state_format  # the first pass of every inline state's decoding

    def counting(obj: Any) -> Any:
        calls.append(1)
        return decode(obj)

    broken = {**mid_json, "round": "nope"}
    app = make_app()
    async with connect(app) as client:
        general = await gql(client, LEGAL, s={"json": mid_json})  # validates the document
        assert graphql_app(app)._compiled.plan(LEGAL, None) is not None
        monkeypatch.setattr(codec, "read_state_format", counting)
        planned = await gql(client, LEGAL + " ", s={"json": broken})  # general path (new text)
        general_calls = len(calls)
        again = await gql(client, LEGAL + " ", s={"json": broken})  # now planned
    assert general["data"]["legalMoves"]
    assert planned == again
    assert again["data"] is None and again["errors"][0]["extensions"]["code"] == "INVALID_STATE"
    assert again["errors"][0]["path"] == ["legalMoves"]
    assert general_calls == 1 and len(calls) == 2  # once per request, on either path
