"""``/v1/apply`` (and GraphQL's ``applyMoves``) read their moves once, before the state: the
wire shape says "exactly one of move and moves", and the game service is handed engine moves."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from manhattan import Move, wire
from manhattan.games import move_reader

pytestmark = pytest.mark.anyio


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """Every move read from the wire (``Move.from_wire`` as the game service calls it)."""
    seen: list[object] = []

    class Counted:
        @staticmethod
        def from_wire(obj: object) -> Move:
            seen.append(obj)
            return Move.from_wire(obj)

    monkeypatch.setattr(move_reader, "Move", Counted)
    yield seen


async def test_a_list_of_moves_is_read_once(client: httpx.AsyncClient, reads: list[object]) -> None:
    game = (await client.post("/v1/games", json={"players": 4, "seed": "once"})).json()
    moves = ["s0:2,2,1,1", "s1:2,2,1,1"]
    applied = await client.post(
        "/v1/apply", json={"state": {"id": game["stateId"]}, "moves": moves}
    )
    assert applied.status_code == 200, applied.text
    assert reads == moves
    reads.clear()
    query = (
        "query($s: StateRef!, $m: [MoveInput!]!) "
        "{ applyMoves(state: $s, moves: $m) { ... on Transition { stateId } } }"
    )
    variables: dict[str, Any] = {
        "s": {"id": game["stateId"]},
        "m": [{"notation": m} for m in moves],
    }
    answer = await client.post("/graphql", json={"query": query, "variables": variables})
    assert answer.json()["data"]["applyMoves"]["stateId"] == applied.json()["stateId"]
    assert len(reads) == len(moves)


@pytest.mark.parametrize(
    "body",
    [{"state": {"id": "0" * 32}}, {"state": {"id": "0" * 32}, "move": "s0:1,1,1,1", "moves": []}],
)
def test_exactly_one_of_move_and_moves_is_the_shapes_rule(body: dict[str, Any]) -> None:
    with pytest.raises(wire.WireError) as caught:
        wire.read(body, wire.ApplyRequest)
    assert (caught.value.code, caught.value.path) == ("INVALID_REQUEST", "$")
    assert caught.value.message == "give either 'move' or 'moves'"


async def test_a_malformed_move_is_refused_before_the_state_is_looked_at(
    client: httpx.AsyncClient,
) -> None:
    unknown = {"id": "0" * 32}  # no such state: a 404 if it were looked at first
    for body in ({"state": unknown, "move": "nonsense"}, {"state": unknown, "moves": ["s0:9"]}):
        answer = await client.post("/v1/apply", json=body)
        assert answer.status_code == 400, answer.text
        assert answer.json()["code"] == "INVALID_MOVE"
