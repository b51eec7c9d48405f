"""Hidden information through the service (RULES §10-§11, DESIGN §7): fixed cases that
the random no-leak suite (tests/api/test_no_leak.py) seldom or never reaches.

- Under the urban rule fakeNews the rule that scores the round is the next card of the hidden
  urban deck: a full state's ``ifRoundEndedNow`` names it, a player's must not (REST and GraphQL,
  with a player's token or a platform's ``Manhattan-Player`` header).
- Every result addressed to a player, whatever operation made it (REST and GraphQL: storing,
  loading by id, replaying, applying a move), carries that player's view and a token, never the
  full state or its id, and no card drawn by another player.
"""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest

import manhattan
from manhattan.sealing import Sealer, SealingKey
from manhattan.server.app import create_app
from manhattan.settings import Settings
from tests.service_client import connect, gql
from tests.strategies import rehide

pytestmark = pytest.mark.anyio
KEY = SealingKey("hide", bytes(range(32)))
SCORE_QUERY = (
    "query($s: StateRef!) { score(state: $s) { ... on Score { players scores "
    "ranking { player place score } ifRoundEndedNow { urban players scores { total urban } } } "
    "... on MoveRejected { code message } } }"
)


def app(**options: Any) -> Any:
    return create_app(Settings(access_log=False, **options), sealer=Sealer(KEY))


def with_next_urban(state: manhattan.State, card: str) -> manhattan.State:
    """``state`` with ``card`` on top of its (hidden) urban-rule deck."""
    obj: Any = state.to_json()
    deck = obj["urban"]["deck"]
    obj["urban"]["deck"] = [card, *(c for c in deck if c != card)]
    return manhattan.State.from_json(obj)


def fake_news_twins(player: int) -> tuple[manhattan.State, manhattan.State]:
    """A round-1 build under fakeNews with buildings on the board, and the same game as
    ``player`` knows it with every hidden part changed and another next urban rule (megacity and
    villa score this board differently)."""
    state = manhattan.new_game(
        players=3, seed="fake", edition="modern", variants={"urbanRules": True}
    )
    while state.phase == "select" or sum(1 for b in state.board if b) < 6:
        state = manhattan.apply_move(state, manhattan.legal_moves(state)[-1])
    assert state.urban is not None and state.urban.current == "fakeNews" and state.round == 1
    hidden = rehide(state, player, random.Random(player))
    return with_next_urban(state, "megacity"), with_next_urban(hidden, "villa")


async def player_token(client: httpx.AsyncClient, state: manhattan.State, player: int) -> str:
    response = await client.post("/v1/view", json={"state": state.to_json(), "player": player})
    assert response.status_code == 200, response.text
    token: str = response.json()["token"]
    return token


@pytest.mark.parametrize("player", [0, 1, 2])
async def test_fake_news_scoring_rule_stays_hidden_from_a_player(player: int) -> None:
    twins = fake_news_twins(player)
    async with connect(app()) as trusted, connect(app(strict_states=True)) as strict:
        full = [
            (await trusted.post("/v1/score", json={"state": s.to_json()})).json() for s in twins
        ]
        # The full state names the hidden rule, so the two twins score differently: without
        # the player's restriction the comparisons below would fail.
        assert [f["ifRoundEndedNow"]["urban"] for f in full] == ["megacity", "villa"]
        assert full[0]["ifRoundEndedNow"] != full[1]["ifRoundEndedNow"]
        answers: dict[str, list[Any]] = {"token": [], "header": [], "graphql": []}
        for state in twins:
            ref = {"token": await player_token(trusted, state, player)}
            answers["token"].append((await strict.post("/v1/score", json={"state": ref})).json())
            headers = {"Manhattan-Player": str(player)}
            by_header = await trusted.post(
                "/v1/score", json={"state": state.to_json()}, headers=headers
            )
            answers["header"].append(by_header.json())
            answers["graphql"].append((await gql(strict, SCORE_QUERY, s=ref))["data"]["score"])
    for how, (one, two) in answers.items():
        assert one == two, f"{how}: a player's score depends on the hidden urban deck"
        assert one["ifRoundEndedNow"]["urban"] is None, how
        assert all(s["urban"] == 0 for s in one["ifRoundEndedNow"]["scores"]), how


def addressed_to(body: dict[str, Any], player: int) -> None:
    """A result addressed to ``player``: their view and a token, no full state, no id."""
    assert body.get("state") is None and body.get("stateId") is None, body.keys()
    assert body["token"] and body["view"] is not None
    view = body["view"]
    assert (view["player"] if "player" in view else view["json"]["player"]) == player
    for event in body.get("events") or []:
        data = event.get("data", event)
        assert data["type"] != "cardDrawn" or data["player"] == player, event


async def test_every_result_for_a_players_token_is_addressed_to_them(
    mid_state: manhattan.State,
) -> None:
    player = mid_state.to_move
    assert player is not None
    move = manhattan.legal_moves(mid_state)[0].notation
    # Strict mode allows one move per position (test_attacks): each operation that moves gets
    # a service of its own, so each starts from the token's position.
    async with connect(app()) as trusted:
        ref = {"token": await player_token(trusted, mid_state, player)}
    async with connect(app(strict_states=True)) as strict:
        rest: list[tuple[str, dict[str, Any]]] = [
            ("/v1/states", {}),
            ("/v1/view", {"player": player}),
            ("/v1/apply", {"move": move}),
            ("/v1/apply", {"moves": [move]}),
        ]
        for path, extra in rest:
            async with connect(app(strict_states=True)) as fresh:
                response = await fresh.post(path, json={"state": ref, **extra})
            assert response.status_code in (200, 201), (path, response.text)
            addressed_to(response.json(), player)
        replayed = await strict.post("/v1/replay", json={"state": ref, "moves": [move]})
        assert replayed.status_code == 200, replayed.text
        addressed_to(replayed.json(), player)
        fields = "state { round } stateId token view { player } gameId"
        rejected = "... on MoveRejected { code message }"
        queries = {
            "state": f"query($s: StateRef!) {{ state(state: $s) "
            f"{{ ... on SealedState {{ {fields} }} {rejected} }} }}",
            "storeState": f"mutation($s: StateRef!) {{ storeState(state: $s) "
            f"{{ ... on SealedState {{ {fields} }} {rejected} }} }}",
            "applyMove": "query($s: StateRef!, $m: MoveInput!) { applyMove(state: $s, move: $m) "
            f"{{ ... on Transition {{ {fields} events {{ data }} }} {rejected} }} }}",
            "replay": "query($s: StateRef!, $m: MoveInput!) "
            "{ replay(game: {state: $s, moves: [$m]}) "
            f"{{ ... on Replay {{ {fields} }} {rejected} }} }}",
        }
        for name, query in queries.items():
            async with connect(app(strict_states=True)) as fresh:
                body = await gql(fresh, query, s=ref, m={"notation": move})
            assert "errors" not in body, (name, body)
            addressed_to(body["data"][name], player)


async def test_a_platform_loading_by_id_for_a_player_gets_their_view(
    mid_state: manhattan.State,
) -> None:
    async with connect(app()) as client:
        stored = await client.post("/v1/states", json={"state": mid_state.to_json()})
        state_id = stored.json()["stateId"]
        for player in range(mid_state.rules.players):
            headers = {"Manhattan-Player": str(player)}
            response = await client.get(f"/v1/states/{state_id}", headers=headers)
            assert response.status_code == 200, response.text
            addressed_to(response.json(), player)
            assert response.json()["view"] == manhattan.view(mid_state, player).to_json()
