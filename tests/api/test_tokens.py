"""Sealed tokens and player sessions through the service (DESIGN §5, §7): a token that
was altered, truncated, sealed with a foreign key, oversized, or belongs to another game than the
caller expects is BAD_TOKEN (400) on every operation of REST and GraphQL, never a 5xx; a token
issued to a player answers only as that player; strict mode refuses plain JSON everywhere."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import manhattan
from manhattan.games import game_id
from manhattan.sealing import Sealer, SealingKey
from manhattan.server.app import create_app
from manhattan.settings import Settings
from tests.conftest import MakeApp
from tests.service_client import connect, gql

pytestmark = pytest.mark.anyio
KEY = SealingKey("k1", bytes(range(32)))
FOREIGN = SealingKey("k1", bytes(range(1, 33)))  # same key id, another service's key
STATE_OPERATIONS: list[tuple[str, dict[str, Any]]] = [
    ("/v1/legal-moves", {}),
    ("/v1/validate", {"move": "b0n0f1"}),
    ("/v1/apply", {"move": "b0n0f1"}),
    ("/v1/score", {}),
    ("/v1/view", {"player": 0}),
    ("/v1/suggest", {}),
    ("/v1/analysis", {}),
    ("/v1/preview", {}),
    ("/v1/threats", {"player": 0}),
    ("/v1/render.svg", {}),
    ("/v1/advance", {"player": 0}),
    ("/v1/states", {}),
]
GAME = manhattan.new_game(players=3, seed="tokens")
OTHER_GAME = manhattan.new_game(players=3, seed="another")


def app(**options: Any) -> Any:
    return create_app(Settings(access_log=False, **options), sealer=Sealer(KEY))


async def token_of(client: httpx.AsyncClient, state: manhattan.State, player: int | None) -> str:
    body: dict[str, Any] = {"state": state.to_json()}
    if player is None:
        response = await client.post("/v1/states", json=body)
    else:
        response = await client.post("/v1/view", json={**body, "player": player})
    assert response.status_code in (200, 201), response.text
    token: str = response.json()["token"]
    return token


def bad_tokens(good: str, foreign: str, other_game: str) -> dict[str, str]:
    kid, game, body = good.split(".")
    flipped = body[:20] + ("A" if body[20] != "A" else "B") + body[21:]
    return {
        "tampered": f"{kid}.{game}.{flipped}",
        "truncated": good[:-5],
        "foreign-key": foreign,
        "oversized": good + "A" * 20_000,
        "relabelled-game": f"{kid}.{other_game.split('.')[1]}.{body}",
        "spliced": f"{kid}.{game}.{other_game.split('.')[2]}",
        "junk-inside": f"{kid}.{game}.{body[:10]}!{body[10:]}",
        "no-game": f"{kid}.{body}",
    }


async def test_bad_tokens_are_bad_token_on_every_operation() -> None:
    async with connect(app()) as client:
        good = await token_of(client, GAME, None)
        other = await token_of(client, OTHER_GAME, None)
        async with connect(create_app(Settings(access_log=False), sealer=Sealer(FOREIGN))) as c2:
            foreign = await token_of(c2, GAME, None)
        for name, token in bad_tokens(good, foreign, other).items():
            for path, extra in STATE_OPERATIONS:
                response = await client.post(path, json={"state": {"token": token}, **extra})
                assert (response.status_code, response.json()["code"]) == (400, "BAD_TOKEN"), (
                    name,
                    path,
                )
            response = await client.get("/v1/render.svg", params={"token": token})
            assert response.json()["code"] == "BAD_TOKEN", name
            body = await gql(
                client,
                "query($t: String!) { legalMoves(state: {token: $t}) { notation } }",
                t=token,
            )
            assert body["errors"][0]["extensions"]["code"] == "BAD_TOKEN", name


APP = app()


async def _mint() -> str:
    async with connect(APP) as client:
        return await token_of(client, GAME, 1)


TOKEN = asyncio.run(_mint())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_change_to_a_token_is_refused_and_never_a_server_error(data: st.DataObject) -> None:
    async def check() -> None:
        async with connect(APP) as client:
            kind = data.draw(st.sampled_from(["replace", "delete", "insert", "truncate"]))
            index = data.draw(st.integers(0, len(TOKEN) - 1))
            char = data.draw(st.characters(codec="ascii", exclude_characters="\x00"))
            token = {
                "replace": TOKEN[:index] + char + TOKEN[index + 1 :],
                "delete": TOKEN[:index] + TOKEN[index + 1 :],
                "insert": TOKEN[:index] + char + TOKEN[index:],
                "truncate": TOKEN[:index],
            }[kind]
            response = await client.post("/v1/score", json={"state": {"token": token}})
            if token == TOKEN:
                assert response.status_code == 200
            else:
                assert (response.status_code, response.json()["code"]) == (400, "BAD_TOKEN")

    asyncio.run(check())


async def test_a_token_of_another_game_than_expected_is_bad_token() -> None:
    """The game id is bound to the token (AEAD associated data): a caller that says which game
    it expects (Manhattan-Game header, or {"token", "game"}) gets BAD_TOKEN for any other."""
    async with connect(app()) as client:
        token = await token_of(client, GAME, 0)
        mine, theirs = game_id(GAME), game_id(OTHER_GAME)
        assert token.split(".")[1] == mine
        ok = await client.post("/v1/legal-moves", json={"state": {"token": token, "game": mine}})
        assert ok.status_code == 200
        for request in (
            {"json": {"state": {"token": token, "game": theirs}}},
            {"json": {"state": {"token": token}}, "headers": {"Manhattan-Game": theirs}},
        ):
            response = await client.post("/v1/legal-moves", **request)  # type: ignore[arg-type]
            assert (response.status_code, response.json()["code"]) == (400, "BAD_TOKEN")
        query = (
            "query($t: String!) { score(state: {token: $t}) "
            "{ __typename ... on MoveRejected { code } } }"
        )
        body = await gql(client, query, t=token)
        assert body["data"]["score"] == {"__typename": "Score"}
        response = await client.post(
            "/graphql",
            json={"query": query, "variables": {"t": token}},
            headers={"Manhattan-Game": theirs},
        )
        assert response.json()["data"]["score"]["code"] == "BAD_TOKEN"
        # A state sent as JSON or by id is checked against the expected game too.
        wrong = await client.post(
            "/v1/score", json={"state": GAME.to_json()}, headers={"Manhattan-Game": theirs}
        )
        assert (wrong.status_code, wrong.json()["code"]) == (403, "WRONG_GAME")


async def test_every_state_of_a_game_shares_its_game_id() -> None:
    state = GAME
    for _ in range(12):
        state = manhattan.apply_move(state, manhattan.legal_moves(state)[0])
        assert game_id(state) == game_id(GAME)
    async with connect(app()) as client:
        response = await client.post("/v1/games", json={"players": 3, "seed": "tokens"})
        assert response.json()["gameId"] == game_id(GAME)


async def test_a_players_token_answers_only_as_that_player() -> None:
    async with connect(app()) as client:
        token = await token_of(client, GAME, 1)
        ref = {"token": token}
        for player in (0, 2):
            response = await client.post("/v1/view", json={"state": ref, "player": player})
            assert (response.status_code, response.json()["code"]) == (403, "WRONG_PLAYER")
            response = await client.post("/v1/threats", json={"state": ref, "player": player})
            assert response.json()["code"] == "WRONG_PLAYER"
        response = await client.get("/v1/render.svg", params={"token": token, "player": "0"})
        assert response.json()["code"] == "WRONG_PLAYER"
        for path, extra in (("/v1/states", {}), ("/v1/view", {"player": 1})):
            body = (await client.post(path, json={"state": ref, **extra})).json()
            assert "state" not in body and "stateId" not in body and body["view"]["player"] == 1
        # A platform's Manhattan-Player header must agree with the token's player.
        response = await client.post(
            "/v1/score", json={"state": ref}, headers={"Manhattan-Player": "2"}
        )
        assert response.json()["code"] == "WRONG_PLAYER"


async def test_a_platform_header_addresses_any_result_to_the_player() -> None:
    async with connect(app()) as client:
        headers = {"Manhattan-Player": "2"}
        game = await client.post("/v1/games", json={"players": 3, "seed": "x"}, headers=headers)
        body = game.json()
        assert "state" not in body and "stateId" not in body and body["view"]["player"] == 2
        opened = await client.post(
            "/v1/view", json={"state": {"token": body["token"]}, "player": 0}
        )
        assert opened.json()["code"] == "WRONG_PLAYER"  # the token was issued to player 2
        for bad in ("4", "x", "-1", "01x"):
            response = await client.post(
                "/v1/score", json={"state": GAME.to_json()}, headers={"Manhattan-Player": bad}
            )
            assert response.json()["code"] == "INVALID_PLAYER", bad
        response = await client.post(
            "/v1/score", json={"state": GAME.to_json()}, headers={"Manhattan-Game": "nope"}
        )
        assert response.json()["code"] == "INVALID_REQUEST"


@pytest.mark.parametrize(("path", "extra"), STATE_OPERATIONS)
async def test_strict_mode_refuses_plain_json_on_every_operation(
    path: str, extra: dict[str, Any]
) -> None:
    async with connect(app(strict_states=True)) as client:
        response = await client.post(path, json={"state": GAME.to_json(), **extra})
        assert (response.status_code, response.json()["code"]) == (403, "STATE_JSON_REFUSED")


async def test_strict_mode_never_shows_a_full_state() -> None:
    async with connect(app(strict_states=True)) as client:
        refused = await client.post("/v1/games", json={"players": 2})
        assert (refused.status_code, refused.json()["code"]) == (403, "PLAYER_REQUIRED")
        seat = {"Manhattan-Player": "1"}
        game = (await client.post("/v1/games", json={"players": 2}, headers=seat)).json()
        assert "state" not in game and "stateId" not in game
        assert {"token", "gameId", "view"} <= set(game)


async def test_the_ephemeral_key_is_logged_and_in_readyz(
    make_app: MakeApp, caplog: pytest.LogCaptureFixture
) -> None:
    service = make_app()
    with caplog.at_level(logging.WARNING, logger="manhattan.api"):
        async with service.router.lifespan_context(service):
            pass
    kid = service.state.operations.sealer.current.kid
    assert any("ephemeral" in r.getMessage() and kid in r.getMessage() for r in caplog.records)
    async with connect(service) as client:
        tokens = (await client.get("/readyz")).json()["tokens"]
    assert tokens["ephemeral"] is True and tokens["keyId"] == kid
    assert "replicas" in tokens["warning"]


async def test_token_length_does_not_tell_the_seed_length() -> None:
    async with connect(app()) as client:
        lengths = set()
        for seed in ("a", "0123456789abcdef", "x" * 128, "é" * 128):
            state = manhattan.new_game(players=3, seed=seed)
            lengths.add(len(await token_of(client, state, 0)))
        assert len(lengths) == 1


async def test_keys_rotate_through_settings(make_app: MakeApp) -> None:
    """MANHATTAN_TOKEN_KEY seals, MANHATTAN_TOKEN_OLD_KEYS still open: a token of the old key
    works after rotation (and comes back sealed with the new key), and is BAD_TOKEN once the old
    key is retired; /readyz names the keys, never their bytes."""
    old, new = SealingKey.generate("old"), SealingKey.generate("new")
    async with connect(make_app(token_key=old.to_text())) as client:
        token = await token_of(client, GAME, 1)
    rotated = make_app(token_key=new.to_text(), token_old_keys=(old.to_text(),))
    async with connect(rotated) as client:
        ready = (await client.get("/readyz")).text
        tokens = json.loads(ready)["tokens"]
        assert (tokens["keyId"], tokens["acceptedKeyIds"]) == ("new", ["new", "old"])
        assert tokens["ephemeral"] is False
        assert all(k.to_text().split(":")[1] not in ready for k in (old, new))
        response = await client.post("/v1/states", json={"state": {"token": token}})
        assert response.status_code == 201, response.text
        body = response.json()
        assert body["token"].startswith("new.") and body["view"]["player"] == 1
    async with connect(make_app(token_key=new.to_text())) as client:
        response = await client.post("/v1/states", json={"state": {"token": token}})
        assert (response.status_code, response.json()["code"]) == (400, "BAD_TOKEN")


@pytest.mark.parametrize(
    "query",
    [
        "query($s: JSON!) { legalMoves(state: {json: $s}) { notation } }",
        "query($s: JSON!) { view(state: {json: $s}, player: 0) "
        "{ ... on MoveRejected { code } ... on SealedState { token } } }",
        "mutation($s: JSON!) { storeState(state: {json: $s}) "
        "{ ... on MoveRejected { code } ... on SealedState { token } } }",
        "query($s: JSON!) { replay(game: {state: {json: $s}, moves: []}) "
        "{ ... on MoveRejected { code } ... on Replay { token } } }",
    ],
)
async def test_strict_mode_refuses_plain_json_in_graphql(query: str) -> None:
    async with connect(app(strict_states=True)) as client:
        body = await gql(client, query, s=GAME.to_json())
        if body.get("data"):  # a union: the rejection is the answer
            (answer,) = body["data"].values()
            assert answer == {"code": "STATE_JSON_REFUSED"}
        else:
            assert body["errors"][0]["extensions"]["code"] == "STATE_JSON_REFUSED", body
