"""The same hostile inputs through the service (in-process): never a 5xx, always an error body
with a code, and no request takes long. Complements schemathesis, which only sends bodies that a
schema describes."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from starlette.applications import Starlette

from manhattan.sealing import Sealer, SealingKey
from manhattan.server.app import create_app
from manhattan.settings import Settings
from tests.fuzz.inputs import msgpack_bombs, mutated_states, packable

TIME_LIMIT = 3.0
KEY = SealingKey("k1", bytes(range(32)))
JSON = {"content-type": "application/json"}
MSGPACK = {"content-type": "application/msgpack"}


def make_app() -> Starlette:
    return create_app(Settings(access_log=False), sealer=Sealer(KEY))


APP = make_app()


async def post(path: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
    transport = httpx.ASGITransport(app=APP)
    async with httpx.AsyncClient(transport=transport, base_url="http://fuzz") as client:
        started = time.perf_counter()
        response = await client.post(path, content=body, headers=headers)
        elapsed = time.perf_counter() - started
    assert elapsed < TIME_LIMIT, f"{path} took {elapsed:.2f} s"
    return response


def assert_client_error(response: httpx.Response) -> None:
    assert response.status_code < 500, response.text[:500]
    if response.status_code >= 400:
        # a msgpack request without Accept is answered in msgpack (errors too)
        msgpacked = response.headers["content-type"] == "application/msgpack"
        body = msgpack.unpackb(response.content) if msgpacked else response.json()
        assert "code" in body


def nested(depth: int) -> bytes:
    return b'{"state": ' + b"[" * depth + b"]" * depth + b"}"


REST_BOMBS: dict[str, tuple[bytes, dict[str, str]]] = {
    "json nested 100k deep": (nested(100_000), JSON),
    "json unclosed 100k": (b"[" * 100_000, JSON),
    "int of 5000 digits": (b'{"state": {"round": 1' + b"0" * 5000 + b"}}", JSON),
    "NaN": (b'{"state": NaN}', JSON),
    "token over the limit": (json.dumps({"state": {"token": "k1." + "A" * 20_000}}).encode(), JSON),
    "id of 10k chars": (json.dumps({"state": {"id": "x" * 10_000}}).encode(), JSON),
    "id not a string": (b'{"state": {"id": 5}}', JSON),
    "both id and token": (b'{"state": {"id": "a", "token": "b"}}', JSON),
    "invalid utf-8": (b'{"state": "\xff\xfe"}', JSON),
    "body over the size limit": (b'{"state": "' + b"a" * 300_000 + b'"}', JSON),
    **{f"msgpack {name}": (data, MSGPACK) for name, data in msgpack_bombs().items()},
    "msgpack body with a bomb state": (
        msgpack.packb({"state": None})[:-1] + b"\x91" * 50_000 + b"\xc0",
        MSGPACK,
    ),
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize("name", sorted(REST_BOMBS))
@pytest.mark.parametrize("path", ["/v1/legal-moves", "/v1/apply", "/v1/states"])
async def test_rest_bombs_are_client_errors(path: str, name: str) -> None:
    body, headers = REST_BOMBS[name]
    response = await post(path, body, headers)
    assert 400 <= response.status_code < 500, response.text[:300]


GRAPHQL_BOMBS: dict[str, dict[str, Any]] = {
    "selection nested 5k deep": {"query": "{ rules " + "{ a " * 5000 + "}" * 5001},
    "10k aliases": {
        "query": "{" + " ".join(f"a{i}: rules {{ version }}" for i in range(10_000)) + "}"
    },
    "a 200k-character name": {"query": "{ " + "a" * 200_000 + " }"},
    "state variable nested 50k deep": {
        "query": "query($s: JSON!) { legalMoves(state: {json: $s}) { notation } }",
        "variables": {"s": None},
    },
    "not a query": {"query": 5},
    "no query": {},
}


@pytest.mark.anyio
@pytest.mark.parametrize(
    "name",
    [name for name in sorted(GRAPHQL_BOMBS)],
)
async def test_graphql_bombs_are_not_server_errors(name: str) -> None:
    payload = GRAPHQL_BOMBS[name]
    if name == "state variable nested 50k deep":
        body = json.dumps(payload).replace("null", "[" * 50_000 + "]" * 50_000).encode()
    else:
        body = json.dumps(payload).encode()
    response = await post("/graphql", body, JSON)
    assert response.status_code < 500, response.text[:300]


def run(coroutine: Any) -> Any:
    import asyncio

    return asyncio.run(coroutine)


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(mutated_states())
def test_mutated_states_through_rest(state: Any) -> None:
    body = {"state": state}
    as_json = json.dumps(body, allow_nan=True).encode()
    assert_client_error(run(post("/v1/legal-moves", as_json, JSON)))
    if packable(body):
        as_msgpack = msgpack.packb(body, use_bin_type=True)
        assert_client_error(run(post("/v1/score", as_msgpack, MSGPACK)))
