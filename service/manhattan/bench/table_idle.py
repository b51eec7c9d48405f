"""The idle phase of ``manhattan bench tables``: seats whose streams stay open and silent, and
what they cost the service in memory (``idle_streams``)."""

from __future__ import annotations

import asyncio
import math
import time
from functools import partial
from typing import Any

from manhattan.bench.harness import tree_resident_kib
from manhattan.bench.sse_frames import FrameStream, StreamRefused
from manhattan.bench.table_people import (
    REQUEST_TIMEOUT,
    STREAM_OPEN_CONCURRENCY,
    BenchError,
    Endpoint,
    TableRun,
    bounded,
    make_tables,
)
from manhattan.bench.table_report import SEATS, memory_growth


async def idle_streams(
    endpoint: Endpoint, pid: int | None, streams: int, hold: float, settle: float = 3.0
) -> dict[str, Any]:
    """``streams`` seats (four per table) open their streams and stay silent for ``hold``
    seconds; the RSS of the service and its processes (``tree_resident_kib``) before they open
    (tables made and joined), after the hold, and ``settle`` seconds after they closed."""
    runs = await make_tables(endpoint, math.ceil(streams / SEATS), {})
    seats = [(run, k) for run in runs for k in range(SEATS)][:streams]
    await asyncio.sleep(1.0)  # let the setup's garbage settle before the baseline
    before = tree_resident_kib(pid) if pid is not None else None
    opened: list[FrameStream] = []
    snapshots = 0

    def seen(kind: bytes, ident: int, data: bytes, arrived: float) -> None:
        nonlocal snapshots
        snapshots += kind == b"snapshot"

    async def open_one(run: TableRun, seat: int) -> None:
        path = f"/v1/tables/{run.table_id}/events"
        host, port = endpoint.host, endpoint.port
        try:
            opened.append(await FrameStream.open(host, port, path, seen, token=run.tokens[seat]))
        except StreamRefused as exc:
            raise BenchError(f"an idle stream did not open: {exc}") from exc

    try:
        await bounded(STREAM_OPEN_CONCURRENCY, [partial(open_one, *seat) for seat in seats])
        deadline = time.monotonic() + REQUEST_TIMEOUT
        while snapshots + sum(s.ended.done() for s in opened) < len(opened):
            if time.monotonic() > deadline:
                raise BenchError(f"{len(opened) - snapshots} idle streams sent no snapshot")
            await asyncio.sleep(0.05)  # every stream's first frame, its snapshot, arrived
        await asyncio.sleep(hold)  # every stream open and silent (heartbeats only)
        after = tree_resident_kib(pid) if pid is not None else None
    finally:
        for stream in opened:
            stream.close()
    await asyncio.sleep(settle)
    closed = tree_resident_kib(pid) if pid is not None else None
    memory = memory_growth(before, after, len(opened))
    if memory["available"] and closed is not None:
        memory["closed_mib"] = closed / 1024
        memory["per_1000_mib"] = memory["growth_mib"] * 1000 / max(1, len(opened))
    return {
        "streams": len(opened),
        "snapshots": snapshots,
        "hold_seconds": hold,
        "memory": memory,
    }
