"""The delivery worker (``platforms/delivery_process.py``): deliveries made by a process of
their own, from the same outbox, whatever the service's event loop is doing; a worker that
dies is replaced, and one whose service is gone exits."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from manhattan.platforms.addresses import parse_allow
from manhattan.platforms.delivery import DeliverySettings
from manhattan.platforms.delivery_process import DeliveryProcess, OutboxAddress, _Terminated
from manhattan.platforms.outbox import Outbox
from tests.platforms import worker_setups
from tests.platforms.receiver import Receiver
from tests.platforms.test_outbox_batches import aimed

pytestmark = pytest.mark.anyio

SETTINGS = DeliverySettings(timeout=2.0, backoff_base=1.0, lease_ms=1_500, poll=0.05)
ALLOW = parse_allow(("127.0.0.0/8",))


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver().start()
    yield found
    found.stop()


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def address(request: pytest.FixtureRequest, tmp_path: Path) -> OutboxAddress:
    if request.param == "sqlite":
        return OutboxAddress(data_path=tmp_path, claim_idle_ms=SETTINGS.lease_ms)
    url = request.getfixturevalue("redis_url")
    prefix = f"test:{uuid.uuid4().hex}"
    return OutboxAddress(redis_url=url, claim_idle_ms=SETTINGS.lease_ms, redis_prefix=prefix)


async def enqueue(outbox: Outbox, receiver: Receiver, tables: int, versions: int) -> set[str]:
    table_ids = [f"t{uuid.uuid4().hex[:8]}" for _ in range(tables)]
    batch = []
    for table in table_ids:
        await outbox.put_hook(table, b"hook")
        batch.append((table, versions, [aimed(table, v, receiver) for v in range(1, versions + 1)]))
    await outbox.enqueue_many(batch)
    return {f"msg_{t}_{v}" for t in table_ids for v in range(1, versions + 1)}


def arrived(receiver: Receiver, ids: set[str]) -> set[str]:
    return {r.id for r in receiver.delivered()} & ids


@contextlib.asynccontextmanager
async def running(address: OutboxAddress) -> AsyncIterator[tuple[Outbox, DeliveryProcess]]:
    """The outbox as the service holds it, and its worker, started (closed after)."""
    outbox = address.open()
    worker = DeliveryProcess(address, ALLOW, SETTINGS)
    worker.start()
    try:
        yield outbox, worker
    finally:
        await worker.close()
        await outbox.close()


async def test_deliveries_arrive_while_the_service_loop_is_blocked(
    address: OutboxAddress, receiver: Receiver
) -> None:
    async with running(address) as (outbox, worker):
        ids = await enqueue(outbox, receiver, tables=6, versions=4)
        worker.ring()
        # The service's loop does nothing for a while (flat out with moves, say): the worker's
        # loop is its own, so the deliveries go on.
        deadline = time.monotonic() + 20
        while arrived(receiver, ids) != ids and time.monotonic() < deadline:
            time.sleep(0.05)  # blocks this loop on purpose
        assert arrived(receiver, ids) == ids
        for table in {i.split("_")[1] for i in ids}:
            seen = [r.json["v"] for r in receiver.delivered() if r.id.split("_")[1] == table]
            assert seen == sorted(seen), seen  # a table's deliveries in order
        process = worker._process
    assert worker.started == 1
    assert process is not None and process.exitcode == 0  # closed: it kept its outcomes


async def test_a_killed_worker_is_replaced_and_its_claims_go_on(
    tmp_path: Path, receiver: Receiver
) -> None:
    address = OutboxAddress(data_path=tmp_path, claim_idle_ms=SETTINGS.lease_ms)
    async with running(address) as (outbox, worker):
        first = await enqueue(outbox, receiver, tables=2, versions=2)
        worker.ring()
        await wait_for(lambda: arrived(receiver, first) == first)
        assert worker._process is not None and worker._process.pid is not None
        os.kill(worker._process.pid, signal.SIGKILL)
        second = await enqueue(outbox, receiver, tables=3, versions=3)
        worker.ring()  # (into a dead worker's pipe: nothing breaks)
        await wait_for(lambda: arrived(receiver, second) == second)
        assert worker.started == 2


async def test_the_worker_exits_at_its_pipes_end_of_file(tmp_path: Path) -> None:
    """What the kernel does when the service dies: its end of the pipe closes."""
    address = OutboxAddress(data_path=tmp_path)
    worker = DeliveryProcess(address, ALLOW, SETTINGS)
    worker.start()
    process = worker._process
    assert process is not None
    await asyncio.sleep(0.5)
    worker._close_bell()
    await asyncio.to_thread(process.join, 10)
    assert process.exitcode == 0
    await worker.close()  # and closing after that is quiet


async def test_sigterm_after_the_workers_loop_closed_still_ends_it_cleanly(
    tmp_path: Path,
) -> None:
    """``close`` rings the end of file, then sends SIGTERM: the worker may have closed its
    loop by then (its outcomes kept) and be on its way out. That exit is still a clean one."""
    marker = tmp_path / "exiting"
    setup = functools.partial(worker_setups.slow_exit, marker, 3.0)
    worker = DeliveryProcess(OutboxAddress(data_path=tmp_path), ALLOW, SETTINGS, setup)
    worker.start()
    process = worker._process
    assert process is not None and process.pid is not None
    await asyncio.sleep(0.5)
    worker._close_bell()  # its loop ends and closes; then it lingers at its exit
    await wait_for(marker.exists)
    os.kill(process.pid, signal.SIGTERM)
    await asyncio.to_thread(process.join, 10)
    assert process.exitcode == 0
    await worker.close()


async def test_sigterm_while_the_worker_starts_ends_it_at_once(tmp_path: Path) -> None:
    worker = DeliveryProcess(OutboxAddress(data_path=tmp_path), ALLOW, SETTINGS)
    worker.start()
    process = worker._process
    assert process is not None
    started = time.monotonic()
    await worker.close()  # at once, while it still imports
    assert time.monotonic() - started < 3.0
    # Ended by SIGTERM's default before the worker's own code ran, or by its handler after:
    # nothing to keep either way.
    assert process.exitcode in (0, -signal.SIGTERM)


async def wait_for(done: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "not in time"
        await asyncio.sleep(0.05)


async def test_a_worker_that_keeps_dying_is_restarted_less_and_less_often(
    tmp_path: Path,
) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")  # the outbox cannot be opened there: each worker dies at start
    worker = DeliveryProcess(OutboxAddress(data_path=blocked), ALLOW, SETTINGS)
    worker.start()
    try:
        await asyncio.sleep(10.0)
        # Each worker lives a second or two (its imports); restarted at once, some 5 or 6 in
        # 10 s; with the pause doubling (1, 2, 4 s), 3.
        assert 2 <= worker.started <= 3, worker.started
    finally:
        await worker.close()


async def test_a_finished_worker_ignores_sigterm_through_the_interpreters_end() -> None:
    """The interpreter's finalization gives a Python handler back to the default (death by
    SIGTERM) but leaves an ignored signal ignored: once the work is over, SIGTERM is ignored."""
    before = signal.getsignal(signal.SIGTERM)
    try:
        terminated = _Terminated()
        signal.signal(signal.SIGTERM, terminated)
        terminated.over()
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
        os.kill(os.getpid(), signal.SIGTERM)  # ignored: this test goes on
    finally:
        signal.signal(signal.SIGTERM, before)
