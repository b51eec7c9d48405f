"""Operations added for frontends: a player's session step (``advance``: bots
play the other seats from their own views), board pictures, threats, previews of every legal
move, and the web page at /play."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

import manhattan
from manhattan.bots import suggest
from manhattan.render import render_svg
from tests.conftest import MakeApp
from tests.service_client import connect, gql

pytestmark = pytest.mark.anyio


async def test_advance_plays_bots_until_the_player_is_to_move(client: httpx.AsyncClient) -> None:
    """The same as asking a bot for each other seat from that seat's view, in turn."""
    start = manhattan.new_game(players=3, seed="advance", first_player=1)
    seat = (await client.post("/v1/view", json={"state": start.to_json(), "player": 0})).json()
    bot = {"level": "greedy", "seed": 5}
    step = await client.post("/v1/advance", json={"state": {"token": seat["token"]}, "bot": bot})
    body = step.json()
    assert step.status_code == 200, body
    assert "state" not in body and "stateId" not in body
    assert body["view"]["player"] == 0 and body["view"]["toMove"] == 0
    expected, state = [], start
    while state.to_move != 0:
        mover = state.to_move
        assert mover is not None
        found = suggest(manhattan.view(state, mover), level="greedy", seed=5 + len(expected))
        expected.append(found.move.notation)
        transition = manhattan.play(state, found.move)
        state = transition.state
    assert [m["notation"] for m in body["moves"]] == expected
    assert body["view"] == manhattan.view(state, 0).to_json()
    assert all(e["type"] != "cardDrawn" or e["player"] == 0 for e in body["events"])
    # Then the player's own move and the bots' replies in one call.
    mine = manhattan.legal_moves(state)[0].notation
    again = await client.post(
        "/v1/advance", json={"state": {"token": body["token"]}, "move": mine, "bot": bot}
    )
    moves = again.json()["moves"]
    assert moves[0]["notation"] == mine and again.json()["view"]["toMove"] in (0, None)


async def test_advance_refuses_what_a_session_may_not_do(
    client: httpx.AsyncClient, mid_json: dict[str, Any]
) -> None:
    state = manhattan.State.from_json(mid_json)
    mover = state.to_move
    assert mover is not None
    other = (mover + 1) % 4
    seat = (await client.post("/v1/view", json={"state": mid_json, "player": other})).json()
    ref = {"token": seat["token"]}
    move = manhattan.legal_moves(state)[0].notation
    cases = [
        ({"state": ref, "move": move}, "NOT_YOUR_TURN"),
        ({"state": ref, "player": mover}, "WRONG_PLAYER"),
        ({"state": ref, "bot": {"level": "nope"}}, "INVALID_BOT"),
        ({"state": ref, "bot": "greedy"}, "INVALID_BOT"),  # a BotChoice object here
        ({"state": mid_json}, "INVALID_PLAYER"),  # a full state needs a player
    ]
    for body, code in cases:
        response = await client.post("/v1/advance", json=body)
        assert response.status_code < 500 and response.json()["code"] == code, (body, response)


async def test_advance_in_graphql(client: httpx.AsyncClient) -> None:
    start = manhattan.new_game(players=2, seed="gql-advance", first_player=1)
    query = """query($s: StateRef!) {
      advance(state: $s, player: 0, bot: {level: random, seed: 2}) {
        ... on Transition {
          state { round } stateId token view { toMove player } moves { notation } }
        ... on MoveRejected { code message } } }"""
    body = await gql(client, query, s={"json": start.to_json()})
    result = body["data"]["advance"]
    assert result["state"] is None and result["stateId"] is None
    assert result["view"] == {"toMove": 0, "player": 0} and result["moves"]


async def test_render_svg_by_id_token_and_body(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    stored = (await client.post("/v1/states", json={"state": mid_json})).json()
    full, seen = render_svg(mid_state), render_svg(manhattan.view(mid_state, 2))
    by_id = await client.get("/v1/render.svg", params={"id": stored["stateId"]})
    assert by_id.headers["content-type"].startswith("image/svg+xml") and by_id.text == full
    as_two = await client.get("/v1/render.svg", params={"id": stored["stateId"], "player": "2"})
    assert as_two.text == seen
    posted = await client.post("/v1/render.svg", json={"state": mid_json, "player": 2})
    assert posted.text == seen
    token = (await client.post("/v1/view", json={"state": mid_json, "player": 2})).json()["token"]
    assert (await client.get("/v1/render.svg", params={"token": token})).text == seen
    for params, code in (({}, "INVALID_REQUEST"), ({"id": "0" * 32}, "STATE_NOT_FOUND")):
        response = await client.get("/v1/render.svg", params=params)
        assert response.json()["code"] == code
    body = await gql(
        client,
        "query($t: String!) { boardSvg(state: {token: $t}) { ... on BoardSvg { svg } } }",
        t=token,
    )
    assert body["data"]["boardSvg"] == {"svg": seen}


async def test_threats_and_every_preview(
    client: httpx.AsyncClient, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    threats = (await client.post("/v1/threats", json={"state": mid_json, "player": 1})).json()
    assert threats["threats"] == manhattan.threats(mid_state, 1).to_json()
    previews = (await client.post("/v1/preview", json={"state": mid_json})).json()["previews"]
    assert previews == [p.to_json() for p in manhattan.preview_all(mid_state)]
    body = await gql(
        client,
        "query($s: JSON!) { previewAll(state: {json: $s}) "
        "{ ... on Previews { previews { json move { notation } } } } "
        "threats(state: {json: $s}, player: 1) { ... on Threats { json viewer } } }",
        s=mid_json,
    )
    assert [p["json"] for p in body["data"]["previewAll"]["previews"]] == previews
    assert [p["move"]["notation"] for p in body["data"]["previewAll"]["previews"]] == [
        m.notation for m in manhattan.legal_moves(mid_state)
    ]
    assert body["data"]["threats"] == {"json": threats["threats"], "viewer": 1}


async def test_play_serves_the_web_page_but_not_its_test_driver(
    make_app: MakeApp, tmp_path: Path
) -> None:
    async with connect(make_app()) as client:
        page = await client.get("/play/")
        assert page.status_code == 200 and "<html" in page.text.lower()
        assert (await client.get("/play/app.js")).status_code == 200
        assert (await client.get("/play/../e2e/drive.mjs")).status_code == 404
        assert (await client.get("/e2e/drive.mjs")).status_code == 404
    (tmp_path / "index.html").write_text("<html>mine</html>")
    async with connect(make_app(web_dir=str(tmp_path))) as client:
        assert (await client.get("/play/")).text == "<html>mine</html>"
    for missing in ("off", str(tmp_path / "nowhere")):
        async with connect(make_app(web_dir=missing)) as client:
            assert (await client.get("/play/")).status_code == 404
