"""A local stream's doorbell (``Listener``), rung by the hub, and the transport's side of a stream
(``Hangup``), called when its client is gone."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from manhattan.live.push import Push
from manhattan.tables.tokens import Bearer


class Listener:
    """A local stream's doorbell, rung with the newest version heard of, when its heartbeat is
    due (by the hub's one shared timer), or when its client hung up. Small on purpose (one per
    open stream): no event, no queue, no timer of its own; a future only while it waits."""

    __slots__ = (
        "_waiter",
        "bearer",
        "beat_at",
        "client",
        "delivering",
        "direct",
        "due",
        "gone",
        "heartbeat",
        "rung",
        "sent",
        "sink",
        "spectator",
        "table_id",
        "version",
    )

    def __init__(
        self,
        heartbeat: float,
        table_id: str = "",
        client: str | None = None,
        spectator: bool = False,
    ) -> None:
        self.table_id, self.client, self.spectator = table_id, client, spectator
        self.version = 0
        self.heartbeat = heartbeat
        self.beat_at = time.monotonic() + heartbeat
        self.rung = False
        self.due = False
        self.gone = False
        self._waiter: asyncio.Future[None] | None = None
        #: The newest version this stream has written (-1: not open yet); ``delivering``
        #: while the stream itself writes, after a wake.
        self.sent = -1
        self.delivering = False
        #: Once the stream is open (``direct``), the hub may write changes for ``bearer`` (None:
        #: a public spectator) straight to ``sink`` (``fanout.py``), which answers False when
        #: it cannot now.
        self.direct = False
        self.bearer: Bearer | None = None
        self.sink: Callable[[Push], bool] | None = None

    def ring(self, version: int) -> None:
        if version > self.version:
            self.version = version
        self.rung = True
        self._wake()

    def beat(self) -> None:
        """The heartbeat is due (the hub's timer)."""
        self.due = True
        self._wake()

    def hang_up(self) -> None:
        """The client is gone: the stream ends at its next wake, which is now."""
        self.gone = True
        self._wake()

    def next_beat(self) -> None:
        self.due = False
        self.beat_at = time.monotonic() + self.heartbeat

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def wait(self) -> None:
        """Until rung, due or gone (at once if one of them happened since the last wait)."""
        if self.rung or self.due or self.gone:
            return
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None


class Hangup:
    """The transport's side of a stream: called when the client hangs up, it ends the stream
    (the listener it is given once the stream opens wakes and the stream returns)."""

    __slots__ = ("gone", "listener")

    def __init__(self) -> None:
        self.gone = False
        self.listener: Listener | None = None

    def __call__(self) -> None:
        self.gone = True
        if self.listener is not None:
            self.listener.hang_up()
