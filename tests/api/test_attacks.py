"""Issue 17's attacks, in-process: each is refused with a code before its work starts.

(The attacks on the HTTP layer itself, headers and slow clients, need a real server:
``test_attacks_server.py``.)
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from manhattan.api.graphql.cost import fixed_cost, operation_cost
from manhattan.api.graphql.documents import ValidatedDocuments
from manhattan.api.graphql.limits import InputLimits
from manhattan.settings import Settings
from tests.api.test_limits import graphql_limits_of
from tests.conftest import MakeApp
from tests.service_client import connect, gql

pytestmark = pytest.mark.anyio

REPLAY = "replay(game: {setup: {players: 2}, moves: $m}) { __typename }"


def replay_aliases(count: int) -> str:
    fields = " ".join(f"a{i}: {REPLAY}" for i in range(count))
    return "query($m: [MoveInput!]!) { " + fields + " }"


def codes(body: dict[str, Any]) -> list[str]:
    return [e["extensions"]["code"] for e in body.get("errors", [])]


async def test_a_list_of_80000_moves_is_refused_before_conversion_and_healthz_answers(
    client: httpx.AsyncClient,
) -> None:
    # The reproduction: 5 aliases of one replay over 80,000 empty moves, ~240 KB.
    moves = "[" + ",".join(["{}"] * 80_000) + "]"
    body = (
        json.dumps({"query": replay_aliases(5)})[:-1] + ', "variables": {"m": ' + moves + "}}"
    ).encode()
    assert len(body) < Settings().max_body_bytes

    async def attack() -> httpx.Response:
        return await client.post(
            "/graphql", content=body, headers={"content-type": "application/json"}
        )

    async def health() -> httpx.Response:
        await asyncio.sleep(0)
        return await client.get("/healthz")

    answer, healthz = await asyncio.wait_for(asyncio.gather(attack(), health()), timeout=10)
    assert healthz.status_code == 200
    assert answer.json()["data"] is None
    assert codes(answer.json()) == ["PAYLOAD_TOO_LARGE"]
    assert "2000 items" in answer.json()["errors"][0]["message"]


async def test_too_many_values_in_all_are_refused(
    make_app: MakeApp, mid_json: dict[str, Any]
) -> None:
    query = (
        'query($m: [MoveInput!]!) { applyMoves(state: {id: "x"}, moves: $m) '
        "{ ... on MoveRejected { code } } }"
    )
    async with connect(make_app(graphql_max_input_values=100)) as client:
        # 60 moves of {notation}: 121 values, no list above 60 items.
        assert codes(await gql(client, query, m=[{"notation": "x"}] * 60)) == ["PAYLOAD_TOO_LARGE"]
        # Unknown input fields count too (graphql-core looks for a suggestion for each).
        odd = [{f"k{i}": 1 for i in range(200)}]
        assert codes(await gql(client, query, m=odd)) == ["PAYLOAD_TOO_LARGE"]
        fine = await gql(client, query, m=[{"notation": "x"}] * 40)
        assert fine["data"]["applyMoves"] == {"code": "INVALID_MOVE"}  # ran: "x" is no move
        # An inline state is one JSON value: parsed by its own decoder, not item by item.
        legal = "query($s: StateRef!) { legalMoves(state: $s) { type } }"
        assert (await gql(client, legal, s={"json": mid_json}))["data"]["legalMoves"]


async def test_aliases_cannot_multiply_the_moves_a_request_replays(
    client: httpx.AsyncClient,
) -> None:
    two_thousand = [{"notation": "x"}] * 2_000  # at the list cap: one replay of these is fine
    body = await gql(client, replay_aliases(15), m=two_thousand)
    assert codes(body) == ["QUERY_TOO_COMPLEX"]
    assert "costs 30015" in body["errors"][0]["message"]
    one = await gql(client, replay_aliases(1), m=two_thousand)
    assert one["data"]["a0"]["__typename"] == "MoveRejected"  # ran: 'x' is not a move


async def test_fragments_and_inline_lists_count_too(client: httpx.AsyncClient) -> None:
    moves = ", ".join(['{notation: "x"}'] * 300)  # inline: 301
    spread = (
        "query($m: [MoveInput!]!) { ...A ...B } "
        'fragment A on Query { a: applyMoves(state: {id: "x"}, moves: ['
        + moves
        + "]) { __typename } } fragment B on Query { b: replay(game: {moves: $m}) { __typename } "
        'e: applyMoves(state: {id: "x"}, moves: $m) { __typename } '
        '... on Query { c: suggestMove(state: {id: "x"}) { __typename } '
        'd: suggestMove(state: {id: "x"}) { __typename } } }'
    )
    body = await gql(client, spread, m=[{"notation": "x"}] * 1_900)  # 1,901
    assert codes(body) == ["QUERY_TOO_COMPLEX"]
    assert "costs 4503" in body["errors"][0]["message"]  # 301 + 2 x 1,901 + 2 x 200
    fine = await gql(client, spread, m=[{"notation": "x"}] * 1_000)
    assert codes(fine) != ["QUERY_TOO_COMPLEX"]


def test_costs_are_counted_from_the_syntax_and_the_raw_variables() -> None:
    from graphql import parse

    document = parse(
        'query($m: [MoveInput!]!, $g: GameRecord!) { a: applyMoves(state: {id: "x"}, '
        "moves: $m) { __typename } b: replay(game: $g) { __typename } rules "
        '... on Query { previewAll(state: {id: "x"}) { move { type } } } }'
    )
    variables = {"m": [{}] * 7, "g": {"moves": [{}] * 3}}
    assert operation_cost(document, None, variables) == (1 + 7) + (1 + 3) + 1 + 50
    assert operation_cost(document, "Other", variables) == 0
    # A compiled plan keeps a cost only where no variable changes it.
    assert fixed_cost(document, None) is None
    reading = parse(
        "query($s: StateRef!) { legalMoves(state: $s) { type } ... on Query { analysis(state: "
        "$s) { __typename } } x: previewAll(state: $s) { move { type } } }"
    )
    assert fixed_cost(reading, None) == operation_cost(reading, None, {}) == 1 + 5 + 50
    spread = parse(
        "query($m: [MoveInput!]!) { ...F } "
        'fragment F on Query { applyMoves(state: {id: "x"}, moves: $m) { __typename } }'
    )
    assert fixed_cost(spread, None) is None


async def test_number_literals_too_long_to_read_are_refused_with_a_code(
    client: httpx.AsyncClient,
) -> None:
    for literal in ("9" * 5_000, "1." + "9" * 5_000, "1e" + "9" * 200):
        query = '{ view(state: {id: "x"}, player: ' + literal + ") { __typename } }"
        body = await gql(client, query)
        assert codes(body) == ["INVALID_REQUEST"], body
        assert body["errors"][0]["extensions"]["classification"] == "BAD_USER_INPUT"


@pytest.mark.parametrize("raw", [b"null", b'"x"', b"1", b"true", b"-0.5"])
async def test_a_json_body_that_is_not_an_object_is_400(
    client: httpx.AsyncClient, raw: bytes
) -> None:
    for content_type in ("application/json", "application/json; charset=utf-8"):
        response = await client.post(
            "/graphql", content=raw, headers={"content-type": content_type}
        )
        assert response.status_code == 400, response.text
        assert response.json()["code"] == "INVALID_REQUEST"


async def test_the_document_caches_stay_within_their_bytes(make_app: MakeApp) -> None:
    """Distinct large queries (long string literals: few tokens, many bytes) leave at most the
    configured bytes in the parse/validation cache and the compiled plans."""
    budget = 1 << 20
    app = make_app(graphql_cache_bytes=budget, graphql_max_query_chars=200_000)
    documents: ValidatedDocuments = graphql_limits_of(app).validated_documents
    async with connect(app) as client:
        for i in range(60):
            padding = "x" * 100_000 + str(i)
            small = f'{{ legalMoves(state: {{token: "{i}"}}) {{ type }} }} # {i}'
            for query in (f'{{ legalMoves(state: {{token: "{padding}"}}) {{ type }} }}', small):
                response = await client.post("/graphql", json={"query": query})
                assert response.status_code == 200
    assert documents.bytes <= budget
    assert 0 < len(documents) < 60  # small ones are kept; none of the 100 KB ones
    route = next(r for r in app.routes if getattr(r, "path", None) == "/graphql")
    compiled = route.app._compiled  # type: ignore[attr-defined]
    assert compiled is not None and compiled._plans.bytes <= budget


async def test_a_long_query_is_refused_before_it_is_parsed(client: httpx.AsyncClient) -> None:
    query = '{ legalMoves(state: {token: "' + "x" * 250_000 + '"}) { type } }'
    body = await gql(client, query)
    assert codes(body) == ["PAYLOAD_TOO_LARGE"]
    assert "32768 characters" in body["errors"][0]["message"]


def test_input_limits_default_to_the_settings() -> None:
    settings = Settings()
    limits = InputLimits()
    assert limits.max_list_items == settings.max_moves_per_request
    assert (limits.max_values, limits.max_cost, limits.max_query_chars) == (
        settings.graphql_max_input_values,
        settings.graphql_max_cost,
        settings.graphql_max_query_chars,
    )


@pytest.mark.parametrize("name", ["Manhattan-Player", "Manhattan-Game"])
async def test_a_repeated_caller_header_is_400(client: httpx.AsyncClient, name: str) -> None:
    value = "0" if name == "Manhattan-Player" else "0" * 32
    other = "1" if name == "Manhattan-Player" else "f" * 32
    for values in ((value, other), (value, value)):
        headers = [(name, v) for v in values]
        for path, body in (
            ("/v1/games", {"players": 2}),
            ("/graphql", {"query": "{ newGame { __typename } }"}),
        ):
            response = await client.post(path, json=body, headers=headers)
            assert response.status_code == 400, response.text
            assert response.json()["code"] == "INVALID_REQUEST"
            assert name in response.json()["message"]
    once = await client.post("/v1/games", json={"players": 2}, headers=[("Manhattan-Player", "0")])
    assert once.status_code == 201


async def test_strict_mode_never_hands_out_a_full_information_token(make_app: MakeApp) -> None:
    async with connect(make_app(strict_states=True)) as client:
        refused = await client.post("/v1/games", json={"players": 3})
        assert (refused.status_code, refused.json()["code"]) == (403, "PLAYER_REQUIRED")
        body = await gql(
            client, "{ newGame(setup: {players: 3}) { ... on MoveRejected { code } } }"
        )
        assert body["data"]["newGame"] == {"code": "PLAYER_REQUIRED"}
        replayed = await client.post("/v1/replay", json={"setup": {"players": 2}, "moves": []})
        assert replayed.json()["code"] == "PLAYER_REQUIRED"
        seat = {"Manhattan-Player": "0"}
        game = (await client.post("/v1/games", json={"players": 3}, headers=seat)).json()
        assert game["view"]["player"] == 0 and "stateId" not in game and "state" not in game
        # The attack: view another seat from the token. Refused: the token is player 0's.
        for other in (1, 2):
            view = await client.post(
                "/v1/view", json={"state": {"token": game["token"]}, "player": other}
            )
            assert (view.status_code, view.json()["code"]) == (403, "WRONG_PLAYER")


async def test_strict_mode_draws_every_seed_itself(make_app: MakeApp) -> None:
    seat = {"Manhattan-Player": "0"}
    async with connect(make_app(strict_states=True)) as client:
        for path, body in (
            ("/v1/games", {"players": 2, "seed": "known"}),
            ("/v1/replay", {"setup": {"players": 2, "seed": "known"}, "moves": []}),
        ):
            response = await client.post(path, json=body, headers=seat)
            assert (response.status_code, response.json()["code"]) == (400, "INVALID_SETUP")
            assert response.json()["path"] in ("$.seed", "$.setup.seed")
        query = (
            '{ newGame(setup: {players: 2, seed: "known"}) { ... on MoveRejected { code path } } }'
        )
        graphql = await client.post("/graphql", json={"query": query}, headers=seat)
        assert graphql.json()["data"]["newGame"] == {"code": "INVALID_SETUP", "path": "$.seed"}
    async with connect(make_app()) as trusted:  # a trusted platform may still choose seeds
        chosen = await trusted.post("/v1/games", json={"players": 2, "seed": "known"})
        assert chosen.status_code == 201


# -- forks (strict mode: one move per position) -----------------------------------------------
async def strict_game(client: httpx.AsyncClient) -> tuple[str, list[str]]:
    """A new 2-player game for player 0, who moves first: their token and legal moves."""
    seat = {"Manhattan-Player": "0"}
    game = await client.post("/v1/games", json={"players": 2, "firstPlayer": 0}, headers=seat)
    assert game.status_code == 201, game.text
    token: str = game.json()["token"]
    legal = await client.post("/v1/legal-moves", json={"state": {"token": token}})
    return token, [m["notation"] for m in legal.json()["moves"]]


async def advance(client: httpx.AsyncClient, token: str, move: str) -> httpx.Response:
    return await client.post(
        "/v1/advance",
        json={"state": {"token": token}, "move": move, "bot": {"level": "random"}},
    )


async def forks_are_refused(client: httpx.AsyncClient) -> None:
    token, moves = await strict_game(client)
    first = await advance(client, token, moves[0])
    assert first.status_code == 200, first.text
    # The attack: other moves from the same token, to read the card each would draw.
    for move in (moves[1], moves[-1], moves[0]):
        again = await advance(client, token, move)
        assert (again.status_code, again.json()["code"]) == (409, "STALE_TOKEN")
        applied = await client.post("/v1/apply", json={"state": {"token": token}, "move": move})
        assert (applied.status_code, applied.json()["code"]) == (409, "STALE_TOKEN")
        replayed = await client.post(
            "/v1/replay", json={"state": {"token": token}, "moves": [move]}
        )
        assert replayed.json()["code"] == "STALE_TOKEN"
    query = (
        "query($s: StateRef!, $m: MoveInput!) { applyMove(state: $s, move: $m) "
        "{ ... on MoveRejected { code } ... on Transition { token } } }"
    )
    body = await gql(client, query, s={"token": token}, m={"notation": moves[1]})
    assert body["data"]["applyMove"] == {"code": "STALE_TOKEN"}
    # Reading from the old token still works (it shows only what the player saw then).
    legal = await client.post("/v1/legal-moves", json={"state": {"token": token}})
    assert legal.status_code == 200
    # The game goes on from the token the move returned, once.
    latest = first.json()["token"]
    legal = await client.post("/v1/legal-moves", json={"state": {"token": latest}})
    notation = legal.json()["moves"][0]["notation"]
    assert (await advance(client, latest, notation)).status_code == 200
    assert (await advance(client, latest, notation)).json()["code"] == "STALE_TOKEN"


async def test_a_token_moves_once_in_strict_mode(make_app: MakeApp) -> None:
    async with connect(make_app(strict_states=True)) as client:
        await forks_are_refused(client)


@pytest.mark.redis
async def test_a_token_moves_once_across_replicas_on_redis(
    make_app: MakeApp, redis_url: str
) -> None:
    from manhattan.sealing import SealingKey

    key = SealingKey.generate("forks").to_text()
    one = make_app(strict_states=True, redis_url=redis_url, token_key=key)
    two = make_app(strict_states=True, redis_url=redis_url, token_key=key)
    async with connect(one) as first, connect(two) as second:
        token, moves = await strict_game(first)
        assert (await advance(first, token, moves[0])).status_code == 200
        other = await advance(second, token, moves[1])  # another replica, the same token
        assert (other.status_code, other.json()["code"]) == (409, "STALE_TOKEN")
        await forks_are_refused(second)
    for app in (one, two):  # no lifespan in process: close what it would
        operations = app.state.operations
        await operations.cache.close()
        assert operations.positions is not None
        assert operations.positions.store.name == "redis"
        await operations.positions.store.close()


async def test_of_two_moves_sent_at_once_from_one_token_one_wins(make_app: MakeApp) -> None:
    async with connect(make_app(strict_states=True)) as client:
        token, moves = await strict_game(client)
        answers = await asyncio.gather(*(advance(client, token, m) for m in moves[:6]))
        assert sorted(a.status_code for a in answers) == [200] + [409] * 5


async def test_without_strict_mode_tokens_stay_stateless(client: httpx.AsyncClient) -> None:
    seat = {"Manhattan-Player": "0"}
    game = await client.post("/v1/games", json={"players": 2, "firstPlayer": 0}, headers=seat)
    token = game.json()["token"]
    legal = await client.post("/v1/legal-moves", json={"state": {"token": token}})
    for move in legal.json()["moves"][:2]:
        assert (await advance(client, token, move["notation"])).status_code == 200


def test_the_bounds_are_settings() -> None:
    from manhattan.server.protocol import ConnectionLimits, connection_limits
    from manhattan.settings import SettingsError

    settings = Settings.from_env(
        {
            "MANHATTAN_MAX_HEADER_BYTES": "8192",
            "MANHATTAN_MAX_HEADERS": "40",
            "MANHATTAN_HEADER_TIMEOUT": "2.5",
            "MANHATTAN_BODY_TIMEOUT": "7",
            "MANHATTAN_GRAPHQL_MAX_COST": "100",
            "MANHATTAN_GRAPHQL_MAX_INPUT_VALUES": "50",
            "MANHATTAN_GRAPHQL_MAX_QUERY_CHARS": "999",
            "MANHATTAN_GRAPHQL_CACHE_BYTES": "65536",
            "MANHATTAN_GRAPHQL_FAST_PATH": "off",
        }
    )
    assert connection_limits(settings) == ConnectionLimits(8192, 40, 2.5, 7.0)
    assert (settings.graphql_max_cost, settings.graphql_max_input_values) == (100, 50)
    assert (settings.graphql_max_query_chars, settings.graphql_cache_bytes) == (999, 65536)
    assert settings.graphql_fast_path is False
    with pytest.raises(SettingsError, match="MANHATTAN_HEADER_TIMEOUT"):
        Settings.from_env({"MANHATTAN_HEADER_TIMEOUT": "0"})


async def test_completion_caches_stay_bounded_whatever_the_aliases(
    make_app: MakeApp, mid_json: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from manhattan.api.graphql import execution as graphql_execution

    monkeypatch.setattr(graphql_execution, "_MEMO_SIZE", 50)
    cached = graphql_execution._cached_field_plan
    before = cached.cache_info().currsize
    async with connect(make_app()) as client:
        for i in range(12):
            alias = f"a{i}" + "x" * 5_000  # a long alias: not worth a cache entry
            query = f"query($s: StateRef!) {{ legalMoves(state: $s) {{ {alias}: type card }} }}"
            for _ in range(2):  # the second is planned
                body = await gql(client, query, s={"json": mid_json})
                assert body["data"]["legalMoves"][0][alias]
    assert cached.cache_info().currsize <= before + 1  # "card" at most
    assert len(graphql_execution._MEMO) <= 50
