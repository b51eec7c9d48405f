"""Every REST operation (DESIGN §4) against the engine's own answers, JSON and msgpack."""

from __future__ import annotations

import json
from typing import Any

import httpx
import msgpack
import pytest

import manhattan

pytestmark = pytest.mark.anyio


async def test_rules_names_versions_and_codes(client: httpx.AsyncClient) -> None:
    body = (await client.get("/v1/rules")).json()
    assert body["rulesVersion"] == manhattan.RULES_VERSION
    assert body["stateFormat"] == "manhattan/state@1"
    assert set(body["moveTypes"]) == {"select", "build", "forfeit"}
    assert body["errorCodes"]["ILLEGAL_MOVE"] == 422


async def test_new_game_takes_the_setup_object_itself(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/games", json={"players": 2, "seed": "abc"})
    assert response.status_code == 201
    body = response.json()
    expected = manhattan.new_game(players=2, seed="abc")
    assert body["state"] == expected.to_json()
    assert body["stateId"] == manhattan.state_id(expected)
    assert body["token"]


async def test_new_game_rejects_a_bad_setup_with_its_path(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/games", json={"players": 7})
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_SETUP"
    response = await client.post("/v1/games", json={"speed": 1})
    assert response.json() == {
        "code": "INVALID_SETUP",
        "message": response.json()["message"],
        "path": "$.speed",
    }


async def test_legal_moves_match_the_engine(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    response = await client.post("/v1/legal-moves", json={"state": mid_json})
    assert response.status_code == 200
    assert response.json() == {"moves": [m.to_json() for m in manhattan.legal_moves(mid_state)]}


async def test_a_state_goes_in_as_json_id_or_token_with_the_same_answer(
    client: httpx.AsyncClient, mid_json: dict[str, Any]
) -> None:
    stored = (await client.post("/v1/states", json={"state": mid_json})).json()
    answers = []
    for ref in (mid_json, {"id": stored["stateId"]}, {"token": stored["token"]}):
        response = await client.post("/v1/legal-moves", json={"state": ref})
        assert response.status_code == 200, response.text
        answers.append(response.json())
    # the second id request is served from the result cache
    answers.append(
        (await client.post("/v1/legal-moves", json={"state": {"id": stored["stateId"]}})).json()
    )
    assert answers[0] == answers[1] == answers[2] == answers[3]


async def test_get_state_by_id(client: httpx.AsyncClient, mid_json: dict[str, Any]) -> None:
    stored = (await client.post("/v1/states", json={"state": mid_json})).json()
    response = await client.get(f"/v1/states/{stored['stateId']}")
    assert response.status_code == 200
    assert response.json()["state"] == mid_json
    missing = await client.get(f"/v1/states/{'0' * 32}")
    assert (missing.status_code, missing.json()["code"]) == (404, "STATE_NOT_FOUND")


async def test_validate_answers_legal_with_the_normalized_move_or_why_not(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    move = manhattan.legal_moves(mid_state)[0]
    plain = {k: v for k, v in move.to_json().items() if k not in ("player", "block", "notation")}
    ok = (await client.post("/v1/validate", json={"state": mid_json, "move": plain})).json()
    assert ok == {"legal": True, "move": move.to_json()}
    by_notation = await client.post("/v1/validate", json={"state": mid_json, "move": move.notation})
    assert by_notation.json()["legal"] is True
    card = next(c for c in range(9) if c not in mid_state.hands[mid_state.to_move or 0])
    bad = (
        await client.post("/v1/validate", json={"state": mid_json, "move": f"b{card}n0f1"})
    ).json()
    assert bad["legal"] is False and bad["code"] == "ILLEGAL_MOVE" and bad["message"]


async def test_apply_returns_the_transition_of_the_engine(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    move = manhattan.legal_moves(mid_state)[0]
    response = await client.post("/v1/apply", json={"state": mid_json, "move": move.to_json()})
    assert response.status_code == 200
    body = response.json()
    transition = manhattan.play(mid_state, move)
    assert body["state"] == transition.state.to_json()
    assert body["stateId"] == manhattan.state_id(transition.state)
    assert body["events"] == [e.to_json() for e in transition.events]
    assert body["moves"] == [transition.move.to_json()]
    # the new state is cached: it can be named by its id right away
    follow = await client.post("/v1/legal-moves", json={"state": {"id": body["stateId"]}})
    assert follow.json()["moves"] == [m.to_json() for m in manhattan.legal_moves(transition.state)]


async def test_apply_several_moves_and_name_the_failing_index(
    client: httpx.AsyncClient, select_state: manhattan.State
) -> None:
    state, moves = select_state, []
    for _ in range(3):
        move = manhattan.legal_moves(state)[-1]
        moves.append(move.notation)
        state = manhattan.apply_move(state, move)
    ok = await client.post("/v1/apply", json={"state": select_state.to_json(), "moves": moves})
    assert ok.json()["state"] == state.to_json()
    bad = await client.post(
        "/v1/apply", json={"state": select_state.to_json(), "moves": [*moves, moves[0]]}
    )
    assert bad.status_code == 422
    assert bad.json()["index"] == 3 and bad.json()["code"] == "ILLEGAL_MOVE"


@pytest.mark.parametrize(
    ("move", "status", "code"),
    [
        ({"type": "jump"}, 400, "INVALID_MOVE"),
        ({"type": "build", "card": 99, "neighborhood": 0, "floors": 1}, 400, "INVALID_MOVE"),
        ("zz9", 400, "INVALID_MOVE"),
        ("s0:1,1,1,1", 422, "ILLEGAL_MOVE"),
    ],
)
async def test_apply_rejections_carry_code_and_status(
    client: httpx.AsyncClient, mid_json: dict[str, Any], move: object, status: int, code: str
) -> None:
    response = await client.post("/v1/apply", json={"state": mid_json, "move": move})
    assert (response.status_code, response.json()["code"]) == (status, code)


async def test_a_finished_game_is_game_over(client: httpx.AsyncClient) -> None:
    game = (await client.post("/v1/replay", json={"setup": {"players": 2, "seed": "end"}})).json()
    state = manhattan.State.from_json(game["state"])
    import random

    rng = random.Random(0)
    while not state.is_over:
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
    response = await client.post("/v1/apply", json={"state": state.to_json(), "move": "b0n0f1"})
    assert (response.status_code, response.json()["code"]) == (409, "GAME_OVER")
    assert (await client.post("/v1/legal-moves", json={"state": state.to_json()})).json() == {
        "moves": []
    }


async def test_score_reports_totals_history_standings_and_this_round(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    body = (await client.post("/v1/score", json={"state": mid_json})).json()
    assert body["scores"] == list(mid_state.scores)
    assert body["players"] == manhattan.player_scores(mid_state)
    assert body["history"] == [r.to_json() for r in mid_state.history]
    assert body["ifRoundEndedNow"] == manhattan.score_round(mid_state).to_json()
    assert body["ranking"] == [p.to_json() for p in manhattan.ranking(mid_state)]


async def test_view_is_addressed_to_the_player_with_a_token_issued_to_them(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    body = (await client.post("/v1/view", json={"state": mid_json, "player": 1})).json()
    assert body["view"] == manhattan.view(mid_state, 1).to_json()
    assert "state" not in body and "stateId" not in body
    # the token answers as player 1 only
    other = await client.post("/v1/view", json={"state": {"token": body["token"]}, "player": 2})
    assert (other.status_code, other.json()["code"]) == (403, "WRONG_PLAYER")
    bad = await client.post("/v1/view", json={"state": mid_json, "player": 9})
    assert (bad.status_code, bad.json()["code"]) == (400, "INVALID_PLAYER")


async def test_a_players_token_hides_the_state_and_other_players_events(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    mover = mid_state.to_move
    assert mover is not None
    token = (await client.post("/v1/view", json={"state": mid_json, "player": mover})).json()[
        "token"
    ]
    move = manhattan.legal_moves(mid_state)[0]
    body = (
        await client.post("/v1/apply", json={"state": {"token": token}, "move": move.notation})
    ).json()
    assert "state" not in body and body["view"]["player"] == mover
    assert all(e.get("player", mover) == mover for e in body["events"] if e["type"] == "cardDrawn")
    # it is no longer this player's turn: their token lists no moves and applies none
    after = {"token": body["token"]}
    assert (await client.post("/v1/legal-moves", json={"state": after})).json() == {"moves": []}


@pytest.mark.parametrize("bot", ["random", "greedy"])
async def test_suggest_is_a_legal_move_and_reproducible_at_a_seed(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any], bot: str
) -> None:
    request = {"state": mid_json, "seed": 5, "bot": bot}
    first = (await client.post("/v1/suggest", json=request)).json()
    again = (await client.post("/v1/suggest", json=request)).json()
    first["stats"].pop("timeMs", None)
    again["stats"].pop("timeMs", None)
    assert first == again
    assert first["bot"] == bot
    assert first["move"] in [m.to_json() for m in manhattan.legal_moves(mid_state)]


async def test_suggest_rejects_unknown_bots_big_budgets_and_the_wrong_player(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    unknown = await client.post("/v1/suggest", json={"state": mid_json, "bot": "deep-blue"})
    assert (unknown.status_code, unknown.json()["code"]) == (400, "INVALID_BOT")
    greedy = {"state": mid_json, "bot": "ismcts", "iterations": 10**9}
    too_big = await client.post("/v1/suggest", json=greedy)
    assert (too_big.status_code, too_big.json()["code"]) == (400, "INVALID_BOT")
    other = ((mid_state.to_move or 0) + 1) % mid_state.rules.players
    wrong = await client.post("/v1/suggest", json={"state": mid_json, "player": other})
    assert (wrong.status_code, wrong.json()["code"]) == (409, "NOT_YOUR_TURN")


async def test_replay_returns_the_end_or_the_first_illegal_move(client: httpx.AsyncClient) -> None:
    state = manhattan.new_game(players=3, seed="rp")
    moves = []
    for _ in range(5):
        move = manhattan.legal_moves(state)[0]
        moves.append(move.to_json())
        state = manhattan.apply_move(state, move)
    ok = (
        await client.post(
            "/v1/replay", json={"setup": {"players": 3, "seed": "rp"}, "moves": moves}
        )
    ).json()
    assert ok["state"] == state.to_json() and ok["movesApplied"] == 5
    assert ok["ranking"] == [p.to_json() for p in manhattan.ranking(state)]
    bad = await client.post(
        "/v1/replay", json={"setup": {"players": 3, "seed": "rp"}, "moves": [*moves[:2], moves[0]]}
    )
    assert (bad.status_code, bad.json()["index"]) == (422, 2)


async def test_msgpack_both_ways(client: httpx.AsyncClient, mid_state: manhattan.State) -> None:
    body = msgpack.packb({"state": mid_state.to_json()})
    response = await client.post(
        "/v1/legal-moves",
        content=body,
        headers={"content-type": "application/msgpack", "accept": "application/msgpack"},
    )
    assert response.headers["content-type"] == "application/msgpack"
    decoded = msgpack.unpackb(response.content)
    assert decoded == {"moves": [m.to_json() for m in manhattan.legal_moves(mid_state)]}
    error = await client.post(
        "/v1/legal-moves",
        content=b"\xc1",
        headers={"content-type": "application/msgpack", "accept": "application/msgpack"},
    )
    assert error.status_code == 400
    assert msgpack.unpackb(error.content)["code"] == "INVALID_REQUEST"


async def test_the_answer_type_follows_accept_then_the_request(
    client: httpx.AsyncClient, select_state: manhattan.State
) -> None:
    packed = msgpack.packb({"state": select_state.to_json()})
    as_msgpack = {"content-type": "application/msgpack"}
    cases = [
        ({}, "application/msgpack"),  # no Accept: the request's own type
        ({"accept": "*/*"}, "application/msgpack"),
        ({"accept": "application/json"}, "application/json"),
        ({"accept": "application/msgpack;q=0, application/json"}, "application/json"),
        ({"accept": "text/html, application/msgpack"}, "application/msgpack"),
    ]
    for path in ("/v1/legal-moves", "/v1/score"):
        for headers, answered in cases:
            response = await client.post(path, content=packed, headers={**as_msgpack, **headers})
            assert response.status_code == 200 and response.headers["content-type"] == answered
    refused = await client.post(
        "/v1/score", json={"state": select_state.to_json()}, headers={"accept": "text/html"}
    )
    assert refused.status_code == 406 and refused.json()["code"] == "NOT_ACCEPTABLE"
    rules = await client.get("/v1/rules", headers={"accept": "image/png"})
    assert rules.status_code == 406


async def test_another_players_turn_is_not_your_turn_however_the_player_is_named(
    client: httpx.AsyncClient, select_state: manhattan.State
) -> None:
    state = select_state.to_json()
    seat = await client.post("/v1/view", json={"state": state, "player": 2})
    move = manhattan.legal_moves(select_state)[0].notation  # player 0's
    by_token = await client.post(
        "/v1/apply", json={"state": {"token": seat.json()["token"]}, "move": move}
    )
    by_header = await client.post(
        "/v1/apply", json={"state": state, "move": move}, headers={"Manhattan-Player": "2"}
    )
    suggest = await client.post("/v1/suggest", json={"state": state, "player": 2})
    for answer in (by_token, by_header, suggest):
        assert (answer.status_code, answer.json()["code"]) == (409, "NOT_YOUR_TURN")
        assert "token" not in answer.json()["message"]


async def test_a_malformed_id_is_400_and_an_unknown_one_404(client: httpx.AsyncClient) -> None:
    for path, body in (
        ("/v1/legal-moves", {"state": {"id": "nothex"}}),
        ("/v1/states/nothex", None),
    ):
        response = await (client.get(path) if body is None else client.post(path, json=body))
        assert (response.status_code, response.json()["code"]) == (400, "INVALID_REQUEST")
    unknown = await client.get("/v1/states/" + "0" * 32)
    assert (unknown.status_code, unknown.json()["code"]) == (404, "STATE_NOT_FOUND")


async def test_setup_faults_carry_their_path(client: httpx.AsyncClient) -> None:
    for setup, path in (
        ({"players": 5}, "$.players"),  # the wire bound
        ({"players": 2, "firstPlayer": 3}, "$.firstPlayer"),  # the engine's rule
        ({"variants": {"monster": "kong"}}, "$.variants.monster"),
        ({"colour": 1}, "$.colour"),
    ):
        answer = await client.post("/v1/games", json=setup)
        assert answer.status_code == 400 and answer.json()["code"] == "INVALID_SETUP", setup
        assert answer.json()["path"] == path, answer.json()
    replay = await client.post("/v1/replay", json={"setup": {"players": 2, "firstPlayer": 3}})
    assert replay.json()["path"] == "$.setup.firstPlayer"


async def test_suggest_takes_the_bot_choice_and_the_deprecated_form_alike(
    client: httpx.AsyncClient, mid_json: dict[str, Any]
) -> None:
    new = {"state": mid_json, "bot": {"level": "ismcts", "seed": 3, "iterations": 40}}
    old = {"state": mid_json, "bot": "ismcts", "seed": 3, "iterations": 40}
    answers = [(await client.post("/v1/suggest", json=body)).json() for body in (new, old)]
    assert answers[0]["move"] == answers[1]["move"] and answers[0]["bot"] == "ismcts"
    mixed = {"state": mid_json, "bot": {"level": "greedy"}, "seed": 1}
    refused = await client.post("/v1/suggest", json=mixed)
    assert refused.status_code == 400 and refused.json()["path"] == "$.bot"


@pytest.mark.parametrize(
    ("content", "content_type", "code"),
    [
        (b"{not json", "application/json", "INVALID_REQUEST"),
        (b"[" * 50_000, "application/json", "INVALID_REQUEST"),
        (b'{"state": NaN}', "application/json", "INVALID_REQUEST"),
        (b"[]", "application/json", "INVALID_REQUEST"),
        (b'{"state": {}, "extra": 1}', "application/json", "INVALID_REQUEST"),
        (b'{"state": {"format": "x"}}', "application/json", "INVALID_STATE"),
        (b'{"state": {"id": 5}}', "application/json", "INVALID_REQUEST"),
        (b'{"state": {"token": "x.y"}}', "application/json", "BAD_TOKEN"),
        (b"state=1", "application/x-www-form-urlencoded", "UNSUPPORTED_MEDIA_TYPE"),
    ],
)
async def test_bad_input_gets_a_stable_code_never_a_500(
    client: httpx.AsyncClient, content: bytes, content_type: str, code: str
) -> None:
    response = await client.post(
        "/v1/legal-moves", content=content, headers={"content-type": content_type}
    )
    assert 400 <= response.status_code < 500
    assert response.json()["code"] == code


async def test_an_invalid_state_names_the_json_path(
    client: httpx.AsyncClient, mid_json: dict[str, Any]
) -> None:
    broken = {**mid_json, "round": 99}
    body = (await client.post("/v1/score", json={"state": broken})).json()
    assert body["code"] == "INVALID_STATE" and body["path"].startswith("$")


async def test_analysis_and_preview_are_the_engines(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    analysis = (await client.post("/v1/analysis", json={"state": mid_json})).json()
    assert analysis["analysis"] == manhattan.analyze(mid_state).to_json()
    move = manhattan.legal_moves(mid_state)[0]
    preview = await client.post("/v1/preview", json={"state": mid_json, "move": move.notation})
    assert preview.json()["preview"] == manhattan.preview(mid_state, move).to_json()
    query = "query($s: JSON!) { analysis(state: {json: $s}) { ... on Analysis { json } } }"
    body = (
        await client.post("/graphql", json={"query": query, "variables": {"s": mid_json}})
    ).json()
    assert body["data"]["analysis"]["json"] == analysis["analysis"]


@pytest.mark.parametrize(
    "body",
    [
        b'{"players": 2, "seed": "\\ud800"}',  # a lone surrogate: not Unicode text
        b'{"players": 2, "seed": "ok", "\\udfff": 1}',
        b'{"players": NaN}',
    ],
)
async def test_bodies_that_are_not_json_text_are_invalid_requests(
    client: httpx.AsyncClient, body: bytes
) -> None:
    response = await client.post(
        "/v1/games", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_REQUEST"
    graphql = await client.post(
        "/graphql",
        content=b'{"query": "{ rules }", "variables": {"x": ' + body + b"}}",
        headers={"content-type": "application/json"},
    )
    assert graphql.status_code == 400


def test_json_bodies_keep_integers_beyond_64_bits() -> None:
    from manhattan.api.encoding import load_json

    big = 2**64 + 1
    assert load_json(f'{{"a": {big}, "b": -{big}}}'.encode()) == {"a": big, "b": -big}
    assert load_json(b'{"a": [1, 2.5, "x"]}') == {"a": [1, 2.5, "x"]}


def test_the_legal_moves_body_encodes_each_move_as_its_json() -> None:
    from manhattan.api.encoding import moves_json

    for seed in ("a", "b"):
        state = manhattan.new_game(players=3, seed=seed)
        while state.phase != "over":
            moves = manhattan.legal_moves(state)
            decoded = json.loads(moves_json(moves))
            assert decoded == {"moves": [m.to_json() for m in moves]}
            state = manhattan.apply_move(state, moves[len(moves) // 2])


def _state_bodies(mid_json: dict[str, Any]) -> list[bytes]:
    """Bodies of a ``StateRequest`` with an inline state, fitting and not, in the corners where
    decoding bytes straight into the state format could differ from the general reading."""
    state = json.dumps(mid_json)
    inner = state[1:-1]
    return [
        json.dumps({"state": mid_json}).encode(),
        json.dumps({"state": {**mid_json, "seed": "h\u00e9llo 12345678901234567890"}}).encode(),
        ('{"state": {"round": 99, ' + inner + "}}").encode(),  # repeated key: the last counts
        ('{"state": {' + inner + ', "round": 99}}').encode(),
        ('{"state": {"id": "' + "0" * 32 + '"}, "state": ' + state + "}").encode(),
        ('{"state": ' + state + ', "state": {"id": "nope"}}').encode(),
        json.dumps({"state": {**mid_json, "round": 2.0}}).encode(),
        json.dumps({"state": {**mid_json, "shuffles": True}}).encode(),
        json.dumps({"state": {**mid_json, "seed": "\ud800"}}).encode("utf-8", "surrogatepass"),
        json.dumps({"state": {**mid_json, "seed": "\ud800"}}).encode(),  # as an escape
        json.dumps({"state": {**mid_json, "round": 99}}).encode(),
        json.dumps({"state": {**mid_json, "extra": 1}}).encode(),
        json.dumps({"state": mid_json, "extra": 1}).encode(),
        json.dumps({"state": None}).encode(),
        json.dumps({"state": mid_json}).encode("utf-16"),
        b"\xef\xbb\xbf" + json.dumps({"state": mid_json}).encode(),
        b"",
    ]


@pytest.mark.parametrize("path", ["/v1/legal-moves", "/v1/score"])
async def test_an_inline_state_read_straight_from_the_bytes_answers_as_the_general_reading(
    client: httpx.AsyncClient, mid_json: dict[str, Any], path: str
) -> None:
    """``application/json`` bodies are decoded straight into the state format when they fit;
    a ``+json`` type takes the general reading: both answer every body alike."""
    for content in _state_bodies(mid_json):
        fast, general = [
            await client.post(path, content=content, headers={"content-type": kind})
            for kind in ("application/json", "application/problem+json")
        ]
        assert fast.status_code == general.status_code, content[:80]
        assert fast.json() == general.json(), content[:80]
        assert fast.status_code < 500
