"""``manhattan serve``: the app under uvicorn, one worker, settings from the environment.

uvicorn runs with the protocols of ``uvicorn_seam``: on the fast path the service's own HTTP
protocol (``protocol``: httptools' parser, as uvicorn would pick, with bounds on request heads
and deadlines for heads and bodies) and its own websocket protocol (``ws_protocol``, which does
not stop reading after every message); else uvicorn's own."""

from __future__ import annotations

import dataclasses
import gc

import uvicorn

from manhattan.server.app import create_app
from manhattan.server.request_log import configure_logging
from manhattan.settings import Settings


def run(host: str | None, port: int | None) -> None:
    """Serve until interrupted; ``host`` and ``port`` override MANHATTAN_HOST/MANHATTAN_PORT."""
    settings = Settings.from_env()
    overrides = {k: v for k, v in (("host", host), ("port", port)) if v is not None}
    settings = dataclasses.replace(settings, **overrides)  # type: ignore[arg-type]
    configure_logging(settings.log_level)
    app = create_app(settings)
    settle_heap()
    uvicorn.run(
        app,
        **app.seam.server_options(settings),
        host=settings.host,
        port=settings.port,
        workers=1,
        log_config=None,
        access_log=False,
        proxy_headers=False,
        server_header=False,
        timeout_keep_alive=30,
        # A websocket message (a table socket's move, a GraphQL operation) is a request: no
        # bigger than a request's body may be (closed with 1009 past it).
        ws_max_size=settings.max_body_bytes,
        timeout_graceful_shutdown=max(1, round(settings.graceful_timeout)),
    )


def settle_heap() -> None:
    """Keep the garbage collector's full passes short.

    After start-up the heap holds some 65,000 long-lived objects (the schema, the modules, the
    engine's tables) that a full collection would walk every time: about 40 ms on the
    development machine, a pause that lands on whichever requests are in flight and sets the
    p99. Collect once, then freeze what survives into the permanent generation, which
    collections skip. Objects made by requests are still collected as usual.

    And collect the youngest generation after 50,000 net allocations, not CPython's 700: each
    table move keeps a decoded table and its connections' objects alive for a while, and a busy
    replica has a hundred requests in flight, so a young collection walks some 10,000 live
    objects whatever the threshold, and a lower one only walks them more often. At 700, with
    200 tables playing, it took a third of a move's CPU (1.5 -> 1.2 ms a move, 10,000); at
    10,000 still 6-9 % of the service's CPU and gen-0 pauses of 5-20 ms landing on the pushes;
    at 50,000 the collector's time in 10 s of 200 tables flat out fell from 0.57 to 0.16 s
    (its own callbacks' timings; the pushes' p99 at a person's pace unchanged within the
    machine's noise, a longest young pause up to some 50 ms flat out). Garbage in cycles waits a
    little longer; nothing else changes.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_ALLOCATIONS, *gc.get_threshold()[1:])


#: Net allocations of tracked objects between collections of the youngest generation.
YOUNG_COLLECTION_ALLOCATIONS = 50_000
