"""The service in this process, served by uvicorn on its own thread and event loop, so the
tests can call it with a plain (blocking) client while its background tasks run."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any

import httpx
import uvicorn

from manhattan.api.app import create_app
from manhattan.settings import Settings


class Served:
    def __init__(self, **settings: Any) -> None:
        settings.setdefault("access_log", False)
        settings.setdefault("data_dir", ":memory:")
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app(Settings(**settings))
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_config=None,
            access_log=False,
            timeout_graceful_shutdown=2,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=lambda: asyncio.run(self.server.serve()))

    def __enter__(self) -> Served:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline and self.thread.is_alive(), "not started"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(20)

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=10)
