"""GraphQL's typed ``analysis``, ``preview``, ``previewAll`` and ``threats``: every field mirrors
the engine's JSON (the same answer as REST), on classic, monster and urban-rules games, and a
player's token answers from their view."""

from __future__ import annotations

import functools
import random
from typing import Any

import httpx
import pytest
from graphql import (
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLUnionType,
)

import manhattan
from manhattan.api.graphql.schema import build_schema
from manhattan.bench.engine import mid_game_state
from tests.engine.positions import build, position
from tests.service_client import gql

pytestmark = pytest.mark.anyio

_PIECE = "{ color floors }"
_PROBABILITY = "{ value exact }"
_CHANGE = "{ block cause ownerBefore ownerAfter heightBefore heightAfter takeover explanation }"
_BREAKDOWN = "{ buildings majorities tallest total urban }"

#: Every field of each type, so that a typed answer can be compared with its ``json`` whole.
ANALYSIS_FIELDS = (
    "round phase toMove player buildings { block height floors owner safe takeWith "
    f"takeWithSelected reach {{ cards pieces {_PIECE} canBuild }} }} json"
)
PREVIEW_FIELDS = (
    "move { type player card neighborhood floors color pieces block notation } "
    f"changes {_CHANGE} takeovers {_CHANGE} monster {{ from to }} "
    f"scoresBefore {_BREAKDOWN} scoresAfter {_BREAKDOWN} deltas "
    "majorities { neighborhood color change winner counts explanation } "
    "tallest { color change height owner explanation } urbanKnown explanation json"
)
THREATS_FIELDS = (
    f"viewer unseen buildings {{ block owner probability {_PROBABILITY} "
    f"probabilityOthers {_PROBABILITY} byPlayer {{ player card pieces {_PIECE} "
    f"probability {_PROBABILITY} known }} }} json"
)
QUERY = f"""query($s: StateRef!, $p: Int!, $m: MoveInput!) {{
  analysis(state: $s) {{ ... on Analysis {{ {ANALYSIS_FIELDS} }} }}
  previewAll(state: $s) {{ ... on Previews {{ previews {{ {PREVIEW_FIELDS} }} }} }}
  preview(state: $s, move: $m) {{ ... on Preview {{ {PREVIEW_FIELDS} }} }}
  threats(state: $s, player: $p) {{ ... on Threats {{ {THREATS_FIELDS} }} }}
}}"""


def _played(state: manhattan.State, seed: str) -> manhattan.State:
    """``state`` played at random into round 2's build phase, some pieces placed."""
    rng = random.Random(seed)
    while not (state.round == 2 and state.phase == "build" and sum(map(sum, state.selected)) <= 12):
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
    return state


@functools.cache
def states() -> dict[str, manhattan.State]:
    return {
        "classic": mid_game_state(),
        "select": manhattan.new_game(players=4, seed="select"),
        "godzilla": _played(
            manhattan.new_game(
                players=3, seed="godzilla", variants={"monster": "godzilla", "antiTrust": True}
            ),
            "godzilla",
        ),
        "baby": _played(
            manhattan.new_game(
                players=4, seed="baby", variants={"monster": "baby", "slowGrowth": True}
            ),
            "baby",
        ),
        "urban": _played(
            manhattan.new_game(
                players=2, seed="urban", edition="modern", variants={"urbanRules": True}
            ),
            "urban",
        ),
    }


def _opponent(state: manhattan.State) -> int:
    """The player after the one to move: threats as an opponent sees them."""
    return ((state.to_move or 0) + 1) % state.rules.players


def typed_as_json(typed: dict[str, Any]) -> dict[str, Any]:
    """A typed answer without its ``json`` field, as the engine writes it: the ``Move`` type has
    a null for each key that a move's JSON leaves out."""
    out = {key: value for key, value in typed.items() if key != "json"}
    if "move" in out:
        out["move"] = {key: value for key, value in out["move"].items() if value is not None}
    return out


def _object_type(type_: GraphQLOutputType) -> GraphQLObjectType | None:
    while isinstance(type_, GraphQLNonNull | GraphQLList):
        type_ = type_.of_type
    return type_ if isinstance(type_, GraphQLObjectType) else None


