"""Making deliveries (DESIGN §10): a background task on the event loop, never on a move's path.

The worker claims the heads of the tables' queues (``outbox.py``), sends each as a ``POST``
with the Standard Webhooks headers (signed for this attempt's timestamp) and, on a 2xx, marks it
done, which frees the table's next one; anything else (an error status, a refused address, a
timeout, a reset) is tried again after an exponential backoff, for ``retry_seconds`` (3 days by
default, DESIGN: at least 24 hours), then dropped with a warning. Before each attempt the host
is resolved and checked (``addresses.py``) and the request goes to the checked address.
Redirects are not followed (a 3xx is a failure), the answer's body is read up to
``MAX_ANSWER_BYTES``, and an attempt has a short timeout: a slow receiver holds one of
``concurrency`` slots for at most that long, and never a move.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import random
import time
from dataclasses import dataclass

from .addresses import Network, check
from .errors import PlatformError
from .outbox import Delivery, Outbox
from .signing import headers
from .webhook_client import WebhookClient

log = logging.getLogger("manhattan.platforms.webhooks")

MAX_ANSWER_BYTES = 64 * 1024


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class DeliverySettings:
    timeout: float = 5.0
    #: First retry after ``backoff_base`` seconds, doubling up to ``backoff_cap``.
    backoff_base: float = 1.0
    backoff_cap: float = 3600.0
    retry_seconds: float = 3 * 86_400.0
    #: Milliseconds a claim lasts: a dead worker's claims go to another after this.
    lease_ms: int = 30_000
    concurrency: int = 64
    #: Seconds between looks at the outbox when nothing pokes the worker.
    poll: float = 0.25

    def backoff(self, attempts: int) -> float:
        delay: float = min(self.backoff_cap, self.backoff_base * 2 ** max(0, attempts - 1))
        return delay * random.uniform(0.8, 1.0)


class Deliverer:
    def __init__(
        self,
        outbox: Outbox,
        allow: tuple[Network, ...],
        settings: DeliverySettings | None = None,
    ) -> None:
        self.outbox = outbox
        self.allow = allow
        self.settings = settings or DeliverySettings()
        self._wake = asyncio.Event()
        self._slots = asyncio.Semaphore(self.settings.concurrency)
        self._running: set[asyncio.Task[None]] = set()
        self._sending: set[str] = set()  # ids of the deliveries being attempted here
        self.client = WebhookClient(self.settings.timeout, max_body=MAX_ANSWER_BYTES)
        #: Seconds from an event's timestamp to its successful delivery (the bench reads it).
        self.latencies: list[float] = []
        self.delivered = 0
        self.failures = 0

    def poke(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        while True:
            self._wake.clear()
            try:
                found = await self.round()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the store is down: try again on the next round
                log.warning("webhook outbox unavailable: %r", exc)
                found = 0
            if found < self.settings.concurrency // 2:  # no backlog: wait for news
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.settings.poll)

    async def round(self) -> int:
        free = self.settings.concurrency - len(self._running)
        if free <= 0:
            await asyncio.wait(set(self._running), return_when=asyncio.FIRST_COMPLETED)
            return 1
        claimed = await self.outbox.claim(now_ms(), self.settings.lease_ms, free)
        for delivery in claimed:
            if delivery.id in self._sending:  # our own claim ran out mid-attempt: renewed
                continue
            task = asyncio.create_task(self._send(delivery))
            self._running.add(task)
            task.add_done_callback(self._running.discard)
        return len(claimed)

    async def _send(self, delivery: Delivery) -> None:
        self._sending.add(delivery.id)
        try:
            await self._send_once(delivery)
        finally:
            self._sending.discard(delivery.id)

    async def _send_once(self, delivery: Delivery) -> None:
        async with self._slots:
            started = now_ms()
            try:
                ok = await self.attempt(delivery)
            except PlatformError as exc:
                log.warning(
                    "webhook address refused",
                    extra={"table": delivery.table_id, "error": exc.message},
                )
                ok = False
            if delivery.first_at == 0:
                delivery.first_at = started
            if ok:
                self.delivered += 1
                await self.outbox.done(delivery, now_ms())
                self.poke()  # the table's next delivery may go now
                return
            self.failures += 1
            delivery.attempts += 1
            if now_ms() - delivery.first_at > self.settings.retry_seconds * 1000:
                log.warning(
                    "webhook dropped after retrying",
                    extra={"table": delivery.table_id, "webhookId": delivery.id},
                )
                await self.outbox.done(delivery, now_ms())
                return
            next_at = now_ms() + int(self.settings.backoff(delivery.attempts) * 1000)
            await self.outbox.retry(delivery, next_at)

    async def attempt(self, delivery: Delivery) -> bool:
        """One POST to the checked address: True on a 2xx."""
        target = await check(delivery.url, self.allow)
        timestamp = int(time.time())
        request_headers = headers(delivery.secret, delivery.id, timestamp, delivery.body)
        try:
            status = await self.client.post(target, request_headers, delivery.body)
        except (OSError, TimeoutError) as exc:
            log.info(
                "webhook attempt failed", extra={"table": delivery.table_id, "error": repr(exc)}
            )
            return False
        if 200 <= status < 300:
            self._record_latency(delivery)
            return True
        return False

    def _record_latency(self, delivery: Delivery) -> None:
        sent = _event_ms(delivery.body)
        if sent:
            self.latencies.append((now_ms() - sent) / 1000)
            del self.latencies[:-100_000]

    async def close(self) -> None:
        for task in list(self._running):
            task.cancel()
        for task in list(self._running):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.client.close()


def _event_ms(body: bytes) -> int:
    """The event's time in ms, from the body's ``"timestamp"`` (ISO 8601 with milliseconds)."""
    try:
        text = body.split(b'"timestamp":"', 1)[1].split(b'"', 1)[0].decode()
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (IndexError, ValueError):
        return 0
    return int(moment.timestamp() * 1000)
