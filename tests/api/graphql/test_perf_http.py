"""The lean GraphQL HTTP path answers exactly what strawberry's view answers.

``GraphQLApp`` serves a POST of one ``application/json`` operation itself (``_lean_post``) and
hands everything else to strawberry's view. Here each request runs through both (the lean path
switched off on the same app for the second) and the answers must agree: status, content type,
the JSON body (tokens aside: each one is sealed with a fresh nonce) and the error codes counted
in the metrics.

Two sources of requests: the cases below (errors, variables, operation names, mutations,
introspection on and off, limits, ``MoveRejected`` unions, and the requests the lean path must
decline: GET, GraphiQL, batches, other content types, malformed bodies); and every GraphQL
request the other tests in ``tests/api`` make, which ``conftest.py`` records and replays through
``compare`` when each test ends.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from graphql import parse
from starlette.applications import Starlette

import manhattan
from manhattan.api.encoding import dump_json
from manhattan.api.graphql.compiled import make_plan
from manhattan.api.graphql.legal_lane import legal_lane
from manhattan.api.graphql.schema import PLANNABLE_FIELDS, build_schema
from manhattan.api.graphql.view import GraphQLApp
from manhattan.bench.engine import mid_game_state
from manhattan.server.metrics import Metrics
from tests.conftest import MakeApp
from tests.service_client import connect

pytestmark = pytest.mark.anyio

Scope = dict[str, Any]
_TOKEN = re.compile(r"^[0-9a-f]+\.[0-9a-f]*\.[A-Za-z0-9_-]{20,}$")
REPLAY = "manhattan.test.replay"  # a scope key: requests made here are not recorded again
MOVES = "type player card neighborhood floors color pieces block notation"


def graphql_app(app: Starlette) -> GraphQLApp:
    for route in app.routes:
        endpoint = getattr(route, "endpoint", None)
        if isinstance(endpoint, GraphQLApp):
            return endpoint
    raise AssertionError("no GraphQL route")


def _normalized(value: Any) -> Any:
    """Tokens carry a random nonce: equal when both are tokens."""
    if isinstance(value, dict):
        return {k: _normalized(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    if isinstance(value, str) and _TOKEN.match(value):
        return "<token>"
    return value


async def _call(
    app: Starlette, scope: Scope, body: bytes, lean: bool
) -> tuple[dict[str, Any], int]:
    """One request straight into the GraphQL endpoint, on a throwaway metrics registry."""
    endpoint = graphql_app(app)
    saved_lean, saved_metrics = endpoint._lean, app.state.metrics
    endpoint._lean = lean and saved_lean
    app.state.metrics = Metrics()
    sent = False
    messages: list[dict[str, Any]] = []
    answered = asyncio.Event()

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        # as a server does: the client is there until the answer is sent (a request that may
        # run bots listens for a disconnect, and would stop at once)
        await answered.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        messages.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            answered.set()

    raised = None
    view_calls = [0]
    run = endpoint.run

    async def counted_run(request: Any) -> Any:
        view_calls[0] += 1
        return await run(request)

    endpoint.run = counted_run  # type: ignore[method-assign]
    try:
        try:
            await endpoint({**scope, REPLAY: True}, receive, send)
        except Exception as exc:  # what the view raises, the lean path must raise alike
            raised = f"{type(exc).__name__}: {exc}"
        errors = {
            sample.labels["code"]: sample.value
            for metric in app.state.metrics.errors.collect()
            for sample in metric.samples
            if sample.name.endswith("_total")
        }
    finally:
        endpoint._lean, app.state.metrics = saved_lean, saved_metrics
        del endpoint.run
    if raised is not None:
        return {"raised": raised, "messages": messages, "errors counted": errors}, view_calls[0]
    start = next(m for m in messages if m["type"] == "http.response.start")
    payload = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
    headers = {k.decode().lower(): v.decode() for k, v in start.get("headers", ())}
    content_type = headers.get("content-type", "")
    content: Any = payload.decode("utf-8", "replace")
    if content_type.startswith("application/json"):
        content = _normalized(json.loads(payload))
    return {
        "status": start["status"],
        "headers": sorted(k for k in headers if k not in ("content-type", "content-length")),
        "content-type": content_type,
        "content-length": headers.get("content-length") if isinstance(content, str) else None,
        "body": content,
        "errors counted": errors,
    }, view_calls[0]


async def compare(app: Starlette, scope: Scope, body: bytes) -> tuple[dict[str, Any], bool]:
    """The answer, after checking that both paths give it; and whether the lean path took the
    request (the view was not called)."""
    lean, view_calls = await _call(app, scope, body, lean=True)
    view, _ = await _call(app, scope, body, lean=False)
    if lean != view:
        # A request with a random answer (newGame without a seed) differs from itself: then
        # only the shape must agree (keys, list lengths, the types of the leaves).
        again, _ = await _call(app, scope, body, lean=False)
        if again != view:
            lean, view = _shape(lean), _shape(view)
    assert lean == view, (scope.get("method"), body[:300])
    return lean, view_calls == 0


def _shape(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return type(value).__name__


def scope_of(
    app: Starlette,
    method: str = "POST",
    content_type: str | None = "application/json",
    query_string: bytes = b"",
    headers: tuple[tuple[bytes, bytes], ...] = (),
) -> Scope:
    raw = [(b"host", b"service"), *headers]
    if content_type is not None:
        raw.append((b"content-type", content_type.encode()))
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": "/graphql",
        "raw_path": b"/graphql",
        "query_string": query_string,
        "root_path": "",
        "headers": raw,
        "client": ("127.0.0.1", 1),
        "server": ("service", 80),
        "app": app,
    }


def op(query: str, variables: Any = None, name: Any = None, **extra: Any) -> bytes:
    body: dict[str, Any] = {"query": query, **extra}
    if variables is not None:
        body["variables"] = variables
    if name is not None:
        body["operationName"] = name
    return json.dumps(body).encode()


def _cases(state: dict[str, Any], over: dict[str, Any]) -> Iterator[tuple[str, bytes]]:
    s = {"json": state}
    yield (
        "legal moves",
        op(f"query($s: StateRef!) {{ legalMoves(state: $s) {{ {MOVES} }} }}", {"s": s}),
    )
    yield (
        "legal moves, state in the document",
        op(f"{{ legalMoves(state: {{json: {_literal(state)}}}) {{ type notation }} }}"),
    )
    yield "typename", op("{ __typename }")
    yield "rules", op("{ rules }")
    yield (
        "aliases and fragments",
        op(
            "query($s: StateRef!) { a: legalMoves(state: $s) { ...M } b: score(state: $s) "
            "{ __typename } } fragment M on Move { type pieces }",
            {"s": s},
        ),
    )
    yield (
        "operationName picks",
        op(
            "query A { rules } query B($s: StateRef!) { legalMoves(state: $s) { type } }",
            {"s": s},
            "B",
        ),
    )
    yield "operationName missing", op("query A { rules } query B { __typename }")
    yield "operationName unknown", op("query A { rules }", None, "C")
    yield "operationName not a string", op("query A { rules }", None, 7)
    yield (
        "mutation",
        op(
            "mutation($s: StateRef!) { storeState(state: $s) "
            "{ ... on SealedState { stateId token } } }",
            {"s": s},
        ),
    )
    yield (
        "apply: transition",
        op(
            "query($s: StateRef!, $m: MoveInput!) { applyMove(state: $s, move: $m) { __typename "
            "... on Transition { stateId token events { type } } ... on MoveRejected { code } } }",
            {
                "s": s,
                "m": {
                    "notation": manhattan.legal_moves(manhattan.State.from_json(state))[0].notation
                },
            },
        ),
    )
    yield (
        "apply: MoveRejected",
        op(
            "query($s: StateRef!) { applyMove(state: $s, move: {type: build, card: 99}) "
            "{ __typename ... on MoveRejected { code message path index } } }",
            {"s": s},
        ),
    )
    yield (
        "apply on a finished game: MoveRejected",
        op(
            'query($s: StateRef!) { applyMove(state: $s, move: {notation: "b0n0f1"}) '
            "{ __typename ... on MoveRejected { code message } } }",
            {"s": {"json": over}},
        ),
    )
    yield (
        "invalid state: coded error",
        op("query($s: StateRef!) { legalMoves(state: $s) { type } }", {"s": {"json": {"x": 1}}}),
    )
    yield (
        "state not found",
        op("query($s: StateRef!) { legalMoves(state: $s) { type } }", {"s": {"id": "0" * 32}}),
    )
    yield (
        "bad token",
        op("query($s: StateRef!) { legalMoves(state: $s) { type } }", {"s": {"token": "x.y.z"}}),
    )
    yield (
        "oneOf violated",
        op(
            "query($s: StateRef!) { legalMoves(state: $s) { type } }",
            {"s": {"id": "a", "token": "b"}},
        ),
    )
    yield (
        "variable of the wrong type",
        op(
            'query($p: Int!) { view(state: {id: "x"}, player: $p) '
            "{ ... on SealedState { stateId } } }",
            {"p": "one"},
        ),
    )
    yield "missing variable", op("query($s: StateRef!) { legalMoves(state: $s) { type } }")
    yield "variables null", b'{"query": "{ __typename }", "variables": null, "operationName": null}'
    yield "unknown field", op("{ nope }")
    yield "syntax error", op("{ rules ")
    yield (
        "too deep",
        op(
            "{ "
            + "__schema { types { fields { type { ofType { " * 3
            + "name"
            + " } } } } }" * 3
            + " }"
        ),
    )
    yield "too many aliases", op("{ " + " ".join(f"a{i}: __typename" for i in range(40)) + " }")
    yield "too many tokens", op("{ " + " ".join("__typename" for _ in range(3000)) + " }")
    yield "introspection", op('{ __schema { queryType { name } } __type(name: "Move") { name } }')
    yield "extensions object", op("{ __typename }", None, None, extensions={"x": 1})
    yield "subscription: not in the schema", op("subscription { x }")
    yield (
        "suggest",
        op(
            "query($s: StateRef!) { suggestMove(state: $s, bot: {level: random, seed: 1}) "
            "{ __typename } }",
            {"s": s},
        ),
    )
    yield (
        "board svg of a view",
        op(
            "query($s: StateRef!) { boardSvg(state: $s, player: 9) "
            "{ __typename ... on BoardSvg { svg } ... on MoveRejected { code message } } }",
            {"s": s},
        ),
    )
    score = (
        "query($s: StateRef!) { score(state: $s) { __typename ... on Score { round phase scores "
        "players } ... on MoveRejected { code message path } } }"
    )
    yield "score: a union answered", op(score, {"s": s})
    yield "score of an invalid state: MoveRejected with a path", op(score, {"s": {"json": {}}})
    yield "score of an unknown id: MoveRejected", op(score, {"s": {"id": "0" * 32}})
    yield (
        "score: fragments in another order, typename last, a member not asked",
        op(
            "query($s: StateRef!) { score(state: $s) { ... on Score { p: phase round } "
            "__typename } }",
            {"s": {"json": {}}},
        ),
    )
    yield (
        "analysis: a union with a JSON field",
        op(
            "query($s: StateRef!) { analysis(state: $s) { ... on Analysis { round toMove json } "
            "... on MoveRejected { code } } }",
            {"s": s},
        ),
    )


async def test_lean_path_matches_the_view(make_app: MakeApp, mid_json: dict[str, Any]) -> None:
    over = _finished_game()
    for introspection in (True, False):
        app = make_app(introspection=introspection)
        async with connect(app):
            for name, body in _cases(mid_json, over):
                answer, took = await compare(app, scope_of(app), body)
                assert answer["status"] in (200, 400), (name, answer)
                assert took or name == "operationName not a string", name


async def test_requests_the_lean_path_declines_are_unchanged(
    make_app: MakeApp, mid_json: dict[str, Any]
) -> None:
    app = make_app(graphql_ide=True)
    good = op("{ __typename }")
    variants: list[tuple[Scope, bytes]] = [
        (scope_of(app), b"{nope"),
        (scope_of(app), b""),
        (scope_of(app), b"[1, 2]"),
        (scope_of(app), b"[" + good + b"]"),
        (scope_of(app), b'"a string"'),
        (scope_of(app), b'{"query": 1}'),
        (scope_of(app), b'{"query": null}'),
        (scope_of(app), b'{"query": ""}'),
        (scope_of(app), b'{"variables": {}}'),
        (scope_of(app), b'{"query": "{ __typename }", "variables": [1]}'),
        (scope_of(app), b'{"query": "{ __typename }", "extensions": 3}'),
        (scope_of(app), b"[" * 100_000),
        (scope_of(app, content_type=None), good),
        (scope_of(app, content_type="text/plain"), good),
        (scope_of(app, content_type="Application/JSON"), good),
        (scope_of(app, content_type="application/json; charset=utf-8"), good),
        (scope_of(app, content_type=" application/json ;charset=UTF-8"), good),
        (scope_of(app, content_type="application/graphql-response+json"), good),
        (scope_of(app, content_type="multipart/form-data; boundary=x"), b"--x--"),
        (scope_of(app, "GET", None, b"query=%7B__typename%7D"), b""),
        (
            scope_of(
                app,
                "GET",
                None,
                b"query=mutation%7BstoreState(state%3A%7Bid%3A%22x%22%7D)%7BstateId%7D%7D",
            ),
            b"",
        ),
        (scope_of(app, "GET", None, b"", ((b"accept", b"text/html"),)), b""),
        (scope_of(app, "GET", None, b""), b""),
        (scope_of(app, "PUT"), good),
        (scope_of(app, headers=((b"accept", b"text/event-stream"),)), good),
        (scope_of(app, headers=((b"accept", b"multipart/mixed"),)), good),
    ]
    async with connect(app):
        for scope, body in variants:
            _, took = await compare(app, scope, body)
            headers = dict(scope["headers"])
            media = headers.get(b"content-type", b"").partition(b";")[0].strip()
            plain = media == b"application/json"
            assert took == (plain and scope["method"] == "POST" and body == good), (scope, body)


def _literal(value: Any) -> str:
    """A JSON value as a GraphQL literal (unquoted keys)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return json.dumps(value)


