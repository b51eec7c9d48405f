"""manhattan-client against the real app in-process (ASGI), fakes (MockTransport) and a server.

The client imports nothing from the engine; these tests use the engine only to check answers.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from manhattan_client import (
    AsyncClient,
    BadTokenError,
    BotChoice,
    Client,
    GameOverError,
    IllegalMoveError,
    InvalidBotError,
    InvalidMoveError,
    InvalidStateError,
    ManhattanClientError,
    Move,
    NotYourTurnError,
    PayloadTooLargeError,
    QueryTooComplexError,
    RateLimitedError,
    RequestRejectedError,
    RetryPolicy,
    ServerError,
    ServiceError,
    StateNotFoundError,
    StateRef,
    TransportError,
    UnexpectedResponseError,
    graphql_result,
)

from tests.clients.asgi_sync import SyncASGITransport
from tests.ports import refusing_port


@pytest.fixture
def client(app: Any) -> Iterator[Client]:
    transport = SyncASGITransport(app)
    with Client("http://test", transport=transport) as c:
        yield c  # closing the client closes the transport


def _async_client(app: Any) -> AsyncClient:
    return AsyncClient("http://test", transport=httpx.ASGITransport(app=app))


# -- in-process, the real app ---------------------------------------------------------------
def test_async_client_plays_a_whole_game_in_process(app: Any) -> None:
    async def play() -> tuple[int, list[Any]]:
        rng = random.Random(7)
        async with _async_client(app) as client:
            game = await client.new_game(players=3, seed="client-game")
            state: Any = game
            requests = 0
            while True:
                moves = await client.legal_moves(state)
                if not moves:
                    break
                state = await client.apply(state, rng.choice(moves))
                requests += 2
            score = await client.score(state)
            return requests, score.ranking

    requests, ranking = asyncio.run(play())
    assert requests > 50
    assert sorted(p.player for p in ranking) == [0, 1, 2]
    assert min(p.place for p in ranking) == 1


def test_sync_client_new_game_moves_apply_and_events(client: Client) -> None:
    game = client.new_game(players=4, seed="sync")
    assert game.state is not None and game.state["format"] == "manhattan/state@1"
    assert game.state_id is not None and len(game.state_id) == 32
    moves = client.legal_moves(game)
    assert all(m.type == "select" and m.player == 0 and m.notation for m in moves)
    step = client.apply(game, moves[0].notation or "")
    assert [e.type for e in step.events] == ["piecesSelected"]
    assert step.moves[0].notation == moves[0].notation
    assert step.state is not None and step.state["toMove"] == 1


def test_sync_client_state_references_json_id_and_token(client: Client) -> None:
    game = client.new_game(players=2, seed="refs")
    assert game.state is not None and game.state_id is not None
    by_json = client.legal_moves(game.state)
    assert client.legal_moves(StateRef.of_id(game.state_id)) == by_json
    assert client.legal_moves(StateRef.of_token(game.token)) == by_json
    stored = client.store(game.state)
    assert client.load(stored.state_id or "").state == game.state


def test_view_holds_no_state_and_its_token_acts_for_that_player_only(client: Client) -> None:
    game = client.new_game(players=4, seed="views")
    seat0 = client.view(game, 0)
    assert seat0.state is None and seat0.view is not None
    assert seat0.view["player"] == 0 and "seed" not in seat0.view
    step = client.apply(seat0, Move.select(0, [2, 2, 1, 1]))
    assert step.view is not None and step.state is None
    with pytest.raises(NotYourTurnError) as caught:
        client.apply(step, Move.select(1, [2, 2, 1, 1]))  # player 1's turn, player 0's token
    assert caught.value.code == "NOT_YOUR_TURN" and caught.value.status == 409


def test_a_player_session_with_bots_threats_and_previews(app: Any) -> None:
    """A client for one player (Manhattan-Player header): it never sees a full state; advance
    lets bots play the other seats."""
    transport = SyncASGITransport(app)
    with Client("http://test", transport=transport, headers={"Manhattan-Player": "1"}) as me:
        game = me.new_game(players=3, seed="session")
        assert game.state is None and game.view is not None and game.game_id
        step = me.advance(game, bot="random", seed=4)
        assert step.view is not None and step.view["toMove"] == 1 and step.state is None
        assert step.game_id == game.game_id and step.moves
        previews = me.preview_all(step)
        assert len(previews) == len(me.legal_moves(step))
        assert me.threats(step)["viewer"] == 1
        after = me.advance(step, me.legal_moves(step)[0], bot="random", seed=9)
        assert after.moves[0].player == 1


def test_validate_suggest_and_replay(client: Client) -> None:
    game = client.new_game(players=4, seed="more")
    verdict = client.validate(game, "s0:6,0,0,0")
    assert verdict.legal and verdict.move is not None and verdict.move.player == 0
    wrong = client.validate(game, {"type": "select", "color": 1, "pieces": [6, 0, 0, 0]})
    assert not wrong.legal and wrong.code == "ILLEGAL_MOVE" and wrong.message
    suggestion = client.suggest(game, seed=3)
    assert suggestion.move.player == 0 and suggestion.bot
    replay = client.replay(["s0:6,0,0,0", "s1:6,0,0,0"], setup={"players": 4, "seed": "more"})
    assert replay.moves_applied == 2
    assert replay.game.state is not None and replay.game.state["toMove"] == 2


def test_refusals_keep_their_explanation_and_bots_take_budgets(client: Client) -> None:
    game = client.new_game(players=4, seed="more")
    wrong = client.validate(game, {"type": "select", "color": 0, "pieces": [5, 0, 0, 0]})
    assert (wrong.legal, wrong.reason, wrong.section) == (False, "pieceCount", "§5.1")
    assert wrong.numbers == {"piecesChosen": 5, "required": 6} and wrong.alternatives == []
    searched = client.suggest(game, bot="ismcts", seed=1, iterations=30, time_ms=500)
    assert searched.bot == "ismcts" and searched.alternatives
    same = client.suggest(game, bot=BotChoice("ismcts", seed=1, iterations=30, time_ms=500))
    assert same.move == searched.move
    with pytest.raises(InvalidBotError) as caught:
        client.suggest(game, bot="greedy", iterations=20_001)
    assert caught.value.path == "$.bot.iterations"
    with pytest.raises(TypeError):
        client.suggest(game, bot=BotChoice("greedy"), seed=2)


@pytest.mark.parametrize(
    ("call", "error", "code"),
    [
        (lambda c, g: c.apply(g, {"type": "jump"}), InvalidMoveError, "INVALID_MOVE"),
        (lambda c, g: c.apply(g, "b4n3f2"), IllegalMoveError, "ILLEGAL_MOVE"),
        (lambda c, g: c.legal_moves({"format": "x"}), InvalidStateError, "INVALID_STATE"),
        (
            lambda c, g: c.legal_moves(StateRef.of_id("0" * 32)),
            StateNotFoundError,
            "STATE_NOT_FOUND",
        ),
        (lambda c, g: c.legal_moves(StateRef.of_token("forged.token")), BadTokenError, "BAD_TOKEN"),
        (lambda c, g: c.view(g, 9), RequestRejectedError, "INVALID_PLAYER"),
    ],
)
def test_service_errors_become_typed_exceptions(
    client: Client, call: Any, error: type[ServiceError], code: str
) -> None:
    game = client.new_game(players=4, seed="errors")
    with pytest.raises(error) as caught:
        call(client, game)
    assert caught.value.code == code and caught.value.message
    # The fields named as the TypeScript client names them: the service's message is `detail`.
    assert caught.value.detail == caught.value.message and str(caught.value).endswith(
        caught.value.detail
    )
    assert isinstance(caught.value, ServiceError | ManhattanClientError)


def test_invalid_state_carries_the_json_path(client: Client) -> None:
    state = client.new_game(players=4, seed="path").state
    assert state is not None
    state["round"] = 99
    with pytest.raises(InvalidStateError) as caught:
        client.legal_moves(state)
    assert caught.value.path and caught.value.path.startswith("$.")


def test_game_over_after_the_last_move(app: Any) -> None:
    async def finish() -> None:
        rng = random.Random(1)
        async with _async_client(app) as client:
            game = await client.new_game(players=2, seed="over", rounds=1, piecesPerRound=1)
            state: Any = game
            while moves := await client.legal_moves(state):
                state = await client.apply(state, rng.choice(moves))
            with pytest.raises(GameOverError):
                await client.suggest(state)

    asyncio.run(finish())


def test_graphql_passthrough(client: Client) -> None:
    assert client.graphql("{ __typename }") == {"__typename": "Query"}
    with pytest.raises(ServiceError):
        client.graphql("{ noSuchField }")


def test_graphql_errors_become_typed_exceptions_by_extensions_code(client: Client) -> None:
    with pytest.raises(BadTokenError) as caught:
        client.graphql('{ legalMoves(state: {token: "k1.forged"}) { notation } }')
    assert caught.value.code == "BAD_TOKEN" and caught.value.path is None
    with pytest.raises(StateNotFoundError):
        client.graphql('{ legalMoves(state: {id: "%s"}) { notation } }' % ("0" * 32))
    with pytest.raises(InvalidStateError) as invalid:
        client.graphql("{ legalMoves(state: {json: {format: 2}}) { notation } }")
    assert invalid.value.path is not None  # extensions.statePath


def test_a_graphql_move_rejected_becomes_the_typed_exception_of_its_code(client: Client) -> None:
    query = (
        "query($s: StateRef!) { score(state: $s) { __typename ... on Score { round } "
        "... on MoveRejected { code message path index } } }"
    )
    game = client.new_game(players=2, seed="gql")
    answer = client.graphql(query, {"s": {"token": game.token}})["score"]
    assert graphql_result(answer) == {"__typename": "Score", "round": 1}
    broken = client.graphql(query, {"s": {"json": {"format": 2}}})["score"]
    with pytest.raises(InvalidStateError) as caught:
        graphql_result(broken)
    assert caught.value.path == broken["path"] and caught.value.status == 200
    missing = client.graphql(query, {"s": {"id": "0" * 32}})["score"]
    with pytest.raises(StateNotFoundError):
        graphql_result(missing)


# -- fakes: error table, retries -------------------------------------------------------------
CONTRACT = {
    "INVALID_STATE": (400, InvalidStateError),
    "INVALID_MOVE": (400, InvalidMoveError),
    "ILLEGAL_MOVE": (422, IllegalMoveError),
    "GAME_OVER": (409, GameOverError),
    "STATE_NOT_FOUND": (404, StateNotFoundError),
    "BAD_TOKEN": (400, BadTokenError),
    "PAYLOAD_TOO_LARGE": (413, PayloadTooLargeError),
    "QUERY_TOO_COMPLEX": (400, QueryTooComplexError),
    "RATE_LIMITED": (429, RateLimitedError),
    "SOMETHING_NEW": (400, RequestRejectedError),
    "STORE_UNAVAILABLE": (503, ServerError),
}


def test_every_code_of_the_service_has_its_own_class() -> None:
    from manhattan_client._exceptions import ERRORS_BY_CODE

    from manhattan.api.errors import HTTP_STATUS

    assert set(ERRORS_BY_CODE) == set(HTTP_STATUS)
    assert len(set(ERRORS_BY_CODE.values())) == len(HTTP_STATUS)
    for code, cls in ERRORS_BY_CODE.items():
        assert issubclass(cls, ServerError) == (HTTP_STATUS[code] >= 500), code


@pytest.mark.parametrize("code", sorted(CONTRACT))
def test_design_5_every_error_code_has_its_exception(code: str) -> None:
    status, error = CONTRACT[code]

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            status,
            json={"code": code, "message": "no", "path": "$.x"},
            headers={"Retry-After": "2"},
        )

    with Client(transport=httpx.MockTransport(answer)) as client, pytest.raises(error) as caught:
        client.rules()
    assert (caught.value.code, caught.value.status, caught.value.path) == (code, status, "$.x")
    if isinstance(caught.value, RateLimitedError):
        assert caught.value.retry_after == 2.0


def test_a_non_json_answer_is_an_unexpected_response() -> None:
    transport = httpx.MockTransport(lambda r: httpx.Response(502, text="<html>bad gateway"))
    with Client(transport=transport) as client, pytest.raises(UnexpectedResponseError):
        client.rules()


def _flaky(failures: int, error: type[Exception]) -> tuple[httpx.MockTransport, list[int]]:
    calls: list[int] = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) <= failures:
            raise error("down", request=request)  # type: ignore[call-arg]
        return httpx.Response(200, json={"rulesVersion": 1})

    return httpx.MockTransport(answer), calls


def test_connection_errors_are_retried_with_exponential_backoff() -> None:
    transport, calls = _flaky(2, httpx.ConnectError)
    slept: list[float] = []
    policy = RetryPolicy(attempts=3, backoff=0.5, jitter=False)
    with Client(transport=transport, retry=policy, sleep=slept.append) as client:
        assert client.rules() == {"rulesVersion": 1}
    assert len(calls) == 3 and slept == [0.5, 1.0]


def test_retries_give_up_with_a_transport_error() -> None:
    transport, calls = _flaky(5, httpx.ConnectTimeout)
    with (
        Client(transport=transport, retry=RetryPolicy(attempts=2), sleep=lambda s: None) as client,
        pytest.raises(TransportError),
    ):
        client.rules()
    assert len(calls) == 2


def test_read_errors_and_error_answers_are_not_retried() -> None:
    transport, calls = _flaky(1, httpx.ReadTimeout)
    with Client(transport=transport, sleep=lambda s: None) as client:
        with pytest.raises(TransportError):
            client.rules()
        assert len(calls) == 1
    served: list[int] = []

    def failing(request: httpx.Request) -> httpx.Response:
        served.append(1)
        return httpx.Response(503, json={"code": "STORE_UNAVAILABLE", "message": "later"})

    with Client(transport=httpx.MockTransport(failing)) as client, pytest.raises(ServerError):
        client.rules()
    assert len(served) == 1


def test_async_client_retries_connection_errors() -> None:
    calls: list[int] = []

    async def answer(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:
            raise httpx.ConnectError("down", request=request)
        return httpx.Response(200, json={"moves": []})

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def run() -> list[Move]:
        async with AsyncClient(transport=httpx.MockTransport(answer), sleep=sleep) as client:
            return await client.legal_moves({"format": "manhattan/state@1"})

    assert asyncio.run(run()) == [] and len(calls) == 2 and len(slept) == 1


def test_jittered_delays_stay_within_half_and_full_backoff() -> None:
    delays = list(RetryPolicy(attempts=5, backoff=0.2, max_backoff=0.5).delays(random.Random(1)))
    bounds = [0.2, 0.4, 0.5, 0.5]
    assert len(delays) == 4
    assert all(b / 2 <= d <= b for d, b in zip(delays, bounds, strict=True))


def test_the_client_never_imports_the_engine() -> None:
    from pathlib import Path

    from tests.clients.conftest import CLIENT_SRC

    for source in Path(CLIENT_SRC, "manhattan_client").glob("*.py"):
        text = source.read_text()
        assert "import manhattan\n" not in text and "from manhattan" not in text.replace(
            "from manhattan_client", ""
        ), source


def test_the_client_is_clean_under_mypy_strict() -> None:
    """It ships ``py.typed``, so its callers' type checkers read these annotations."""
    import subprocess
    import sys

    from tests.clients.conftest import CLIENT_SRC

    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "manhattan_client"],
        cwd=CLIENT_SRC,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


# -- a real server in a subprocess ------------------------------------------------------------
def test_sync_client_against_a_running_server(server_url: str) -> None:
    with Client(server_url) as client:
        assert client.rules()["stateFormat"] == "manhattan/state@1"
        game = client.new_game(players=2, seed="served", rounds=1, piecesPerRound=2)
        state: Any = game
        while moves := client.legal_moves(state):
            state = client.apply(state, client.suggest(state, seed=len(moves)).move)
        assert client.score(state).phase == "over"


def test_async_client_against_a_running_server(server_url: str) -> None:
    async def run() -> int:
        async with AsyncClient(server_url) as client:
            game = await client.new_game(players=4, seed="served-async")
            results = await asyncio.gather(*(client.legal_moves(game) for _ in range(4)))
            return len({len(r) for r in results})

    assert asyncio.run(run()) == 1


def test_nothing_listening_is_a_transport_error_after_retries() -> None:
    slept: list[float] = []
    with refusing_port() as port:
        url = f"http://127.0.0.1:{port}"
        with Client(url, sleep=slept.append) as client, pytest.raises(TransportError):
            client.rules()
    assert len(slept) == 2
