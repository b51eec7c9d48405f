"""Tables fixtures: the app served by a real uvicorn inside the test's event loop (streams need
a real connection; httpx's in-process transport buffers whole responses), and helpers."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn

from manhattan.api.app import create_app
from manhattan.settings import Settings


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LiveServer:
    def __init__(self, **settings: Any) -> None:
        settings.setdefault("access_log", False)
        settings.setdefault("table_stand_in_level", "random")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app(Settings(**settings))
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_config=None,
            access_log=False,
            timeout_graceful_shutdown=5,
        )
        self.server = uvicorn.Server(config)
        self.task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> LiveServer:
        self.task = asyncio.create_task(self.server.serve())
        while not self.server.started:
            await asyncio.sleep(0.01)
            if self.task.done():
                self.task.result()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.should_exit = True
        assert self.task is not None
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(self.task, 15)

    def client(self, token: str | None = None) -> httpx.AsyncClient:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        return httpx.AsyncClient(base_url=self.url, headers=headers, timeout=10)


@pytest.fixture
async def live() -> AsyncIterator[LiveServer]:
    async with LiveServer() as server:
        yield server


def ok(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, f"{response.status_code}: {response.text[:800]}"
    body: dict[str, Any] = response.json()
    return body


def err(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, f"{response.status_code}: {response.text[:800]}"
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    return body