def _finished_game() -> dict[str, Any]:
    state = manhattan.new_game(players=2, seed="over")
    while not state.is_over:
        state = manhattan.apply_move(state, manhattan.legal_moves(state)[0])
    return state.to_json()


def replay_recorded(recorded: list[tuple[Starlette, Scope, bytes]]) -> None:
    """Replays what a test sent to ``/graphql`` through both paths (in a thread of its own, so
    that it runs whether or not the test left an event loop running)."""

    async def replay() -> None:
        for app, scope, body in recorded:
            await compare(app, scope, body)

    error: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(replay())
        except BaseException as exc:  # reported in the test's thread
            error.append(exc)

    import threading

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if error:
        raise error[0]


__all__ = ["compare", "httpx", "replay_recorded"]


def _inline_state_cases(state: dict[str, Any]) -> Iterator[tuple[str, bytes]]:
    """Requests with states inline in the variables: the ones the lean path reads straight from
    the body (every variable a ``StateRef`` of ``{"json": ...}``), and their near misses."""
    legal = f"query($s: StateRef!) {{ legalMoves(state: $s) {{ {MOVES} }} }}"
    s = {"json": state}
    yield "inline state", op(legal, {"s": s})
    yield "inline state, operationName", op(legal.replace("query", "query L"), {"s": s}, "L")
    yield (
        "two inline states",
        op(
            "query($s: StateRef!, $t: StateRef!) { a: legalMoves(state: $s) { type } "
            "b: score(state: $t) { __typename ... on Score { round } } }",
            {"s": s, "t": {"json": {**state, "toMove": 0}}},
        ),
    )
    yield "a state the rules refuse", op(legal, {"s": {"json": {**state, "scores": [0] * 4}}})
    yield "a state of the wrong shape", op(legal, {"s": {"json": {**state, "round": 99}}})
    yield "an id beside the state", op(legal, {"s": {**s, "id": None}})
    yield "a state and another key", op(legal, {"s": s}, None, extensions={"x": 1})
    yield (
        "a state in a JSON variable",
        op("query($s: JSON!) { legalMoves(state: {json: $s}) { type } }", {"s": s}),
    )
    yield (
        "an undeclared variable",
        op("query($s: StateRef!) { legalMoves(state: $s) { type } }", {"s": s, "u": s}),
    )
    yield "a state with a duplicate key", op(legal, {"s": s})[:-2] + b', "s": {"json": 1}}}'