def _answer_type(type_: GraphQLOutputType) -> GraphQLObjectType:
    """The answer of a field whose result is a union with ``MoveRejected`` (``Previews``: the
    type of its ``previews``)."""
    while isinstance(type_, GraphQLNonNull):
        type_ = type_.of_type
    assert isinstance(type_, GraphQLUnionType)
    (answer,) = [t for t in type_.types if t.name != "MoveRejected"]
    if answer.name == "Previews":
        inner = _object_type(answer.fields["previews"].type)
        assert inner is not None
        return inner
    return answer


def assert_mirrors(type_: GraphQLObjectType, obj: dict[str, Any], path: str) -> None:
    """Every field of ``type_`` is a key of the engine's ``obj`` and the other way round
    (``json`` aside; ``Move`` has a field for every key any move may have), down the tree."""
    fields = set(type_.fields) - {"json"}
    if type_.name == "Move":
        assert set(obj) <= fields, path
        return
    assert fields == set(obj), f"{path}: {type_.name} and the engine's JSON differ"
    for name, value in obj.items():
        inner = _object_type(type_.fields[name].type)
        items = value if isinstance(value, list) else [value]
        for item in items:
            if inner is not None and item is not None:
                assert_mirrors(inner, item, f"{path}.{name}")


async def _rest(client: httpx.AsyncClient, path: str, **body: Any) -> dict[str, Any]:
    response = await client.post(path, json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


@pytest.mark.parametrize("name", list(states()))
async def test_typed_fields_are_the_engines_json(client: httpx.AsyncClient, name: str) -> None:
    state = states()[name]
    ref = state.to_json()
    move = manhattan.legal_moves(state)[-1]
    viewer = _opponent(state)
    body = await gql(client, QUERY, s={"json": ref}, p=viewer, m={"notation": move.notation})
    assert "errors" not in body, body
    data = body["data"]
    expected = {
        "analysis": manhattan.analyze(state).to_json(),
        "preview": manhattan.preview(state, move).to_json(),
        "threats": manhattan.threats(state, viewer).to_json(),
    }
    previews = [p.to_json() for p in manhattan.preview_all(state)]
    assert [p["json"] for p in data["previewAll"]["previews"]] == previews
    assert [typed_as_json(p) for p in data["previewAll"]["previews"]] == previews
    for field, engine in expected.items():
        assert data[field]["json"] == engine, field
        assert typed_as_json(data[field]) == engine, field
    rest = {
        "analysis": (await _rest(client, "/v1/analysis", state=ref))["analysis"],
        "preview": (await _rest(client, "/v1/preview", state=ref, move=move.notation))["preview"],
        "threats": (await _rest(client, "/v1/threats", state=ref, player=viewer))["threats"],
    }
    assert rest == {field: data[field]["json"] for field in rest}
    assert (await _rest(client, "/v1/preview", state=ref))["previews"] == previews


def test_every_type_mirrors_the_engines_json() -> None:
    """Field for key, on states where the nullable parts (reach, monster, owners) take values."""
    query = build_schema()._schema.query_type
    assert query is not None
    seen: set[str] = set()
    for state in states().values():
        viewer = _opponent(state)
        pairs = [
            ("analysis", manhattan.analyze(state).to_json()),
            ("threats", manhattan.threats(state, viewer).to_json()),
            *(("previewAll", p.to_json()) for p in manhattan.preview_all(state)),
        ]
        for field, obj in pairs:
            type_ = _answer_type(query.fields[field].type)
            assert_mirrors(type_, obj, field)
            if field == "previewAll":
                seen.update(f"{key}:{bool(obj[key])}" for key in ("monster", "takeovers"))
    # the states cover a moving monster, takeovers and their absence
    assert {"monster:True", "monster:False", "takeovers:True", "takeovers:False"} <= seen


async def test_a_players_token_answers_from_their_view(client: httpx.AsyncClient) -> None:
    state = states()["classic"]
    mover = state.to_move
    assert mover is not None
    other = (mover + 1) % state.rules.players
    move = manhattan.legal_moves(state)[0]
    tokens = {}
    for p in (mover, other):
        tokens[p] = (await _rest(client, "/v1/view", state=state.to_json(), player=p))["token"]
    mine = manhattan.view(state, mover)
    body = await gql(
        client, QUERY, s={"token": tokens[mover]}, p=mover, m={"notation": move.notation}
    )
    assert "errors" not in body, body
    data = body["data"]
    assert data["analysis"]["json"] == manhattan.analyze(mine).to_json()
    assert typed_as_json(data["analysis"]) == data["analysis"]["json"]
    assert data["analysis"]["player"] == mover
    previews = [p.to_json() for p in manhattan.preview_all(mine)]
    assert [p["json"] for p in data["previewAll"]["previews"]] == previews
    assert [typed_as_json(p) for p in data["previewAll"]["previews"]] == previews
    assert data["preview"]["json"] == manhattan.preview(mine, move).to_json()
    assert data["threats"]["json"] == manhattan.threats(mine).to_json()

    # Another player's token: their view (the mover's hand unknown), and errors as before.
    query = (
        "query($s: StateRef!, $p: Int!) { analysis(state: $s) { ... on Analysis { player "
        "buildings { reach { canBuild } } json } } threats(state: $s, player: $p) "
        "{ ... on Threats { viewer json } } }"
    )
    body = await gql(client, query, s={"token": tokens[other]}, p=other)
    assert "errors" not in body, body
    theirs = manhattan.view(state, other)
    assert body["data"]["analysis"]["json"] == manhattan.analyze(theirs).to_json()
    assert body["data"]["analysis"]["player"] == other
    assert all(b["reach"] is None for b in body["data"]["analysis"]["buildings"])
    assert body["data"]["threats"]["json"] == manhattan.threats(theirs).to_json()
    for query, path in (
        ("query($s: StateRef!) { previewAll(state: $s) { ...Rejected } }", "/v1/preview"),
        (
            f"query($s: StateRef!) {{ threats(state: $s, player: {mover}) {{ ...Rejected }} }}",
            "/v1/threats",
        ),
    ):
        query += " fragment Rejected on MoveRejected { code message }"
        body = await gql(client, query, s={"token": tokens[other]})
        rest_body = {"state": {"token": tokens[other]}}
        if path == "/v1/threats":
            rest_body["player"] = mover
        rest = await client.post(path, json=rest_body)
        field = "previewAll" if path == "/v1/preview" else "threats"
        assert "errors" not in body, body
        assert body["data"][field]["code"] == rest.json()["code"], path


async def test_validate_move_explains_a_refusal_in_rest_and_graphql(
    client: httpx.AsyncClient,
) -> None:
    """Issue 9: ``validateMove`` names the rule, the numbers and the nearest legal moves, the
    same as ``manhattan.explain``, in REST and GraphQL, also on the mover's token."""
    hands = [[4, 5, 5, 0], [0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]]
    board = {(0, 1, 1): [(0, 1), (1, 3)]}
    state = position(board=board, hands=hands, selected={0: (1, 1, 0, 0)})
    move = build(4, 0, 1)
    engine = manhattan.explain(state, move).to_json()
    del engine["move"]
    rest = await _rest_any(client, "/v1/validate", state=state.to_json(), move=move.notation)
    # (REST leaves out what a refusal does not have, as every answer leaves out its nulls)
    assert rest == {key: value for key, value in engine.items() if value is not None}
    query = """query($s: StateRef!, $m: MoveInput!) { validateMove(state: $s, move: $m) {
      ... on Validation { legal code message reason section decision option numbers
      alternatives { kind move { notation } } } } }"""
    token = (await _rest(client, "/v1/view", state=state.to_json(), player=0))["token"]
    for ref in ({"json": state.to_json()}, {"token": token}):
        body = await gql(client, query, s=ref, m={"notation": move.notation})
        assert "errors" not in body, body
        got = body["data"]["validateMove"]
        assert got["reason"] == "notEnoughFloors" and got["section"] == "§6"
        assert got["numbers"] == engine["numbers"]
        assert [(a["kind"], a["move"]["notation"]) for a in got["alternatives"]] == [
            (a["kind"], a["move"]["notation"]) for a in engine["alternatives"]
        ]


async def _rest_any(client: httpx.AsyncClient, path: str, **body: Any) -> dict[str, Any]:
    answer: dict[str, Any] = (await client.post(path, json=body)).json()
    return answer
