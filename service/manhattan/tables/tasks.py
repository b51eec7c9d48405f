"""Stopping the background tasks a component started (the table runtime, the webhooks), when
it closes."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from typing import Any


async def stop_tasks(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Cancel every task, then wait for each to end. What a task raises on its way out is
    dropped: the component is closing and nobody is left to tell."""
    stopping = list(tasks)
    for task in stopping:
        task.cancel()
    for task in stopping:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