async def test_inline_states_read_from_the_bytes_match_the_view(
    make_app: MakeApp, mid_json: dict[str, Any]
) -> None:
    """Each request twice: the first validates its document (the general path), the second is
    planned and, for the common request, its states read straight from the body."""
    app = make_app()
    endpoint = graphql_app(app)
    general_reads = []
    decode = endpoint.decode_json

    def counted(data: str | bytes) -> object:
        general_reads.append(data)
        return decode(data)

    endpoint.decode_json = counted  # type: ignore[method-assign]
    read_whole = {}
    async with connect(app):
        for name, body in _inline_state_cases(mid_json):
            first, _ = await compare(app, scope_of(app), body)
            second, took = await compare(app, scope_of(app), body)
            assert first == second and took, name
            general_reads.clear()
            await _call(app, scope_of(app), body, lean=True)
            read_whole[name] = bool(general_reads)
    from_bytes = {name for name, whole in read_whole.items() if not whole}
    assert from_bytes == {
        "inline state",
        "inline state, operationName",
        "two inline states",
        "a state the rules refuse",
    }


async def test_legal_moves_alone_are_answered_from_kept_bytes_as_the_view_answers(
    make_app: MakeApp, mid_json: dict[str, Any]
) -> None:
    """A plan of ``legalMoves(state: $s)`` alone answers without the executor (its lane),
    from bytes kept per state, the same answer as the view's, failures included; anything
    else goes through the plan."""
    app = make_app()
    endpoint = graphql_app(app)
    async with connect(app) as client:
        stored = (await client.post("/v1/states", json={"state": mid_json})).json()
    legal = f"query($s: StateRef!) {{ legalMoves(state: $s) {{ {MOVES} }} }}"
    mover = str(mid_json["toMove"])
    other = str((mid_json["toMove"] + 1) % 4)
    game = ((b"manhattan-game", stored["gameId"].encode()),)
    cases: list[tuple[str, bytes, tuple[tuple[bytes, bytes], ...], bool]] = [
        ("inline", op(legal, {"s": {"json": mid_json}}), (), True),
        ("by id", op(legal, {"s": {"id": stored["stateId"]}}), (), True),
        ("by token", op(legal, {"s": {"token": stored["token"]}}), (), True),
        ("by id, the game's", op(legal, {"s": {"id": stored["stateId"]}}), game, True),
        ("the mover", op(legal, {"s": {"id": stored["stateId"]}}), _player(mover), True),
        ("another player", op(legal, {"s": {"id": stored["stateId"]}}), _player(other), True),
        ("a bad header", op(legal, {"s": {"id": stored["stateId"]}}), _player("x"), True),
        ("an unknown id", op(legal, {"s": {"id": "0" * 32}}), (), True),
        ("refused", op(legal, {"s": {"json": {**mid_json, "scores": [0] * 4}}}), (), True),
        ("a bad token", op(legal, {"s": {"token": "x.y.z"}}), (), True),
        (
            "aliased, typename",
            op(
                "query($s: StateRef!) { m: legalMoves(state: $s) { __typename notation } }",
                {"s": {"json": mid_json}},
            ),
            (),
            True,
        ),
        ("an id of a number", op(legal, {"s": {"id": 7}}), (), False),
        ("a null state", op(legal, {"s": {"json": None}}), (), False),
        ("two keys", op(legal, {"s": {"id": "a", "token": "b"}}), (), False),
        ("no variable", op(legal), (), False),
        (
            "another field beside it",
            op(
                "query($s: StateRef!) { legalMoves(state: $s) { type } rules }",
                {"s": {"json": mid_json}},
            ),
            (),
            False,
        ),
    ]
    executed = _count_executions(endpoint._compiled)
    async with connect(app):
        for name, body, headers, laned in cases:
            answers = []
            for _ in range(3):  # validated, planned, then kept
                executed.clear()
                answer, took = await compare(app, scope_of(app, headers=headers), body)
                answers.append(answer)
            assert took and answers[0] == answers[1] == answers[2], name
            assert (not executed) == laned, name
    moves = answers[0]["body"]["data"]
    assert moves is None or moves["legalMoves"]


