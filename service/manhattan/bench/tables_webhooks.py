"""``manhattan bench tables --webhooks``: the tables' move rate with every table's webhook on
against the same tables without one, and how late the deliveries arrive (DESIGN §10).

The bench runs its own receiver (an HTTP/1.1 server on loopback answering 204 at once, in a
process of its own: in the players' process, busy with 800 simulated people, its answers waited
for their turn and the latency measured the bench as much as the service) and starts the
service with a platform key and the receiver's network allowed.
Three phases of ``--seconds`` each, ``--tables`` tables of four people playing as in the plain
bench: without webhooks, with a webhook on every table (every event: started, turn, timeout,
left, over), without again; the rate without is the mean of both. A delivery's **latency** is
from the event's ``timestamp`` (set when the change is enqueued, right after its write) to its
arrival at the receiver. After the webhook phase the bench waits for the outbox to drain (no new
delivery for two seconds), so the deliveries still queued when the players stop are counted.
Targets: moves/s with webhooks at least 0.9x without, delivery latency p99 under 1 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import multiprocessing
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from manhattan.bench.harness import cpu_seconds, latency_summary, latency_text
from manhattan.bench.table_people import Endpoint, play_tables
from manhattan.bench.table_report import measured, ratio

KEY_NAME, KEY_SECRET = "bench", "bench-webhooks-key-0123456789"
ENVIRONMENT = {
    "MANHATTAN_API_KEYS": f"{KEY_NAME}={KEY_SECRET}",
    "MANHATTAN_WEBHOOK_ALLOW": "127.0.0.0/8",
}
EVENTS = ["table.started", "table.turn", "table.timeout", "table.left", "table.over"]
TARGETS = {"webhooks_moves_ratio": 0.9, "delivery_p99_ms": 1000.0}
PERCENTILES = (0.5, 0.9, 0.99, 0.999)
QUIET_SECONDS = 2.0


@dataclass
class Deliveries:
    """What a receiver got: each delivery's latency (seconds), the distinct webhook ids and the
    requests; the child process sends it to the bench whole."""

    latencies: list[float] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    requests: int = 0


@dataclass
class Receiver:
    """Answers every POST with 204 and keeps what it got."""

    got: Deliveries = field(default_factory=Deliveries)
    last: float = 0.0
    port: int = 0

    async def start(self) -> asyncio.Server:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        return server

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                headers = dict(
                    line.split(": ", 1) for line in head.decode("latin-1").split("\r\n")[1:] if line
                )
                lowered = {k.lower(): v for k, v in headers.items()}
                body = await reader.readexactly(int(lowered.get("content-length", "0")))
                writer.write(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n")
                await writer.drain()
                self.record(lowered.get("webhook-id", ""), body)
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        except asyncio.CancelledError:  # the receiver closing at the end of the run: not an error
            return
        finally:
            writer.close()

    def record(self, webhook_id: str, body: bytes) -> None:
        now = time.time()
        self.got.requests += 1
        self.last = time.monotonic()
        self.got.ids.add(webhook_id)
        try:
            text = body.split(b'"timestamp":"', 1)[1].split(b'"', 1)[0].decode()
            sent = datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
        except (IndexError, ValueError):
            return
        self.got.latencies.append(max(0.0, now - sent))


class ReceiverProcess:
    """The ``Receiver`` in a child process: ``port`` and ``last`` while it runs, and what it
    ``got`` once stopped (``stop``)."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self._last = context.Value("d", 0.0, lock=False)
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_receive, args=(child, self._last), name="webhooks-receiver", daemon=True
        )
        self.port = 0
        self.got = Deliveries()
        #: CPU seconds the receiver used, all phases (known once stopped).
        self.cpu_seconds = 0.0

    async def start(self) -> ReceiverProcess:
        self._process.start()
        self.port = await asyncio.to_thread(self._conn.recv)
        return self

    @property
    def last(self) -> float:
        """``time.monotonic()`` of the last delivery (one clock for every process)."""
        return float(self._last.value)

    async def stop(self) -> None:
        self._conn.send("stop")
        self.got = await asyncio.to_thread(self._conn.recv)
        if self._process.pid is not None:
            self.cpu_seconds = cpu_seconds(self._process.pid) or 0.0
        await asyncio.to_thread(self._process.join, 10)


