"""A body that is nothing but a state, sent again as the very same bytes (REST and GraphQL), is
answered from the state parsed the first time, exactly as the first time: with the caller's
headers checked again, and never for a body whose state was refused."""

from __future__ import annotations

import json
from typing import Any

import pytest

import manhattan
from manhattan.api.graphql import view
from manhattan.games import game_id
from manhattan.games.memo import KEPT_TEXT_BYTES
from tests.conftest import MakeApp
from tests.service_client import connect

pytestmark = pytest.mark.anyio

LEGAL = "query($s: StateRef!) { legalMoves(state: $s) { notation } }"
SCORE = (
    "query($s: StateRef!) { score(state: $s) "
    "{ ... on Score { players } ... on MoveRejected { code } } }"
)
JSON_BODY = {"content-type": "application/json"}


async def test_rest_answers_a_body_sent_again_from_its_parsed_state(
    make_app: MakeApp, mid_json: dict[str, Any]
) -> None:
    app = make_app()
    body = json.dumps({"state": mid_json}).encode()
    async with connect(app) as client:
        first = await client.post("/v1/legal-moves", content=body, headers=JSON_BODY)
        kept = app.state.operations.parsed_text(body)
        assert kept == manhattan.State.from_json(mid_json)
        again = await client.post("/v1/legal-moves", content=body, headers=JSON_BODY)
        score = await client.post("/v1/score", content=body, headers=JSON_BODY)
        wrong = await client.post(
            "/v1/legal-moves", content=body, headers={**JSON_BODY, "manhattan-game": "0" * 32}
        )
    assert first.status_code == again.status_code == score.status_code == 200
    assert again.content == first.content
    assert app.state.operations.parsed_text(body) is kept
    assert wrong.status_code == 403 and "WRONG_GAME" in wrong.text, wrong.text


async def test_rest_refuses_a_bad_body_every_time(
    make_app: MakeApp, mid_json: dict[str, Any]
) -> None:
    app = make_app()
    body = json.dumps({"state": dict(mid_json, scores=[0] * 4)}).encode()
    async with connect(app) as client:
        answers = [
            await client.post("/v1/legal-moves", content=body, headers=JSON_BODY) for _ in range(2)
        ]
    assert [a.status_code for a in answers] == [400, 400]
    assert answers[0].json() == answers[1].json()
    assert app.state.operations.parsed_text(body) is None


class _Counted:
    """``view._INLINE_STATES`` with its decodes counted."""

    def __init__(self) -> None:
        self.decoder, self.calls = view._INLINE_STATES, 0

    def decode(self, data: bytes) -> Any:
        self.calls += 1
        return self.decoder.decode(data)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> _Counted:
    counter = _Counted()
    monkeypatch.setattr(view, "_INLINE_STATES", counter)
    return counter


async def test_graphql_answers_a_body_sent_again_without_decoding_it(
    make_app: MakeApp, mid_json: dict[str, Any], counted: _Counted
) -> None:
    app = make_app()
    game = game_id(manhattan.State.from_json(mid_json))
    async with connect(app) as client:
        for query in (LEGAL, SCORE):  # the legal moves' lane, and the plan's execution
            body = json.dumps({"query": query, "variables": {"s": {"json": mid_json}}}).encode()
            answers = [
                await client.post("/graphql", content=body, headers=JSON_BODY) for _ in range(4)
            ]
            wrong = await client.post(
                "/graphql", content=body, headers={**JSON_BODY, "manhattan-game": "0" * 32}
            )
            right = await client.post(
                "/graphql", content=body, headers={**JSON_BODY, "manhattan-game": game}
            )
            assert {a.status_code for a in answers} == {200}
            assert len({a.content for a in answers}) == 1, query
            assert right.content == answers[0].content
            assert "WRONG_GAME" in wrong.text, wrong.text
    # Each query's first request is decoded, then validated the general way (its plan is not
    # made yet); the second is planned and decoded from its bytes; the rest find both the plan
    # and the state kept.
    assert counted.calls == 2 * 2


async def test_graphql_decodes_a_body_whose_state_was_refused_every_time(
    make_app: MakeApp, mid_json: dict[str, Any], counted: _Counted
) -> None:
    app = make_app()
    broken = dict(mid_json, scores=[0] * 4)
    body = json.dumps({"query": LEGAL, "variables": {"s": {"json": broken}}}).encode()
    async with connect(app) as client:
        answers = [await client.post("/graphql", content=body, headers=JSON_BODY) for _ in range(4)]
    codes = {a.json()["errors"][0]["extensions"]["code"] for a in answers}
    assert codes == {"INVALID_STATE"}
    assert counted.calls == len(answers)


async def test_graphql_keeps_no_long_body(
    make_app: MakeApp, mid_json: dict[str, Any], counted: _Counted
) -> None:
    app = make_app()
    body = json.dumps({"query": LEGAL, "variables": {"s": {"json": mid_json}}}).encode()
    padded = body + b" " * KEPT_TEXT_BYTES
    async with connect(app) as client:
        answers = [
            await client.post("/graphql", content=padded, headers=JSON_BODY) for _ in range(3)
        ]
        short = await client.post("/graphql", content=body, headers=JSON_BODY)
    assert {a.content for a in answers} == {short.content}
    assert counted.calls == len(answers) + 1  # each padded one decoded; the short one too
    assert app.state.operations.parsed_text(padded) is None
