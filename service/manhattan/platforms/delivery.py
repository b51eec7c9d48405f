"""Making deliveries (DESIGN §10): a background task on the event loop, never on a move's path.

Each claim round takes, in one step of the outbox (``outbox.py``), the due heads of as many
tables as there are free slots (``concurrency``), each with a *run* of the deliveries queued
behind it (``run``, fewer when the lease is short), the table claimed for them all. A slot
sends its run in order, each as a ``POST`` with the Standard Webhooks headers (signed for this
attempt's timestamp), the next only after the one before it got a 2xx, so a table's next
delivery never waits for a claim round. Anything but a 2xx (an error status, a refused address,
a timeout, a reset) ends the run: that delivery is tried again after an exponential backoff,
for ``retry_seconds`` (3 days by default, DESIGN: at least 24 hours), then dropped with a
warning, and the table's claim is freed. The outcomes are kept by the next claim round, in
its one step, before it claims: every outcome that came in meanwhile, so a table whose run
ended may go again in that same step (one round trip to Redis, not two, each waiting for a busy
event loop). Until an outcome is kept the claim holds, so a crash in between only repeats
deliveries, in order (at least once, the same ``webhook-id``); a dead replica's claims run out
after the lease.

A receiver that gave no answer (timeout, refused, reset) ``failing_after`` times in a row is
*failing* until it answers again (one slow answer of a busy receiver is not enough), and then
holds at most ``failing_target_concurrency`` slots: its other claimed tables are put
back for about a second without counting an attempt, so one dead receiver never takes the claim
rounds from the others. Likewise each platform key holds at most ``key_concurrency`` slots,
whatever its receivers do: a key whose receiver answers slowly (an error after seconds, say)
waits on its own slots, and another key's deliveries find free ones. Any failure of an attempt,
expected or not, is a failed attempt with its backoff: an outcome is always kept, so a claim
never stays held by a delivery that cannot be made. Before each attempt the host is resolved
and checked (``addresses.py``) and the request goes to the checked address. Redirects are not
followed (a 3xx is a failure), the answer's body is read up to ``MAX_ANSWER_BYTES``, and an
attempt has a short timeout: a slow receiver holds a slot for at most that long, and never a
move.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import random
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from manhattan.platforms.addresses import Network, check
from manhattan.platforms.errors import PlatformError
from manhattan.platforms.outbox import Delivery, Outbox, Outcomes
from manhattan.platforms.signing import headers
from manhattan.platforms.webhook_client import WebhookClient
from manhattan.settings import Settings

log = logging.getLogger("manhattan.platforms.webhooks")

MAX_ANSWER_BYTES = 64 * 1024
#: Outcomes kept in one step of the outbox, at most.
KEEP_BATCH = 500
#: Receivers (``host:port``) remembered for their health, at most (idle ones are forgotten).
MAX_TARGETS = 10_000
#: Outcomes: done (the table's claim freed), done with the run going on (the claim kept), and
#: failed (again at its ``next_at``, the claim freed).
DONE, GOING_ON, LATER = "done", "going on", "later"


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeliverySettings:
    """How deliveries are made. The last three are the service's settings, without defaults of
    their own here (``from_settings``)."""

    #: Retries go on for ``retry_seconds``, ``backoff_base`` (below) doubling up to this.
    backoff_cap: float = 3600.0
    retry_seconds: float = 3 * 86_400.0
    #: Attempts in flight in this process, at most (the claim rounds ask for as many).
    concurrency: int = 256
    #: Attempts in flight to one receiver whose last attempt got no answer (timed out, refused,
    #: reset), until one is answered: a dead receiver holds this many slots, not all.
    failing_target_concurrency: int = 4
    #: Attempts in a row without an answer that make a receiver failing.
    failing_after: int = 3
    #: Attempts in flight for one platform key's tables, at most (``webhook_key_concurrency``
    #: in the service's settings): fairness between keys.
    key_concurrency: int = 64
    #: Deliveries of one table claimed together and sent one after the other, at most (fewer
    #: when the lease is short: see ``Deliverer.run_length``).
    run: int = 8
    #: Seconds between looks at the outbox when nothing pokes the worker.
    poll: float = 0.25
    #: Seconds a woken worker waits for more news before its claim round: under load one round
    #: keeps and claims for many tables in one transaction, and the worker wakes less often
    #: (fewer context switches taken from the service on a small machine).
    gather: float = 0.02

    # -- from the service's settings (``from_settings``) -------------------------------------
    #: Seconds one attempt may take (``webhook_timeout``).
    timeout: float
    #: First retry after this many seconds (``webhook_retry_seconds``).
    backoff_base: float
    #: Milliseconds a claim lasts: a dead worker's claims go to another after this
    #: (``webhook_lease_seconds``).
    lease_ms: int

    @classmethod
    def from_settings(cls, settings: Settings) -> DeliverySettings:
        return cls(
            timeout=settings.webhook_timeout,
            backoff_base=settings.webhook_retry_seconds,
            lease_ms=int(settings.webhook_lease_seconds * 1000),
            key_concurrency=settings.webhook_key_concurrency,
        )

    def backoff(self, attempts: int) -> float:
        delay: float = min(self.backoff_cap, self.backoff_base * 2 ** max(0, attempts - 1))
        return delay * random.uniform(0.8, 1.0)


@dataclass(slots=True)
class _Target:
    """A receiver (``host:port``) as this process sees it."""

    sending: int = 0
    #: Attempts in a row that got no answer (any answer, even an error status, resets it).
    unanswered: int = 0


class Deliverer:
    def __init__(
        self,
        outbox: Outbox,
        allow: tuple[Network, ...],
        settings: DeliverySettings | None = None,
    ) -> None:
        self.outbox = outbox
        self.allow = allow
        self.settings = settings or DeliverySettings.from_settings(Settings())
        self._wake = asyncio.Event()
        self._running: set[asyncio.Task[None]] = set()
        self._full = False  # the last claim round filled every free slot
        self._sending: set[str] = set()  # ids claimed here whose outcome is not yet kept
        self._targets: dict[str, _Target] = {}
        #: Runs in flight per platform key (a key at ``key_concurrency`` waits for its own).
        self._key_sending: dict[str, int] = {}
        #: Outcomes waiting to be kept, in order: (delivery, DONE | GOING_ON | LATER, next_at).
        self._outcomes: list[tuple[Delivery, str, int]] = []
        self.client = WebhookClient(
            self.settings.timeout,
            max_body=MAX_ANSWER_BYTES,
            idle_per_target=self.settings.concurrency,
        )
        #: Seconds from an event's timestamp to its successful delivery (the bench reads it).
        self.latencies: list[float] = []
        self.delivered = 0
        self.failures = 0
        self.deferred = 0
        self.flushes = 0

    def poke(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        while True:
            self._wake.clear()
            try:
                more = await self.round()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the store is down: try again (the leases hold)
                log.warning("webhook outbox unavailable", extra={"error": repr(exc)})
                more = False
            if not more:  # nothing more due, or every slot taken: wait for news
                await self._nap()
                await asyncio.sleep(self.settings.gather)

    async def _nap(self) -> None:
        """Until poked, or ``poll`` seconds. Not ``asyncio.wait_for``: on Python 3.11 it may
        swallow a cancellation that comes as the wait ends (a poke), and the closing service
        then waited for this task for ever."""
        waiter = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait({waiter}, timeout=self.settings.poll)
        finally:
            waiter.cancel()

    async def round(self) -> bool:
        """One step of the outbox (a transaction, one script): keep the outcomes that came in
        (a done table's next delivery may go at once), then claim the due heads of as many
        tables as there are free slots, each with a run of the table's next deliveries, and
        start sending them. Whether to go again at once: more may be due, or outcomes wait."""
        batch = self._outcomes[:KEEP_BATCH]
        outcomes = _outcomes_of(batch)
        free = self.settings.concurrency - len(self._running)
        now = now_ms()
        runs: list[list[Delivery]] = []
        if free > 0:
            lease = self.settings.lease_ms
            runs = await self.outbox.claim_runs(now, lease, free, self.run_length, outcomes)
        elif batch:  # every slot taken: only the outcomes (a finishing send pokes)
            await self.outbox.keep(outcomes)
        if batch:
            del self._outcomes[: len(batch)]
            self.flushes += 1
            for delivery, _, _ in batch:
                self._sending.discard(delivery.id)
        for run in runs:
            self._start(run, now)
        self._full = free <= 0 or len(runs) >= free
        return (0 < free <= len(runs)) or bool(self._outcomes)

    def _start(self, run: list[Delivery], now: int) -> None:
        if run[0].id in self._sending:  # our own claim ran out mid-attempt: renewed
            return
        target = self._target(run[0])
        key = run[0].key
        failing = target.unanswered >= self.settings.failing_after
        key_full = self._key_sending.get(key, 0) >= self.settings.key_concurrency
        if key_full or (failing and target.sending >= self.settings.failing_target_concurrency):
            # A receiver that gives no answer, and a key whatever its receivers do, hold few
            # slots: their tables wait (attempts unchanged) while the others' deliveries go on.
            self.deferred += 1
            self._sending.add(run[0].id)
            self._keep(run[0], LATER, now + int(self.settings.backoff(1) * 1000))
            return
        target.sending += 1
        self._key_sending[key] = self._key_sending.get(key, 0) + 1
        self._sending.update(d.id for d in run)
        task = asyncio.create_task(self._send_run(run, target, now))
        self._running.add(task)
        task.add_done_callback(self._sent)

    @property
    def run_length(self) -> int:
        """Deliveries of a table claimed together: as many as fit in the lease, one attempt's
        timeout each, with one timeout to spare (at least the head)."""
        fit = int(self.settings.lease_ms / (self.settings.timeout * 1000)) - 1
        return max(1, min(self.settings.run, fit))

    def _target(self, delivery: Delivery) -> _Target:
        try:
            name = urlsplit(delivery.url).netloc
        except ValueError:  # (the attempt refuses it: its own failure, with a backoff)
            name = delivery.url[:200]
        target = self._targets.get(name)
        if target is None:
            if len(self._targets) >= MAX_TARGETS:  # forget the idle ones
                for idle in [k for k, t in self._targets.items() if not t.sending]:
                    del self._targets[idle]
            target = self._targets[name] = _Target()
        return target

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        if self._full:  # a slot is free and the last round had more than slots
            self.poke()

    def _keep(self, delivery: Delivery, kind: str, next_at: int = 0) -> None:
        """An outcome, kept by the next round (until then the table's claim holds)."""
        self._outcomes.append((delivery, kind, next_at))
        self.poke()

    async def _send_run(self, run: list[Delivery], target: _Target, claimed_at: int) -> None:
        """Send a table's run in order, each after the one before it succeeded, while the
        claim lasts; a failure ends the run (the table's claim is freed with it)."""
        deadline = claimed_at + self.settings.lease_ms - int(self.settings.timeout * 1000)
        try:
            for index, delivery in enumerate(run):
                ok = await self._attempt_one(delivery, target)
                more = index + 1 < len(run) and now_ms() < deadline
                if ok:
                    self.delivered += 1
                    self._keep(delivery, GOING_ON if more else DONE)
                else:
                    self._failed(delivery)
                    more = False
                if not more:
                    for unsent in run[index + 1 :]:  # freed with the table's claim
                        self._sending.discard(unsent.id)
                    return
        finally:
            target.sending -= 1
            left = self._key_sending.pop(run[0].key, 1) - 1
            if left:
                self._key_sending[run[0].key] = left

    async def _attempt_one(self, delivery: Delivery, target: _Target) -> bool:
        started = now_ms()
        try:
            ok = await self.attempt(delivery)
            target.unanswered = 0
        except PlatformError as exc:
            log.warning(
                "webhook address refused",
                extra={"table": delivery.table_id, "error": exc.message},
            )
            ok = False
        except (OSError, TimeoutError) as exc:  # no answer: the receiver holds few slots
            log.info(
                "webhook attempt failed", extra={"table": delivery.table_id, "error": repr(exc)}
            )
            ok = False
            target.unanswered += 1
        except Exception as exc:  # anything else is a failed attempt too, never a held claim
            log.warning(
                "webhook attempt failed unexpectedly",
                extra={"table": delivery.table_id, "error": repr(exc)},
            )
            ok = False
        if delivery.first_at == 0:
            delivery.first_at = started
        return ok

    def _failed(self, delivery: Delivery) -> None:
        """Keep a failed attempt's outcome: again after a backoff, or dropped after retrying
        for ``retry_seconds``."""
        self.failures += 1
        delivery.attempts += 1
        if now_ms() - delivery.first_at > self.settings.retry_seconds * 1000:
            log.warning(
                "webhook dropped after retrying",
                extra={"table": delivery.table_id, "webhookId": delivery.id},
            )
            self._keep(delivery, DONE)
            return
        self._keep(delivery, LATER, now_ms() + int(self.settings.backoff(delivery.attempts) * 1000))

    async def attempt(self, delivery: Delivery) -> bool:
        """One POST to the checked address: True on a 2xx, False on another status; raises
        OSError or TimeoutError when no answer came."""
        target = await check(delivery.url, self.allow)
        timestamp = int(time.time())
        request_headers = headers(delivery.secret, delivery.id, timestamp, delivery.body)
        status = await self.client.post(target, request_headers, delivery.body)
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
        if self._outcomes:  # what was sent is kept, as far as the store lets us
            with contextlib.suppress(Exception):
                await self.outbox.keep(_outcomes_of(self._outcomes))
            self._outcomes.clear()
        self.client.close()


def _outcomes_of(batch: list[tuple[Delivery, str, int]]) -> Outcomes:
    return Outcomes(
        done=[d for d, kind, _ in batch if kind == DONE],
        later=[(d, at) for d, kind, at in batch if kind == LATER],
        going_on=[d for d, kind, _ in batch if kind == GOING_ON],
        now=now_ms(),
    )


def _event_ms(body: bytes) -> int:
    """The event's time in ms, from the body's ``"timestamp"`` (ISO 8601 with milliseconds)."""
    try:
        text = body.split(b'"timestamp":"', 1)[1].split(b'"', 1)[0].decode()
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (IndexError, ValueError):
        return 0
    return int(moment.timestamp() * 1000)
