"""Fairness between platform keys (DESIGN §10): a key whose receiver answers slowly (a 500
after seconds: an answer, so the receiver is never *failing*) holds at most its own share of
the worker's slots, and another key's deliveries go out at once beside it. Real receivers on
loopback, on both stores (a real SQLite file, a real Redis)."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from manhattan.platforms.addresses import parse_allow
from manhattan.platforms.delivery import Deliverer, DeliverySettings
from manhattan.platforms.outbox import Delivery, Outbox
from manhattan.platforms.outbox_sqlite import SqliteOutbox
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


async def club_latencies(
    outbox: Outbox, key_concurrency: int | None, seconds: float
) -> list[float]:
    """DESIGN §10's shares at scale: a rival key's 1,000 tables whose receiver answers 500
    after 4.5 s, and the club's deliveries, ten a second to a receiver that answers at once,
    under the service's own delivery settings but ``key_concurrency`` (None: the service's
    too): the club's delivery latencies (seconds from enqueue to arrival)."""
    slow = Receiver(plan=["slow"] * 100_000, hang_seconds=4.5).start()
    quick = Receiver().start()
    settings = DeliverySettings(timeout=5.0, backoff_base=1.0, lease_ms=30_000)
    if key_concurrency is not None:
        settings = replace(settings, key_concurrency=key_concurrency)
    deliverer = Deliverer(outbox, parse_allow(("127.0.0.0/8",)), settings)
    await enqueue(outbox, [aimed("rival", f"rival{n}", slow) for n in range(1000)])
    worker = asyncio.create_task(deliverer.run())
    sent: dict[str, float] = {}
    try:
        await asyncio.sleep(2.0)  # the rival's attempts under way
        for n in range(int(seconds * 10)):
            delivery = aimed("club", f"club{n}", quick)
            await enqueue(outbox, [delivery])
            sent[delivery.id] = time.time()
            deliverer.poke()
            await asyncio.sleep(0.1)
        deadline = time.monotonic() + 30
        while len(quick.delivered()) < len(sent) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    finally:
        worker.cancel()
        await deliverer.close()
        slow.stop()
        quick.stop()
    return [r.at - sent[r.id] for r in quick.delivered()]


@pytest.mark.slow
async def test_shares_at_scale_keep_the_club_quick_beside_a_slow_rival(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both runs on a fresh outbox in the data directory (the embedded default's)."""
    outboxes = [SqliteOutbox(tmp_path / name) for name in ("one-pool", "shares")]
    try:
        shared = await club_latencies(outboxes[0], 10_000, 20)  # no share: as before them
        fair = await club_latencies(outboxes[1], None, 20)
    finally:
        for outbox in outboxes:
            await outbox.close()
    with capsys.disabled():
        for name, got in (("one pool", shared), ("shares", fair)):
            q = statistics.quantiles(got, n=100)
            print(
                f"\n{name}: {len(got)} club deliveries, p50 {q[49] * 1000:.0f} ms, "
                f"p99 {q[98] * 1000:.0f} ms, max {max(got) * 1000:.0f} ms"
            )
    assert len(fair) == 200 and statistics.median(fair) < 0.1, statistics.median(fair)