def _receive(conn: Connection, last: Any) -> None:
    """The child: serve until the parent says stop, then send back what was received."""

    async def serve() -> None:
        receiver = Receiver()
        server = await receiver.start()
        conn.send(receiver.port)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_reader(conn.fileno(), stop.set)
        while not stop.is_set():
            last.value = receiver.last
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.1)
        loop.remove_reader(conn.fileno())
        conn.recv()
        server.close()
        conn.send(receiver.got)

    asyncio.run(serve())


async def webhooks_bench(
    endpoint: Endpoint,
    pid: int | None,
    tables: int,
    seconds: float,
    seed: int,
    setup: dict[str, Any],
) -> dict[str, Any]:
    receiver = await ReceiverProcess().start()
    hook = {"webhook": {"url": f"http://127.0.0.1:{receiver.port}/hook", "events": EVENTS}}
    key = {"manhattan-key": KEY_SECRET}
    try:
        off = await measured(pid, play_tables(endpoint, tables, seconds, seed, setup))
        on = await measured(
            pid, play_tables(endpoint, tables, seconds, seed + 1, setup, extra=hook, more=key)
        )
        while time.monotonic() - receiver.last < QUIET_SECONDS:
            await asyncio.sleep(0.2)
        off_again = await measured(pid, play_tables(endpoint, tables, seconds, seed + 2, setup))
    finally:
        await receiver.stop()
    off_rate = (off["moves_per_s"] + off_again["moves_per_s"]) / 2
    off_costs = [p["service_cpu_ms_per_move"] for p in (off, off_again)]
    got = receiver.got
    latency = latency_summary(got.latencies, PERCENTILES)
    report = {
        "tables": tables,
        "off": [off, off_again],
        "on": on,
        "moves_per_s_off": off_rate,
        "moves_per_s_on": on["moves_per_s"],
        "webhooks_moves_ratio": ratio(on["moves_per_s"], off_rate),
        # Steadier on a shared machine than the rates: CPU a move of the service's processes
        # (its webhook worker included), and what the bench's receiver used meanwhile.
        "service_cpu_ms_per_move_off": None if None in off_costs else sum(off_costs) / 2,
        "service_cpu_ms_per_move_on": on["service_cpu_ms_per_move"],
        "receiver_cpu_seconds": receiver.cpu_seconds,
        "deliveries": got.requests,
        "distinct_webhook_ids": len(got.ids),
        "delivery_latency": latency,
        "errors": off["errors"] + on["errors"] + off_again["errors"],
        "targets": TARGETS,
    }
    report["verdicts"] = {
        "webhooks_moves_ratio": (report["webhooks_moves_ratio"] or 0)
        >= TARGETS["webhooks_moves_ratio"],
        "delivery_p99_ms": latency.get("p99_ms", 0.0) < TARGETS["delivery_p99_ms"]
        and got.requests > 0,
    }
    return report


def print_webhooks_report(report: dict[str, Any]) -> None:
    latency = latency_text(report["delivery_latency"], "p50", "p99", "max")
    print(f"tables: {report['tables']} of four people, webhooks on every event")
    print(
        f"moves/s without webhooks {report['moves_per_s_off']:.1f}, with "
        f"{report['moves_per_s_on']:.1f}: {report['webhooks_moves_ratio']:.2f}x "
        f"(target >= {TARGETS['webhooks_moves_ratio']}x): "
        f"{'ok' if report['verdicts']['webhooks_moves_ratio'] else 'MISSED'}"
    )
    print(
        f"deliveries {report['deliveries']} ({report['distinct_webhook_ids']} ids); latency "
        f"{latency} (target p99 < {TARGETS['delivery_p99_ms']:.0f} ms):"
        f" {'ok' if report['verdicts']['delivery_p99_ms'] else 'MISSED'}"
    )
    off, on = report["service_cpu_ms_per_move_off"], report["service_cpu_ms_per_move_on"]
    if off and on:
        print(
            f"service CPU a move, its webhook worker included: {off:.3f} ms without webhooks, "
            f"{on:.3f} ms with (+{100 * (on / off - 1):.0f} %); the bench's receiver used "
            f"{report['receiver_cpu_seconds']:.1f} s of CPU"
        )
    print(f"errors: {report['errors']}")
