"""The outbox's batches on both stores (real SQLite files, a real Redis): a claim takes runs of
many tables in one step, in version order, and keeps each table claimed while its run is sent;
outcomes of many tables are kept in one step; a dead worker's run passes on after its lease,
from the first delivery not kept as done (at least once); and the deliverer, against real
receivers, keeps every table's order while a receiver that never answers holds few slots."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from manhattan.platforms.addresses import parse_allow
from manhattan.platforms.delivery import Deliverer, DeliverySettings
from manhattan.platforms.outbox import Delivery, Outbox
from tests.platforms.receiver import Receiver
from tests.platforms.test_outbox import Opener, item, now, opener

__all__ = ["opener"]  # the fixture: both stores

pytestmark = pytest.mark.anyio


def versions(runs: list[list[Delivery]]) -> dict[str, list[str]]:
    return {run[0].table_id: [d.id for d in run] for run in runs}


async def test_a_claim_takes_runs_of_many_tables_in_order_and_keeps_them_claimed(
    opener: Opener,
) -> None:
    outbox, other = opener(), opener()  # two workers on one outbox
    for table in ("a", "b", "c"):
        await outbox.put_hook(table, b"hook")
    added = await outbox.enqueue_many(
        [
            ("a", 4, [item("a", v) for v in (1, 2, 3, 4)]),
            ("b", 2, [item("b", 1), item("b", 2)]),
            ("c", 1, [item("c", 1)]),
            ("nohook", 1, [item("nohook", 1)]),
        ]
    )
    assert added == [4, 2, 1, 0]
    runs = await outbox.claim_runs(now(), 60_000, 10, 3)
    assert versions(runs) == {
        "a": ["msg_a_1", "msg_a_2", "msg_a_3"],
        "b": ["msg_b_1", "msg_b_2"],
        "c": ["msg_c_1"],
    }
    assert await other.claim_runs(now(), 60_000, 10, 3) == []  # every table is claimed
    by_table = {run[0].table_id: run for run in runs}
    a, b, c = by_table["a"], by_table["b"], by_table["c"]
    # one step: a's first went and its run goes on, c is done, b's first failed
    await outbox.finish([c[0]], [(b[0], now() + 300)], now(), [a[0]])
    assert await other.claim_runs(now(), 60_000, 10, 3) == []  # a still claimed, b not due
    await outbox.finish([a[1]], [], now())  # a's run ends after its second
    assert versions(await other.claim_runs(now(), 60_000, 10, 3)) == {"a": ["msg_a_3", "msg_a_4"]}
    time.sleep(0.35)
    again = await other.claim_runs(now(), 60_000, 10, 3)
    assert versions(again) == {"b": ["msg_b_1", "msg_b_2"]}  # b's run, from its failed head
    assert await outbox.waiting() == 4  # a3, a4, b1, b2


async def test_a_dead_workers_run_passes_on_after_its_lease_from_what_was_not_kept(
    opener: Opener,
) -> None:
    dead = opener()
    await dead.put_hook("d", b"hook")
    await dead.enqueue("d", 3, [item("d", v) for v in (1, 2, 3)])
    run = await dead.claim_runs(now(), 1_000, 10, 3)
    assert versions(run) == {"d": ["msg_d_1", "msg_d_2", "msg_d_3"]}
    await dead.finish([], [], now(), [run[0][0]])  # the first kept as done, then it died
    await dead.close()  # (mid-attempt on the second: its outcome never kept)
    live = opener()
    assert await live.claim_runs(now(), 60_000, 10, 3) == []  # the lease still holds
    time.sleep(1.1)
    taken = await live.claim_runs(now(), 60_000, 10, 3)
    assert versions(taken) == {"d": ["msg_d_2", "msg_d_3"]}  # the second again: at least once


async def test_a_whole_runs_outcomes_in_one_batch_leave_nothing_to_send_again(
    opener: Opener,
) -> None:
    outbox = opener()
    await outbox.put_hook("r", b"hook")
    await outbox.enqueue("r", 3, [item("r", v) for v in (1, 2, 3)])
    await outbox.put_hook("s", b"hook")
    await outbox.enqueue("s", 2, [item("s", 1), item("s", 2)])
    runs = {run[0].table_id: run for run in await outbox.claim_runs(now(), 60_000, 10, 3)}
    r, s = runs["r"], runs["s"]
    # every one sent in a row, their outcomes kept together: the ends given first
    await outbox.finish([r[2]], [(s[1], now() + 60_000)], now(), [r[0], r[1], s[0]])
    assert await outbox.claim_runs(now(), 60_000, 10, 3) == []  # r is done, s not due yet
    assert await outbox.waiting() == 1  # s's second, to be tried again


@pytest.fixture
def live_receiver() -> Iterator[Receiver]:
    found = Receiver().start()
    yield found
    found.stop()


@pytest.fixture
def dead_receiver() -> Iterator[Receiver]:
    found = Receiver(plan=["hang"] * 1000, hang_seconds=30.0).start()
    yield found
    found.stop()


async def test_deliveries_keep_each_tables_order_while_a_dead_receiver_holds_few_slots(
    opener: Opener, live_receiver: Receiver, dead_receiver: Receiver
) -> None:
    outbox: Outbox = opener()
    settings = DeliverySettings(
        timeout=0.5,
        backoff_base=0.2,
        lease_ms=5_000,
        concurrency=6,
        failing_target_concurrency=2,
        run=4,
        poll=0.05,
    )
    deliverer = Deliverer(outbox, parse_allow(("127.0.0.0/8",)), settings)
    batch = []
    for n in range(12):  # more tables for the dead receiver than there are slots
        table = f"dead{n}"
        await outbox.put_hook(table, b"hook")
        batch.append((table, 1, [aimed(table, 1, dead_receiver)]))
    for n in range(8):
        table = f"live{n}"
        await outbox.put_hook(table, b"hook")
        batch.append((table, 6, [aimed(table, v, live_receiver) for v in range(1, 7)]))
    await outbox.enqueue_many(batch)
    started = time.monotonic()
    worker = asyncio.create_task(deliverer.run())
    try:
        while len({r.id for r in live_receiver.delivered()}) < 48:
            assert time.monotonic() - started < 20, len(live_receiver.delivered())
            await asyncio.sleep(0.05)
        took = time.monotonic() - started
        while len(after_the_first(dead_receiver, 2 * settings.timeout)) < 3:  # tried again
            assert time.monotonic() - started < 20, len(dead_receiver.snapshot())
            await asyncio.sleep(0.05)
    finally:
        worker.cancel()
        await deliverer.close()
    arrived: dict[str, list[int]] = {}
    for received in live_receiver.delivered():
        table = received.id.split("_")[1]
        arrived.setdefault(table, []).append(received.json["v"])
    for table, seen in arrived.items():
        assert seen == sorted(seen), (table, seen)  # version order; a repeat only in order
        assert set(seen) == set(range(1, 7)), (table, seen)
    assert took < 10, took
    # Every dead attempt lasts its 0.5 s timeout. The first round (the dead receiver's tables
    # come first) does not know the receiver yet: six attempts at once, and more may start
    # before three have gone unanswered; those are over a timeout later. After them, its
    # tables wait their turn, at most two attempts at once, while the others go on.
    # Arrival times, not start times: an attempt that began right as another timed out may
    # arrive a little less than a timeout after it (its connect was quicker), so attempts
    # count as at once when they arrived within 0.8 of a timeout of each other.
    later = after_the_first(dead_receiver, 2 * settings.timeout)
    window = 0.8 * settings.timeout
    at_once = max(sum(1 for o in later if t - window < o <= t) for t in later)
    assert 0 < at_once <= 2, (at_once, later)
    assert deliverer.deferred > 0 and deliverer.failures > 0


def after_the_first(receiver: Receiver, seconds: float) -> list[float]:
    """The arrival times of the requests that came more than ``seconds`` after the first."""
    arrivals = sorted(r.at for r in receiver.snapshot())
    return [at for at in arrivals if at > arrivals[0] + seconds] if arrivals else []


def aimed(table: str, version: int, receiver: Receiver) -> tuple[int, Delivery]:
    body = f'{{"v":{version}}}'.encode()
    delivery = Delivery(f"msg_{table}_{version}", table, receiver.url, "whsec_AAAAAAAA", body)
    return version, delivery
