"""Tables fixtures: the app served by a real uvicorn inside the test's event loop (streams need
a real connection; httpx's in-process transport buffers whole responses), and helpers."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn

from manhattan.live.runtime import TableRuntime
from manhattan.server.app import create_app
from manhattan.settings import Settings
from tests.ports import bound_socket


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def quiet_server(app: Any, port: int, *, grace: int) -> uvicorn.Server:
    """uvicorn serving ``app`` on loopback ``port``, with no logging of its own and the
    protocols ``manhattan serve`` runs (``uvicorn_seam``), but for uvicorn's own HTTP protocol
    on the fast path: the spectator relay takes streams only under the service's own, and the
    tests that want it set it (``tests/live/test_relay.py``)."""
    options = app.seam.server_options(app.state.settings)
    if app.seam.fast:
        del options["http"]
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_config=None,
        access_log=False,
        timeout_graceful_shutdown=grace,
        **options,
    )
    return uvicorn.Server(config)


def stacks() -> str:
    """Where every other task of the loop waits: what a server that does not stop is held by."""
    lines: list[str] = []
    for task in asyncio.all_tasks():
        if task is not asyncio.current_task():
            frames = task.get_stack()
            where = " <- ".join(f"{f.f_code.co_name}:{f.f_lineno}" for f in reversed(frames))
            lines.append(f"{task.get_name()}: {where or task.get_coro()!r}")
    return "\n".join(sorted(lines))


class LiveServer:
    def __init__(self, **settings: Any) -> None:
        settings.setdefault("access_log", False)
        settings.setdefault("table_stand_in_level", "random")
        self.socket = bound_socket()
        self.port: int = self.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app(Settings(**settings))
        self.server = quiet_server(self.app, self.port, grace=5)
        self.task: asyncio.Task[None] | None = None
        self.clients: list[httpx.AsyncClient] = []

    async def __aenter__(self) -> LiveServer:
        self.task = asyncio.create_task(self.server.serve(sockets=[self.socket]))
        while not self.server.started:
            await asyncio.sleep(0.01)
            if self.task.done():
                self.task.result()
        return self

    async def __aexit__(self, *exc: object) -> None:
        for client in self.clients:
            await client.aclose()
        self.server.should_exit = True
        assert self.task is not None
        try:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self.task), 15)
        except TimeoutError:
            raise AssertionError(f"the server did not stop in 15 s:\n{stacks()}") from None
        finally:
            self.socket.close()

    def client(self, token: str | None = None) -> httpx.AsyncClient:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        client = httpx.AsyncClient(base_url=self.url, headers=headers, timeout=10)
        self.clients.append(client)  # closed with the server
        return client


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


class Sse:
    """A minimal Server-Sent Events reader over an httpx stream: events and heartbeats."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self._lines = response.aiter_lines()
        self.heartbeats = 0

    async def next(self, timeout: float = 5.0) -> dict[str, Any]:
        """The next event: {"id", "event", "data"}; heartbeats are counted and skipped."""
        return await asyncio.wait_for(self._next(), timeout)

    async def _next(self) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        async for line in self._lines:
            line = line.rstrip("\r")
            if line == "":
                if "data" in fields:
                    fields["data"] = json.loads(fields["data"])
                    fields["id"] = int(fields["id"])
                    return fields
                continue
            if line.startswith(":"):
                self.heartbeats += 1
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        raise EOFError("the stream ended")

    async def until(self, kind: str, timeout: float = 10.0) -> dict[str, Any]:
        while True:
            event = await self.next(timeout)
            if event["event"] == kind:
                return event


@contextlib.asynccontextmanager
async def sse(
    client: httpx.AsyncClient, path: str, headers: dict[str, str] | None = None
) -> AsyncIterator[Sse]:
    async with client.stream("GET", path, headers=headers or {}) as response:
        assert response.status_code == 200, (await response.aread())[:500]
        yield Sse(response)


class Seated:
    """A person at a table: name, player index, seat token and an authorized client."""

    def __init__(self, live: LiveServer, table_id: str, joined: dict[str, Any]) -> None:
        self.table_id = table_id
        self.player: int = joined["player"]
        self.token: str = joined["seatToken"]
        self.client = live.client(self.token)

    async def table(self) -> dict[str, Any]:
        return ok(await self.client.get(f"/v1/tables/{self.table_id}"))

    async def move(self, move: Any, version: int, move_id: str | None = None) -> httpx.Response:
        body: dict[str, Any] = {"move": move, "version": version}
        if move_id is not None:
            body["moveId"] = move_id
        return await self.client.post(f"/v1/tables/{self.table_id}/moves", json=body)


async def new_table(
    live: LiveServer, people: int = 2, *, start: bool = True, **body: Any
) -> tuple[str, str, list[Seated]]:
    """A table with ``people`` joined (and started): (tableId, hostToken, seated)."""
    body.setdefault("setup", {"players": people} if "seats" not in body else {})
    async with live.client() as c:
        created = ok(await c.post("/v1/tables", json=body), 201)
        table_id = created["tableId"]
        seated = []
        for i in range(people):
            joined = ok(await c.post(f"/v1/tables/{table_id}/join", json={"name": f"p{i}"}))
            seated.append(Seated(live, table_id, joined))
        if start:
            host = {"authorization": f"Bearer {created['hostToken']}"}
            ok(await c.post(f"/v1/tables/{table_id}/start", headers=host))
    return table_id, created["hostToken"], seated


async def seated_table(rt: TableRuntime) -> tuple[str, list[Any]]:
    """A public 2-player table, started: (id, [bearer of player 0, bearer of player 1])."""
    created = await rt.tables.create({"setup": {"players": 2}, "public": True})
    tid = created["tableId"]
    bearers = []
    for name in ("ann", "bob"):
        joined = await rt.tables.join(tid, {"name": name})
        bearers.append(rt.tables.authenticate(tid, joined["seatToken"]))
    await rt.tables.start(tid, bearers[0])
    return tid, bearers