def _count_executions(compiled: Any) -> list[int]:
    """A list that grows by one each time the general executor runs a request."""
    assert compiled is not None
    execute = compiled.execute
    executed: list[int] = []

    async def counted(*args: Any) -> Any:
        executed.append(1)
        return await execute(*args)

    compiled.execute = counted
    return executed


def _player(index: str) -> tuple[tuple[bytes, bytes], ...]:
    return ((b"manhattan-player", index.encode()),)


@pytest.mark.parametrize(("max_values", "laned"), [(1, False), (2, True)])
async def test_the_lane_takes_only_what_the_input_limits_allow(
    make_app: MakeApp, mid_json: dict[str, Any], max_values: int, laned: bool
) -> None:
    """A reference is two values of the input limits (the ``StateRef`` and its field): below
    that, the lane leaves the request to the plan, which refuses it as the view does."""
    app = make_app(graphql_max_input_values=max_values)
    executed = _count_executions(graphql_app(app)._compiled)
    body = op(
        f"query($s: StateRef!) {{ legalMoves(state: $s) {{ {MOVES} }} }}", {"s": {"json": mid_json}}
    )
    async with connect(app):
        for _ in range(3):  # validated, planned, then kept
            executed.clear()
            answer, took = await compare(app, scope_of(app), body)
            assert took
    assert (not executed) == laned
    assert ("errors" in answer["body"]) != laned


@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_the_lane_writes_what_the_plan_completes_and_the_view_encodes(seed: str) -> None:
    """Its answer, written as parts with each move's JSON kept, is the bytes of the whole
    answer encoded at once: for moves seen before or not, and for no moves."""
    schema = build_schema()._schema
    query = f"query($s: StateRef!) {{ m: legalMoves(state: $s) {{ {MOVES} __typename }} }}"
    plan = make_plan(schema, parse(query), None, plannable=PLANNABLE_FIELDS)
    assert plan is not None
    lane = legal_lane(plan)
    assert lane is not None
    (root,) = plan.fields
    moves = manhattan.legal_moves(mid_game_state(seed))
    for listed in (moves, moves, moves[:1], []):
        whole = dump_json({"data": {"m": [root.complete(move) for move in listed]}})
        assert lane.encode(listed) == whole
