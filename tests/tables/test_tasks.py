"""Stopping a component's background tasks (``tables/tasks.py``): every task ends, also one
whose first cancel is lost to a loop that retries on a failure, and the closing never waits
forever on one that will not end."""

from __future__ import annotations

import asyncio
import logging

import pytest

from manhattan.tables import tasks
from manhattan.tables.tasks import stop_tasks

pytestmark = pytest.mark.anyio


async def _retrying(cancels_lost: int, ran: list[int]) -> None:
    """A loop that, like one around a client library's read, takes a cancel for a failure and
    tries again, ``cancels_lost`` times."""
    while True:
        try:
            ran.append(1)
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            if cancels_lost == 0:
                raise
            cancels_lost -= 1


async def test_a_task_whose_cancel_is_lost_is_cancelled_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tasks, "RECANCEL_SECONDS", 0.05)
    ran: list[int] = []
    plain = asyncio.create_task(asyncio.sleep(3600))
    stubborn = asyncio.create_task(_retrying(2, ran))
    await asyncio.sleep(0)
    await asyncio.wait_for(stop_tasks([plain, stubborn]), 5)
    assert plain.cancelled() and stubborn.cancelled()
    assert len(ran) == 3  # two cancels lost, the third taken


async def test_a_task_that_never_ends_is_left_after_the_last_cancel(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(tasks, "RECANCEL_SECONDS", 0.02)
    ran: list[int] = []
    endless = asyncio.create_task(_retrying(tasks.CANCELS + 5, ran), name="endless")
    await asyncio.sleep(0)
    with caplog.at_level(logging.WARNING, "manhattan.tables"):
        await asyncio.wait_for(stop_tasks([endless]), 5)
    assert not endless.done() and len(ran) == tasks.CANCELS + 1
    assert any("did not stop" in r.getMessage() for r in caplog.records)
    endless.cancel()  # the rest of its lost cancels, then it ends
    for _ in range(10):
        endless.cancel()
        await asyncio.sleep(0)
    assert endless.done()


async def test_what_a_task_raised_on_its_way_out_is_dropped() -> None:
    async def failing() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            raise RuntimeError("on the way out")

    task = asyncio.create_task(failing())
    await asyncio.sleep(0)
    await stop_tasks([task])
    assert task.done() and isinstance(task.exception(), RuntimeError)
