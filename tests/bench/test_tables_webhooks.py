"""``manhattan bench tables --webhooks``: its receiver, in a process of its own, hands the bench
what it got (latencies, distinct webhook ids, requests) whole when stopped."""

from __future__ import annotations

import datetime

import pytest

from manhattan.bench.tables_webhooks import ReceiverProcess
from manhattan.http_client import Connection

pytestmark = pytest.mark.anyio


async def test_the_receivers_deliveries_reach_the_bench_whole() -> None:
    receiver = await ReceiverProcess().start()
    try:
        connection = Connection(f"http://127.0.0.1:{receiver.port}", timeout=10.0)
        sent = datetime.datetime.now(datetime.UTC).isoformat().replace("+00:00", "Z")
        body = f'{{"type":"table.turn","timestamp":"{sent}"}}'.encode()
        try:
            for webhook_id in ("msg_1", "msg_1", "msg_2"):
                reply = await connection.request("POST", "/hook", body, {"webhook-id": webhook_id})
                assert reply.status == 204
        finally:
            await connection.aclose()
    finally:
        await receiver.stop()
    got = receiver.got
    assert (got.requests, got.ids) == (3, {"msg_1", "msg_2"})
    assert len(got.latencies) == 3 and all(0.0 <= s < 10.0 for s in got.latencies)
