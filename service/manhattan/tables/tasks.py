"""Stopping the background tasks a component started (the table runtime, the driver, the
webhooks), when it closes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from typing import Any

log = logging.getLogger("manhattan.tables")

#: How long a cancelled task has to end before it is cancelled again.
RECANCEL_SECONDS = 1.0
#: How many times it is cancelled before the closing goes on without it.
CANCELS = 10


async def stop_tasks(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Cancel every task, then wait for each to end. What a task raises on its way out is
    dropped: the component is closing and nobody is left to tell.

    A task still running a second after its cancel is cancelled again: a cancel can be lost
    (Python 3.11's ``asyncio.wait_for`` returns the result of a future that finishes as the
    cancel arrives; a loop that retries on any failure can take a cancel turned into one for
    another), and one cancel would then leave the service's shutdown waiting forever. After
    ``CANCELS`` the closing goes on without it."""
    stopping = list(tasks)
    pending = {task for task in stopping if not task.done()}
    for _ in range(CANCELS):
        if not pending:
            break
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=RECANCEL_SECONDS)
    if pending:
        names = sorted(task.get_name() for task in pending)
        log.warning("tasks did not stop when cancelled", extra={"tasks": names})
    for task in stopping:
        if task.done() and not task.cancelled():
            task.exception()  # retrieved, so asyncio does not log it as never retrieved
