"""Fairness between platform keys (DESIGN §10): a key whose receiver answers slowly (a 500
after seconds: an answer, so the receiver is never *failing*) holds at most its own share of
the worker's slots, and another key's deliveries go out at once beside it. Real receivers on
loopback, on both stores (a real SQLite file, a real Redis)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from manhattan.platforms.addresses import parse_allow
from manhattan.platforms.delivery import Deliverer, DeliverySettings
from manhattan.platforms.outbox import Delivery, Outbox
from tests.platforms.receiver import Receiver
from tests.platforms.test_outbox import Opener, opener

__all__ = ["opener"]  # the fixture: both stores

pytestmark = pytest.mark.anyio

SLOW_SECONDS = 3.0


@pytest.fixture
def slow_receiver() -> Iterator[Receiver]:
    found = Receiver(plan=["slow"] * 1000, hang_seconds=SLOW_SECONDS).start()
    yield found
    found.stop()


@pytest.fixture
def quick_receiver() -> Iterator[Receiver]:
    found = Receiver().start()
    yield found
    found.stop()


def aimed(key: str, table: str, receiver: Receiver) -> Delivery:
    return Delivery(f"msg_{table}_1", table, receiver.url, "whsec_AAAAAAAA", b"{}", key=key)


async def enqueue(outbox: Outbox, deliveries: list[Delivery]) -> None:
    for delivery in deliveries:
        await outbox.put_hook(delivery.table_id, b"hook")
    await outbox.enqueue_many([(d.table_id, 1, [(1, d)]) for d in deliveries])


async def test_a_keys_slow_receiver_uses_its_own_slots_only(
    opener: Opener, slow_receiver: Receiver, quick_receiver: Receiver
) -> None:
    outbox = opener()
    settings = DeliverySettings(
        timeout=SLOW_SECONDS + 2,
        backoff_base=0.3,
        lease_ms=30_000,
        concurrency=8,
        key_concurrency=2,
        poll=0.05,
    )
    deliverer = Deliverer(outbox, parse_allow(("127.0.0.0/8",)), settings)
    # The rival key has more tables than the worker has slots, all due first.
    await enqueue(outbox, [aimed("rival", f"rival{n}", slow_receiver) for n in range(20)])
    worker = asyncio.create_task(deliverer.run())
    try:
        started = time.monotonic()
        while len(slow_receiver.snapshot()) < 2:  # the rival's slots are taken
            assert time.monotonic() - started < 5
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)
        await enqueue(outbox, [aimed("club", f"club{n}", quick_receiver) for n in range(5)])
        deliverer.poke()
        enqueued = time.monotonic()
        while len(quick_receiver.delivered()) < 5:
            assert time.monotonic() - enqueued < SLOW_SECONDS, "the club waited for the rival"
            await asyncio.sleep(0.02)
        took = time.monotonic() - enqueued
        await asyncio.sleep(SLOW_SECONDS + 0.5)  # the rival's next attempts, after the first
    finally:
        worker.cancel()
        await deliverer.close()
    assert took < SLOW_SECONDS / 2, took
    # The rival never had more than its two slots: every attempt holds one for 3 s, so at
    # most two arrived within any 3 s (less a margin for a slot freed and taken at once).
    arrivals = sorted(r.at for r in slow_receiver.snapshot())
    window = SLOW_SECONDS * 0.9
    at_once = max(sum(1 for other in arrivals if at - window < other <= at) for at in arrivals)
    assert at_once <= 2, (at_once, arrivals)
    assert deliverer.deferred > 0
