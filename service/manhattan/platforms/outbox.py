"""The webhooks' durable outbox (DESIGN §10): what both stores keep and how workers share it.

Per hooked table the outbox keeps the hook (url, events, secret, owner key, reminder) and a
*cursor*: the last table version whose deliveries were enqueued. ``enqueue`` adds only the
deliveries of versions after the cursor and moves it, in one atomic step, so two replicas that
both heard a change enqueue it once. Deliveries wait in one queue per table, oldest first; a
worker *claims* the head of a table's queue for a lease (a dead worker's claim runs out and
another worker takes it), and only the head, so a table's deliveries go out in version order.
A failed delivery stays the head with a later ``next_at`` (exponential backoff). A claim takes
the heads of many tables in one step, each with a *run* of the deliveries behind it (the table
stays claimed while the worker sends them one after the other), and ``finish`` keeps many
outcomes in one step. Reminders are a
due-time set of ``"<table>:<version>:<deadline>"`` members.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import msgpack


@dataclass(slots=True)
class Delivery:
    """One webhook message: its stable id, where it goes, the signed body, its attempts, and
    the platform key whose table it is (each key's deliveries hold a bounded share of the
    worker's slots)."""

    id: str
    table_id: str
    url: str
    secret: str
    body: bytes
    attempts: int = 0
    first_at: int = 0  # epoch ms of the first attempt (0: none yet)
    #: The owner key's name ("" for a delivery stored before deliveries carried it).
    key: str = ""
    #: What the store needs to find this delivery again (the stored bytes).
    handle: Any = None

    def encode(self) -> bytes:
        data: bytes = msgpack.packb(
            [
                self.id,
                self.table_id,
                self.url,
                self.secret,
                self.body,
                self.attempts,
                self.first_at,
                self.key,
            ],
            use_bin_type=True,
        )
        return data

    @classmethod
    def decode(cls, data: bytes, handle: Any = None) -> Delivery:
        fields = msgpack.unpackb(data, raw=False)
        id_, table_id, url, secret, body, attempts, first_at = fields[:7]
        key = fields[7] if len(fields) > 7 else ""
        return cls(id_, table_id, url, secret, body, attempts, first_at, key, handle)


@dataclass(slots=True)
class Outcomes:
    """Outcomes kept in one step of the outbox (a transaction, a script). ``done``: delivered
    (or dropped after retrying), leaving the queue and freeing the table's claim; ``later``:
    again at its time (the delivery's new bytes replace it), the claim freed; ``going_on``:
    delivered, leaving the queue, the worker keeping the table's claim to send the run's next.
    A table's outcomes in one step are some going on, then at most one that ends its run."""

    done: list[Delivery] = field(default_factory=list)
    later: list[tuple[Delivery, int]] = field(default_factory=list)
    going_on: list[Delivery] = field(default_factory=list)
    now: int = 0


#: What ``enqueue`` takes for one table: (table id, version, [(version, delivery)]).
Enqueued = tuple[str, int, list[tuple[int, Delivery]]]


class Outbox(Protocol):
    name: str

    async def put_hook(self, table_id: str, hook: bytes) -> None: ...

    async def hook(self, table_id: str) -> tuple[bytes, int] | None:
        """The hook and the cursor of a table, or None."""
        ...

    async def hooked(self) -> list[str]: ...

    async def drop_hook(self, table_id: str) -> None: ...

    async def end_hook(self, table_id: str, at: int) -> None:
        """The table's game is over: its hook leaves the live ones (no more sweeps) and is kept
        as ended since ``at`` (ms), for a rematch to carry on."""
        ...

    async def ended_hook(self, table_id: str) -> bytes | None:
        """The hook of a table whose game is over, while it is kept."""
        ...

    async def purge_ended(self, before: int) -> None:
        """Forget the hooks that ended before ``before`` (ms): their tables are gone."""
        ...

    async def enqueue(self, table_id: str, version: int, items: list[tuple[int, Delivery]]) -> int:
        """Add the items of versions after the cursor, then move it to ``version``: how many
        were added."""
        ...

    async def enqueue_many(self, batch: list[Enqueued]) -> list[int]:
        """``enqueue`` for many tables (``(table_id, version, items)``) in one step."""
        ...

    async def add(self, delivery: Delivery) -> None:
        """A delivery outside the cursor (a reminder), behind the table's others."""
        ...

    async def claim(self, now: int, lease_ms: int, limit: int) -> list[Delivery]:
        """The due heads of up to ``limit`` tables, claimed (``claim_runs`` with runs of 1)."""
        return [run[0] for run in await self.claim_runs(now, lease_ms, limit, 1)]

    async def claim_runs(
        self, now: int, lease_ms: int, limit: int, run: int, outcomes: Outcomes | None = None
    ) -> list[list[Delivery]]:
        """In one step, ``outcomes`` kept (``keep``), then the due heads of up to ``limit``
        tables, each with up to ``run - 1`` of the table's next deliveries behind it, all
        claimed for ``lease_ms``: the worker sends a run in order, each after the one before
        it succeeded. A table freed by an outcome may be claimed again in the same step."""
        ...

    async def done(self, delivery: Delivery, now: int) -> None:
        """``delivery`` was delivered (``finish`` of one)."""
        await self.keep(Outcomes(done=[delivery], now=now))

    async def retry(self, delivery: Delivery, next_at: int) -> None:
        """``delivery`` again at ``next_at`` (``finish`` of one)."""
        await self.keep(Outcomes(later=[(delivery, next_at)]))

    async def finish(
        self,
        done: list[Delivery],
        later: list[tuple[Delivery, int]],
        now: int,
        going_on: list[Delivery] | None = None,
    ) -> None:
        """``done`` and ``retry`` for many deliveries in one step (``keep``)."""
        await self.keep(Outcomes(done, later, going_on or [], now))

    async def keep(self, outcomes: Outcomes) -> None:
        """Many outcomes in one step (a transaction, a script), as ``Outcomes`` says."""
        ...

    async def remind(self, member: str, at: int) -> None: ...

    async def take_reminders(self, now: int, limit: int) -> list[str]: ...

    async def waiting(self) -> int:
        """Deliveries not yet made (for the bench and the tests)."""
        ...

    async def close(self) -> None: ...
