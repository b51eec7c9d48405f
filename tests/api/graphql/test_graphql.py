"""Every GraphQL operation (DESIGN §4) gives the engine's answers; failures are typed or coded."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import manhattan
from tests.service_client import gql

pytestmark = pytest.mark.anyio

MOVE_FIELDS = "type player card neighborhood floors color pieces block notation"
SEALED = "stateId token state { json } view { json player hand }"


def move_json(obj: dict[str, Any]) -> dict[str, Any]:
    """A GraphQL Move as the REST/engine JSON (nulls dropped, like Move.to_json)."""
    return {k: v for k, v in obj.items() if v is not None}


async def test_rules(client: httpx.AsyncClient) -> None:
    body = await gql(client, "{ rules }")
    assert body["data"]["rules"]["rulesVersion"] == manhattan.RULES_VERSION


async def test_new_game_with_typed_setup(client: httpx.AsyncClient) -> None:
    query = """{ newGame(setup: {players: 2, seed: "g", edition: modern,
                 variants: {monster: baby}}) {
                 ... on SealedState { stateId state { json round phase monster } } } }"""
    data = (await gql(client, query))["data"]["newGame"]
    expected = manhattan.new_game(
        players=2, seed="g", edition="modern", variants={"monster": "baby"}
    )
    assert data["state"]["json"] == expected.to_json()
    assert data["stateId"] == manhattan.state_id(expected)
    assert data["state"]["monster"] == expected.to_json()["monster"]


async def test_legal_moves_have_the_contract_fields(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    query = f"query($s: JSON!) {{ legalMoves(state: {{json: $s}}) {{ {MOVE_FIELDS} }} }}"
    moves = (await gql(client, query, s=mid_json))["data"]["legalMoves"]
    assert [move_json(m) for m in moves] == [m.to_json() for m in manhattan.legal_moves(mid_state)]


async def test_state_by_id_and_token(client: httpx.AsyncClient, mid_json: dict[str, Any]) -> None:
    stored = (
        await gql(
            client,
            "mutation($s: JSON!) { storeState(state: {json: $s}) "
            "{ ... on SealedState { stateId token } } }",
            s=mid_json,
        )
    )["data"]["storeState"]
    for ref in ({"id": stored["stateId"]}, {"token": stored["token"]}):
        query = (
            "query($r: StateRef!) { state(state: $r) "
            "{ ... on SealedState { stateId state { json } } } }"
        )
        data = (await gql(client, query, r=ref))["data"]["state"]
        assert data["state"]["json"] == mid_json and data["stateId"] == stored["stateId"]


async def test_validate_move(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    move = manhattan.legal_moves(mid_state)[0]
    query = """query($s: JSON!, $m: MoveInput!) { validateMove(state: {json: $s}, move: $m) {
               ... on Validation { legal code message move { notation block } } } }"""
    ok = (await gql(client, query, s=mid_json, m={"notation": move.notation}))["data"]
    assert ok["validateMove"]["legal"] is True
    assert ok["validateMove"]["move"]["block"] == list(move.block or ())
    no = await gql(
        client, query, s=mid_json, m={"type": "select", "color": 0, "pieces": [1, 1, 1, 1]}
    )
    assert no["data"]["validateMove"]["legal"] is False
    assert no["data"]["validateMove"]["code"] == "ILLEGAL_MOVE"


APPLY = """query($s: StateRef!, $m: MoveInput!) { applyMove(state: $s, move: $m) {
    __typename
    ... on Transition {
        stateId token state { json } events { type visibleTo data } moves { notation } }
    ... on MoveRejected { code message index } } }"""


async def test_apply_move_returns_a_transition(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    move = manhattan.legal_moves(mid_state)[0]
    data = (await gql(client, APPLY, s={"json": mid_json}, m={"notation": move.notation}))["data"]
    result = data["applyMove"]
    transition = manhattan.play(mid_state, move)
    assert result["__typename"] == "Transition"
    assert result["state"]["json"] == transition.state.to_json()
    assert [e["data"] for e in result["events"]] == [e.to_json() for e in transition.events]
    assert [e["visibleTo"] for e in result["events"]] == [e.visible_to for e in transition.events]


@pytest.mark.parametrize(
    ("move", "code"),
    [
        ({"notation": "zz"}, "INVALID_MOVE"),
        ({"notation": "s0:1,1,1,1"}, "ILLEGAL_MOVE"),
        ({}, "INVALID_MOVE"),
    ],
)
async def test_apply_move_rejections_are_typed(
    client: httpx.AsyncClient, mid_json: dict[str, Any], move: dict[str, Any], code: str
) -> None:
    result = (await gql(client, APPLY, s={"json": mid_json}, m=move))["data"]["applyMove"]
    assert result["__typename"] == "MoveRejected" and result["code"] == code


async def test_apply_move_with_a_bad_state_or_token_is_rejected_too(
    client: httpx.AsyncClient, mid_json: dict[str, Any]
) -> None:
    bad_state = await gql(client, APPLY, s={"json": {"format": 1}}, m={"notation": "b0n0f1"})
    assert bad_state["data"]["applyMove"]["code"] == "INVALID_STATE"
    bad_token = await gql(client, APPLY, s={"token": "x.y"}, m={"notation": "b0n0f1"})
    assert bad_token["data"]["applyMove"]["code"] == "BAD_TOKEN"


async def test_apply_moves_names_the_failing_index(
    client: httpx.AsyncClient, select_state: manhattan.State
) -> None:
    first = manhattan.legal_moves(select_state)[0]
    query = """query($s: JSON!, $ms: [MoveInput!]!) { applyMoves(state: {json: $s}, moves: $ms) {
               ... on Transition { moves { notation } } ... on MoveRejected { code index } } }"""
    moves = [{"notation": first.notation}, {"notation": first.notation}]
    result = (await gql(client, query, s=select_state.to_json(), ms=moves))["data"]["applyMoves"]
    assert result == {"code": "ILLEGAL_MOVE", "index": 1}


async def test_score(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    query = """query($s: JSON!) { score(state: {json: $s}) { ... on Score {
               round phase scores players
               history { round scores { buildings majorities tallest urban total } }
               ifRoundEndedNow { round players urban scores { total } }
               ranking { player place score } } } }"""
    data = (await gql(client, query, s=mid_json))["data"]["score"]
    assert data["players"] == manhattan.player_scores(mid_state)
    assert data["history"] == [r.to_json() for r in mid_state.history]
    assert data["ifRoundEndedNow"]["players"] == manhattan.score_round(mid_state).players
    assert data["ranking"] == [p.to_json() for p in manhattan.ranking(mid_state)]


async def test_view(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    query = (
        f"query($s: JSON!) {{ view(state: {{json: $s}}, player: 2) "
        f"{{ ... on SealedState {{ {SEALED} }} }} }}"
    )
    data = (await gql(client, query, s=mid_json))["data"]["view"]
    assert data["view"]["json"] == manhattan.view(mid_state, 2).to_json()
    assert data["state"] is None and data["stateId"] is None and data["token"]


async def test_suggest_move(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    query = """query($s: JSON!) { suggestMove(state: {json: $s}, bot: {level: random, seed: 1}) {
               ... on Suggestion { bot stats move { notation } alternatives { visits } }
               ... on MoveRejected { code } } }"""
    data = (await gql(client, query, s=mid_json))["data"]["suggestMove"]
    assert data["move"]["notation"] in [m.notation for m in manhattan.legal_moves(mid_state)]
    assert data["bot"] == "random"
    wrong = query.replace("level: random", "level: nobody")  # not a BotLevel: the document fails
    body = await gql(client, wrong, s=mid_json)
    assert body["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"


async def test_replay(client: httpx.AsyncClient) -> None:
    state = manhattan.new_game(players=2, seed="rg")
    notations = []
    for _ in range(4):
        move = manhattan.legal_moves(state)[-1]
        notations.append({"notation": move.notation})
        state = manhattan.apply_move(state, move)
    query = """query($g: GameRecord!) { replay(game: $g) {
               ... on Replay { movesApplied stateId ranking { player place } }
               ... on MoveRejected { code index message } } }"""
    ok = await gql(client, query, g={"setup": {"players": 2, "seed": "rg"}, "moves": notations})
    assert ok["data"]["replay"]["stateId"] == manhattan.state_id(state)
    bad = await gql(
        client, query, g={"setup": {"players": 2, "seed": "rg"}, "moves": notations[:1] * 2}
    )
    assert bad["data"]["replay"]["index"] == 1


async def test_list_fields_carry_the_code_in_extensions(client: httpx.AsyncClient) -> None:
    body = await gql(client, '{ legalMoves(state: {id: "0123"}) { type } }')
    assert body["errors"][0]["extensions"]["code"] == "INVALID_REQUEST"  # malformed id
    body = await gql(client, '{ legalMoves(state: {id: "%s"}) { type } }' % ("0" * 32))
    assert body["errors"][0]["extensions"]["code"] == "STATE_NOT_FOUND"
    body = await gql(
        client, "query($s: JSON!) { legalMoves(state: {json: $s}) { type } }", s={"format": 2}
    )
    error = body["errors"][0]
    assert error["extensions"]["code"] == "INVALID_STATE" and error["extensions"]["statePath"]


async def test_a_state_ref_must_name_exactly_one_source(client: httpx.AsyncClient) -> None:
    body = await gql(client, '{ legalMoves(state: {id: "a", token: "b"}) { type } }')
    assert body["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"


async def test_transport_errors_are_json_with_a_code(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/graphql", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_REQUEST")
    response = await client.post("/graphql", content=b"q", headers={"content-type": "text/plain"})
    assert response.status_code == 400 and response.json()["code"] == "INVALID_REQUEST"


async def test_the_ide_page_is_served_to_browsers(client: httpx.AsyncClient) -> None:
    response = await client.get("/graphql", headers={"accept": "text/html"})
    assert response.status_code == 200 and "graphiql" in response.text.lower()


async def test_fields_that_write_are_mutations_answering_as_their_query_twins(
    client: httpx.AsyncClient,
) -> None:
    """newGame, applyMove, applyMoves, replay and advance cache a state: they are mutations too
    (DESIGN §4 keeps them as query fields; both give the same answers)."""
    for kind in ("query", "mutation"):
        game = await gql(
            client,
            kind
            + ' { newGame(setup: {players: 3, seed: "mut"}) { ... on SealedState { stateId } } }',
        )
        state_id = game["data"]["newGame"]["stateId"]
        ref = f'{{id: "{state_id}"}}'
        applied = await gql(
            client,
            kind + f' {{ applyMove(state: {ref}, move: {{notation: "s0:1,1,1,1"}}) '
            "{ ... on Transition { stateId } } "
            f"advance(state: {ref}, player: 0, bot: {{level: random, seed: 2}}) "
            "{ ... on Transition { moves { notation } } } }",
        )
        assert not applied.get("errors"), applied
        assert applied["data"]["applyMove"]["stateId"] != state_id
        assert applied["data"]["advance"]["moves"] == []  # player 0 is to move: no bot plays
    schema_fields = await gql(client, "{ __schema { mutationType { fields { name } } } }")
    names = {f["name"] for f in schema_fields["data"]["__schema"]["mutationType"]["fields"]}
    assert names >= {"storeState", "newGame", "applyMove", "applyMoves", "replay", "advance"}


async def test_bot_budgets_have_the_rest_bounds(client: httpx.AsyncClient) -> None:
    game = await client.post("/v1/games", json={"players": 4, "seed": "bounds"})
    ref = '{{id: "{}"}}'.format(game.json()["stateId"])
    rejected = "... on MoveRejected { code path }"
    for args, path in (
        ("iterations: 20001", "$.iterations"),
        ("timeMs: 0", "$.timeMs"),
        ("seed: -1", "$.seed"),
    ):
        body = await gql(
            client, f"{{ suggestMove(state: {ref}, bot: {{{args}}}) {{ {rejected} }} }}"
        )
        assert body["data"]["suggestMove"] == {"code": "INVALID_BOT", "path": path}, args
    unknown = await gql(
        client,
        f"query($b: BotInput!) {{ suggestMove(state: {ref}, bot: $b) {{ {rejected} }} }}",
        b={"level": "deep-blue"},
    )  # not a BotLevel: the variable does not coerce
    assert unknown["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    body = await gql(
        client,
        f"{{ advance(state: {ref}, player: 1, bot: {{level: greedy, timeMs: 2001}}) "
        f"{{ {rejected} }} }}",
    )
    assert body["data"]["advance"] == {"code": "INVALID_BOT", "path": "$.timeMs"}


async def test_threats_take_the_player_of_a_token_as_rest_does(client: httpx.AsyncClient) -> None:
    game = await client.post("/v1/games", json={"players": 4, "seed": "bounds"})
    seat = await client.post(
        "/v1/view", json={"state": {"id": game.json()["stateId"]}, "player": 2}
    )
    body = await gql(
        client,
        '{{ threats(state: {{token: "{}"}}) {{ ... on Threats {{ viewer }} }} }}'.format(
            seat.json()["token"]
        ),
    )
    assert body["data"]["threats"]["viewer"] == 2, body


#: Every field that takes a state, with its other arguments, the member it answers, and a field
#: of that member: each answers a bad state with a ``MoveRejected`` (DESIGN §4).
STATE_FIELDS = [
    ("state", "", "SealedState", "token"),
    ("validateMove", ', move: {notation: "s0:2,2,1,1"}', "Validation", "legal"),
    ("score", "", "Score", "round"),
    ("view", ", player: 0", "SealedState", "token"),
    ("analysis", "", "Analysis", "round"),
    ("preview", ', move: {notation: "s0:2,2,1,1"}', "Preview", "deltas"),
    ("previewAll", "", "Previews", "previews { deltas }"),
    ("threats", ", player: 0", "Threats", "viewer"),
    ("boardSvg", "", "BoardSvg", "svg"),
    ("applyMove", ', move: {notation: "s0:2,2,1,1"}', "Transition", "stateId"),
    ("suggestMove", "", "Suggestion", "bot"),
    ("advance", ", player: 0", "Transition", "token"),
]


@pytest.mark.parametrize(("field", "args", "member", "selection"), STATE_FIELDS)
async def test_every_field_that_takes_a_state_answers_a_bad_one_with_move_rejected(
    client: httpx.AsyncClient,
    mid_json: dict[str, Any],
    field: str,
    args: str,
    member: str,
    selection: str,
) -> None:
    query = (
        f"query($s: StateRef!) {{ {field}(state: $s{args}) {{ __typename "
        f"... on {member} {{ {selection} }} ... on MoveRejected {{ code message path }} }} }}"
    )
    good = await gql(client, query, s={"json": manhattan.new_game(players=4, seed="f").to_json()})
    assert "errors" not in good and good["data"][field]["__typename"] == member, good
    broken = await gql(client, query, s={"json": {**mid_json, "round": "nope"}})
    assert "errors" not in broken
    assert broken["data"][field] == {
        "__typename": "MoveRejected",
        "code": "INVALID_STATE",
        "message": broken["data"][field]["message"],
        "path": "$.round",
    }
    unknown = await gql(client, query, s={"id": "0" * 32})
    assert unknown["data"][field]["code"] == "STATE_NOT_FOUND"


async def test_store_state_and_a_bad_setup_answer_move_rejected(client: httpx.AsyncClient) -> None:
    stored = await gql(
        client,
        "mutation { storeState(state: {json: {format: 2}}) { ... on MoveRejected { code path } } }",
    )
    assert stored["data"]["storeState"]["code"] == "INVALID_STATE"
    for kind in ("query", "mutation"):
        body = await gql(
            client, kind + " { newGame(setup: {players: 7}) { ... on MoveRejected { code } } }"
        )
        assert body["data"]["newGame"] == {"code": "INVALID_SETUP"}, body


async def test_legal_moves_alone_keeps_its_failure_a_graphql_error(
    client: httpx.AsyncClient, mid_json: dict[str, Any]
) -> None:
    """DESIGN §4 fixes ``legalMoves: [Move!]!``: no union, so an error with extensions.code."""
    body = await gql(
        client,
        "query($s: StateRef!) { legalMoves(state: $s) { type } }",
        s={"json": {**mid_json, "round": "nope"}},
    )
    assert body["data"] is None
    assert body["errors"][0]["extensions"] | {"classification": None} == {
        "code": "INVALID_STATE",
        "statePath": "$.round",
        "classification": None,
    }


async def test_closed_sets_are_enums_with_the_wire_strings(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    """Enum values are the wire strings: JSON variables and answers are the strings REST uses;
    only a literal inside the document is written without quotes."""
    enums = await gql(client, '{ __type(name: "MoveType") { kind enumValues { name } } }')
    assert enums["data"]["__type"]["kind"] == "ENUM"
    assert [v["name"] for v in enums["data"]["__type"]["enumValues"]] == [
        "select",
        "build",
        "forfeit",
    ]
    rules = (await gql(client, "{ rules }"))["data"]["rules"]
    for name, values in (
        ("BotLevel", rules["bots"]),
        ("Edition", rules["editions"]),
        ("Monster", rules["monsters"]),
        ("EventType", rules["eventTypes"]),
        ("UrbanCard", rules["urbanCards"]),
        ("Phase", ["select", "build", "over"]),
    ):
        body = await gql(client, f'{{ __type(name: "{name}") {{ enumValues {{ name }} }} }}')
        assert [v["name"] for v in body["data"]["__type"]["enumValues"]] == values, name
    move = next(m for m in manhattan.legal_moves(mid_state) if m.type == "build")
    as_variable = {
        k: v
        for k, v in move.to_json().items()
        if k in ("type", "card", "neighborhood", "floors", "color")
    }
    query = (
        "query($s: StateRef!, $m: MoveInput!) { validateMove(state: $s, move: $m) "
        "{ ... on Validation { legal move { type } } } }"
    )
    body = await gql(client, query, s={"json": mid_json}, m=as_variable)
    assert body["data"]["validateMove"] == {"legal": True, "move": {"type": "build"}}
    fields = ", ".join(f"{k}: {v}" for k, v in as_variable.items())
    literal = (
        "query($s: StateRef!) { validateMove(state: $s, move: {" + fields + "}) "
        "{ ... on Validation { legal move { type } } } }"
    )
    quoted = literal.replace("type: build", 'type: "build"')
    refused = await gql(client, quoted, s={"json": mid_json})
    assert refused["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
