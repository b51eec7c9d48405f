"""Subscriptions over graphql-transport-ws: a subscription that cannot open is refused with the
protocol's ``error`` message carrying ``extensions.code`` (README, Tables), never ``next`` +
``complete`` (which would say the stream began)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from websockets.asyncio.client import connect

from tests.tables.conftest import LiveServer, new_table, ok

pytestmark = pytest.mark.anyio

SUBSCRIBE = (
    "subscription($id: ID!, $ticket: String) "
    "{ tableEvents(id: $id, ticket: $ticket) { id event data } }"
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def first_answer(live: LiveServer, variables: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages for one subscription up to its first ``error``, ``complete`` or ``next``
    (and, after a ``next``, nothing more is read)."""
    url = live.url.replace("http", "ws") + "/graphql"
    got: list[dict[str, Any]] = []
    async with connect(url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init"}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        payload = {"query": SUBSCRIBE, "variables": variables}
        await ws.send(json.dumps({"id": "s", "type": "subscribe", "payload": payload}))
        while not got or got[-1]["type"] == "ping":
            got.append(json.loads(await asyncio.wait_for(ws.recv(), 5)))
        if got[-1]["type"] == "error":  # nothing may follow the refusal on this operation
            await ws.send(json.dumps({"type": "ping"}))
            got.append(json.loads(await asyncio.wait_for(ws.recv(), 5)))
    return [g for g in got if g["type"] != "ping"]


async def test_a_refused_subscription_is_the_protocols_error_message() -> None:
    async with LiveServer() as live:
        tid, _, (ann, _) = await new_table(live, 2)
        missing = await first_answer(live, {"id": "0" * 32})
        assert [m["type"] for m in missing] == ["error", "pong"]
        assert missing[0]["id"] == "s"
        assert missing[0]["payload"][0]["extensions"]["code"] == "TABLE_NOT_FOUND"
        bad = await first_answer(live, {"id": tid, "ticket": "forged"})
        assert bad[0]["type"] == "error"
        assert bad[0]["payload"][0]["extensions"]["code"] == "BAD_SEAT"
        ticket = ok(await ann.client.post(f"/v1/tables/{tid}/ticket"))["ticket"]
        opened = await first_answer(live, {"id": tid, "ticket": ticket})
        assert opened[0]["type"] == "next"
        assert opened[0]["payload"]["data"]["tableEvents"]["event"] == "snapshot"
        reused = await first_answer(live, {"id": tid, "ticket": ticket})  # tickets are single use
        assert reused[0]["type"] == "error"
        assert reused[0]["payload"][0]["extensions"]["code"] == "BAD_SEAT"
