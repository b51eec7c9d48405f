"""The cheap requests of ``manhattan bench tables --spectators`` timed in a process of their own.

Timed in the bench's own process, a request waited behind everything else its event loop had
to do (the 800 people of the tables playing beside the watched one, the watched table's
people), and the figures measured the bench as much as the service. In a child process that
does nothing else, the time is the service's answer and the machine's scheduling.

The child sends one request every 20 ms, alternately a public table GET and ``/healthz``, says
it is running, and when told to stop sends back their latencies and the requests that failed.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from multiprocessing.connection import Connection
from typing import Any

from manhattan.bench.harness import latency_summary
from manhattan.bench.table_people import BenchError, Endpoint, must
from manhattan.bench.table_report import PERCENTILES


async def cheap_requests(endpoint: Endpoint, table_id: str, stop: asyncio.Event) -> dict[str, Any]:
    """One request every 20 ms, alternately a public table GET and ``/healthz``, until
    ``stop``: their latencies, and the requests that failed (each then on a new connection)."""
    gets: list[float] = []
    health: list[float] = []
    failed = 0
    connection = endpoint.connection()
    try:
        while not stop.is_set():
            for path, into in ((f"/v1/tables/{table_id}", gets), ("/healthz", health)):
                began = time.perf_counter()
                try:
                    await must(connection, "GET", path)
                except (OSError, BenchError):
                    failed += 1
                    connection.close()
                    connection = endpoint.connection()
                    continue
                into.append(time.perf_counter() - began)
                await asyncio.sleep(0.02)
    finally:
        connection.close()
    return {
        "table_get": latency_summary(gets, PERCENTILES),
        "healthz": latency_summary(health, PERCENTILES),
        "failed": failed,
    }


class Prober:
    """The parent's handle on the child process: ``start``, then ``stop`` for the figures."""

    def __init__(self, endpoint: Endpoint, table_id: str) -> None:
        context = multiprocessing.get_context("spawn")
        self._pipe, child_end = context.Pipe()
        self._process = context.Process(
            target=probe_main,
            args=(endpoint.host, endpoint.port, table_id, child_end),
            name="bench-probe",
            daemon=True,
        )

    async def start(self) -> None:
        """Start the child and wait until it sends requests."""
        self._process.start()
        await asyncio.to_thread(self._pipe.recv)

    async def stop(self) -> dict[str, Any]:
        """The latencies of the requests sent since ``start``."""
        self._pipe.send("stop")
        found: dict[str, Any] = await asyncio.to_thread(self._pipe.recv)
        await asyncio.to_thread(self._process.join, 30)
        return found

    def kill(self) -> None:
        if self._process.is_alive():
            self._process.kill()


def probe_main(host: str, port: int, table_id: str, pipe: Connection) -> None:
    """The child process: cheap requests to ``table_id`` until told to stop."""
    asyncio.run(_probe(Endpoint(host, port), table_id, pipe))


async def _probe(endpoint: Endpoint, table_id: str, pipe: Connection) -> None:
    stop = asyncio.Event()
    requests = asyncio.create_task(cheap_requests(endpoint, table_id, stop))
    pipe.send("running")
    await asyncio.to_thread(pipe.recv)  # "stop"
    stop.set()
    pipe.send(await requests)
