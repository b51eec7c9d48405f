"""Health, readiness, metrics, request ids, logs, strict mode, and the app on a real Redis."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import anyio
import httpx
import pytest

import manhattan
from manhattan.sealing import SealingKey
from manhattan.server.request_log import JsonFormatter
from tests.conftest import MakeApp, RedisServer
from tests.service_client import connect, gql

pytestmark = pytest.mark.anyio


async def test_healthz_and_readyz_report_cache_and_key(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).json() == {"status": "ok"}
    ready = (await client.get("/readyz")).json()
    assert ready["status"] == "ready" and ready["cache"] == {"backend": "memory", "ok": True}
    assert (
        ready["tokens"]["ephemeral"] is True and "MANHATTAN_TOKEN_KEY" in ready["tokens"]["warning"]
    )


async def test_a_configured_key_is_not_ephemeral(make_app: MakeApp) -> None:
    key = SealingKey.generate("k2025").to_text()
    async with connect(make_app(token_key=key)) as client:
        tokens = (await client.get("/readyz")).json()["tokens"]
        assert tokens["keyId"] == "k2025" and tokens["ephemeral"] is False


async def test_metrics_count_requests_cache_outcomes_and_errors(
    client: httpx.AsyncClient, mid_json: dict[str, Any]
) -> None:
    for _ in range(3):  # the labelled children are looked up once, then reused
        await client.post("/v1/legal-moves", json={"state": mid_json})
    await client.post("/v1/legal-moves", json={"state": {"id": "f" * 32}})
    await gql(client, '{ legalMoves(state: {token: "bad"}) { type } }')
    text = (await client.get("/metrics")).text
    assert (
        'manhattan_requests_total{method="POST",route="/v1/legal-moves",status="200"} 3.0' in text
    )
    assert (
        'manhattan_requests_total{method="POST",route="/v1/legal-moves",status="404"} 1.0' in text
    )
    assert 'manhattan_request_duration_seconds_count{route="/v1/legal-moves"} 4.0' in text
    assert 'manhattan_cache_total{kind="state",outcome="miss"} 1.0' in text
    assert 'manhattan_errors_total{code="STATE_NOT_FOUND"} 1.0' in text
    assert 'manhattan_errors_total{code="BAD_TOKEN"} 1.0' in text
    assert "manhattan_request_duration_seconds_bucket" in text


async def test_the_request_id_is_echoed_or_made(client: httpx.AsyncClient) -> None:
    given = await client.get("/healthz", headers={"x-request-id": "abc-123"})
    assert given.headers["x-request-id"] == "abc-123"
    made = await client.get("/healthz", headers={"x-request-id": "bad id with spaces"})
    assert len(made.headers["x-request-id"]) == 32


async def test_access_logs_are_json_with_the_request_id(
    make_app: MakeApp, caplog: pytest.LogCaptureFixture
) -> None:
    async with connect(make_app(access_log=True)) as client:
        with caplog.at_level(logging.INFO, logger="manhattan.access"):
            await client.get("/v1/rules", headers={"x-request-id": "req-7"})
    record = next(r for r in caplog.records if r.name == "manhattan.access")
    line = json.loads(JsonFormatter().format(record))
    assert line["path"] == "/v1/rules" and line["status"] == 200 and "ms" in line
    # the request id is a context variable: reset once the request is done
    assert line["requestId"] == "-" or line["requestId"] == "req-7"


async def test_strict_mode_accepts_only_tokens_and_ids(
    make_app: MakeApp, mid_json: dict[str, Any]
) -> None:
    async with connect(make_app(strict_states=True)) as client:
        refused = await client.post("/v1/legal-moves", json={"state": mid_json})
        assert (refused.status_code, refused.json()["code"]) == (403, "STATE_JSON_REFUSED")
        seat = {"Manhattan-Player": "0"}
        game = (await client.post("/v1/games", json={"players": 2}, headers=seat)).json()
        assert "state" not in game and "stateId" not in game and game["token"]
        by_token = await client.post("/v1/legal-moves", json={"state": {"token": game["token"]}})
        assert by_token.status_code == 200 and by_token.json()["moves"]


@pytest.mark.redis
async def test_replicas_share_states_through_redis(
    make_app: MakeApp, redis_url: str, mid_state: manhattan.State, mid_json: dict[str, Any]
) -> None:
    key = SealingKey.generate("shared").to_text()
    one, two = (
        make_app(redis_url=redis_url, token_key=key),
        make_app(redis_url=redis_url, token_key=key),
    )
    async with connect(one) as first, connect(two) as second:
        stored = (await first.post("/v1/states", json={"state": mid_json})).json()
        for ref in ({"id": stored["stateId"]}, {"token": stored["token"]}):
            answer = await second.post("/v1/legal-moves", json={"state": ref})
            assert answer.json()["moves"] == [m.to_json() for m in manhattan.legal_moves(mid_state)]
        assert (await second.get("/readyz")).json()["cache"] == {"backend": "redis", "ok": True}
    for app in (one, two):
        await app.state.operations.cache.close()


@pytest.mark.redis
async def test_redis_stopped_mid_test(
    make_app: MakeApp, redis_server: RedisServer, mid_json: dict[str, Any]
) -> None:
    settings = {"redis_url": redis_server.url, "redis_timeout": 0.2, "redis_retry_after": 0.2}
    writer, reader = make_app(**settings), make_app(**settings)
    async with connect(writer) as w, connect(reader) as r:
        stored = (await w.post("/v1/states", json={"state": mid_json})).json()
        redis_server.stop()
        # a request that carries its state is served
        inline = await r.post(
            "/v1/apply", json={"state": mid_json, "move": stored and "s0:1,1,1,1"}
        )
        assert inline.status_code in (200, 422) and inline.json().get("code") != "STORE_UNAVAILABLE"
        assert (await r.post("/v1/score", json={"state": mid_json})).status_code == 200
        # a request that only names an id gets a clear 503 with a code
        by_id = await r.post("/v1/score", json={"state": {"id": stored["stateId"]}})
        assert (by_id.status_code, by_id.json()["code"]) == (503, "STORE_UNAVAILABLE")
        assert by_id.headers["retry-after"] == "1"
        ready = (await r.get("/readyz")).json()
        assert ready["status"] == "degraded" and ready["cache"]["ok"] is False

        redis_server.start()  # empty: nothing persisted
        deadline = time.monotonic() + 5
        while (await r.get("/readyz")).json()["status"] != "ready":
            assert time.monotonic() < deadline, "the service did not recover by itself"
            await anyio.sleep(0.05)
        lost = await r.post("/v1/score", json={"state": {"id": stored["stateId"]}})
        assert (lost.status_code, lost.json()["code"]) == (404, "STATE_NOT_FOUND")
        again = (await r.post("/v1/states", json={"state": mid_json})).json()
        assert (
            await w.post("/v1/score", json={"state": {"id": again["stateId"]}})
        ).status_code == 200
    for app in (writer, reader):
        await app.state.operations.cache.close()
