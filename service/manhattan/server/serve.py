"""``manhattan serve``: the app under uvicorn, one worker, settings from the environment.

uvicorn runs with the protocols of ``uvicorn_seam``: on the fast path the service's own HTTP
protocol (``protocol``: httptools' parser, as uvicorn would pick, with bounds on request heads
and deadlines for heads and bodies) and its own websocket protocol (``ws_protocol``, which does
not stop reading after every message); else uvicorn's own.

Once it listens, it prints one line for the person who started it (``ready_line``): where it
listens, the page, the GraphQL IDE, the REST reference and where it keeps its data. The log
stays on stderr, as JSON lines for machines."""

from __future__ import annotations

import dataclasses
import gc
import socket
import sys
from pathlib import Path
from typing import TextIO

import uvicorn

from manhattan.server.app import ServiceApp, create_app
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
    config = server_config(app, settings)
    server = AnnouncingServer(config, settings)
    server.run()
    if not server.started:  # it could not listen: uvicorn logged why
        sys.exit(STARTUP_FAILURE)


def server_config(app: ServiceApp, settings: Settings) -> uvicorn.Config:
    """How uvicorn serves ``app``: one worker, the seam's protocols, asyncio's own event loop."""
    return uvicorn.Config(
        app,
        **app.seam.server_options(settings),
        host=settings.host,
        port=settings.port,
        workers=1,
        # Never uvloop, which uvicorn takes when it is installed: under 50 busy connections it
        # served some while others waited (p99 several times asyncio's, the performance page).
        loop="asyncio",
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


#: The exit status when the server could not start (uvicorn's own for it).
STARTUP_FAILURE = 3


class AnnouncingServer(uvicorn.Server):
    """uvicorn's server that says, once it listens, where a person goes next."""

    def __init__(self, config: uvicorn.Config, settings: Settings, out: TextIO | None = None):
        super().__init__(config)
        self.settings = settings
        self.out = out

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            port = self.config.port
            for server in self.servers:  # the port bound, should 0 have been asked for
                for bound in server.sockets:
                    port = bound.getsockname()[1]
            print(ready_line(self.settings, port), file=self.out or sys.stdout, flush=True)


def ready_line(settings: Settings, port: int) -> str:
    """One line a person reads: where the service listens, where to go, where its data is."""
    wildcard = settings.host in ("0.0.0.0", "::", "")
    host = "127.0.0.1" if wildcard else settings.host
    base = f"http://{'[' + host + ']' if ':' in host else host}:{port}"
    where = f"{base} (every interface)" if wildcard else base
    places = []
    if settings.web_dir != "off" and Path(settings.web_dir).is_dir():
        places.append(f"play at {base}/play/")
    if settings.graphql_ide:
        places.append(f"GraphQL IDE at {base}/graphql")
    places.append(f"REST reference at {base}/docs")
    return f"manhattan is ready on {where}: {', '.join(places)}; {_data_place(settings)}"


def _data_place(settings: Settings) -> str:
    if settings.data_path is not None:
        return f"tables and the token key in {settings.data_path.resolve()}"
    if settings.tables_url:
        return "tables on Redis (MANHATTAN_TABLES_REDIS_URL or REDIS_URL)"
    return "tables in memory, lost on exit (MANHATTAN_DATA_DIR=:memory:)"


def settle_heap() -> None:
    """Keep the garbage collector's full passes short.

    After start-up the heap holds tens of thousands of long-lived objects (the schema, the
    modules, the engine's tables) that a full collection would walk every time: a pause (see
    docs/explanation/performance.md) that lands on whichever requests are in flight and sets the
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
