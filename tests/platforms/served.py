"""The service in this process, served by uvicorn on its own thread and event loop, so the
tests can call it with a plain (blocking) client while its background tasks run."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx

from manhattan.server.app import create_app
from manhattan.settings import Settings
from tests.ports import bound_socket
from tests.tables.conftest import quiet_server


class Served:
    def __init__(self, **settings: Any) -> None:
        settings.setdefault("access_log", False)
        settings.setdefault("data_dir", ":memory:")
        self.socket = bound_socket()
        self.port: int = self.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app(Settings(**settings))
        self.server = quiet_server(self.app, self.port, grace=2)
        self.thread = threading.Thread(target=self._serve)

    def _serve(self) -> None:
        asyncio.run(self.server.serve(sockets=[self.socket]))

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
        self.socket.close()

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=10)
