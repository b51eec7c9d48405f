"""Platforms fixtures: a live service with two platform keys (``club`` and ``rival``) on the
store under test, and helpers to create and play a platform's table."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.tables.conftest import LiveServer, ok

#: Each service gets its own key names (a shared Redis keeps ratings across tests); the secrets
#: are the same for every service.
CLUB = "club-secret-0000000000001"
RIVAL = "rival-secret-000000000002"


def key_pairs() -> tuple[str, str]:
    suffix = secrets.token_hex(4)
    return (f"club-{suffix}={CLUB}", f"rival-{suffix}={RIVAL}")


#: A short game: one round of one piece each.
SHORT = {"rounds": 1, "piecesPerRound": 1}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def platform_live(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[LiveServer]:
    """The service with both keys, on each store: memory, the embedded SQLite store and a real
    Redis (a distinct db of the test's redis-server)."""
    settings: dict[str, Any] = {"api_keys": key_pairs()}
    if request.param == "sqlite":
        settings["data_dir"] = str(tmp_path)
    elif request.param == "redis":
        settings["tables_redis_url"] = request.getfixturevalue("redis_url")
    async with LiveServer(**settings) as server:
        yield server


def keyed(live: LiveServer, secret: str | None, token: str | None = None) -> httpx.AsyncClient:
    """A client of the live service sending a platform key (and a bearer)."""
    client = live.client(token)
    if secret is not None:
        client.headers["manhattan-key"] = secret
    return client


def reserved(*ids: str) -> list[dict[str, Any]]:
    return [{"reserved": {"id": i, "name": f"name of {i}"}} for i in ids]


async def create(
    live: LiveServer, secret: str | None = CLUB, status: int = 201, **body: Any
) -> dict[str, Any]:
    body.setdefault("setup", SHORT)
    async with keyed(live, secret) as c:
        return ok(await c.post("/v1/tables", json=body), status)


async def play_through(live: LiveServer, table_id: str, tokens: list[str]) -> dict[str, Any]:
    """Play the first legal move for whichever seat token is to move until the game is over;
    the finished table."""
    clients = [live.client(token) for token in tokens]
    for _ in range(4000):
        for client in clients:
            table = ok(await client.get(f"/v1/tables/{table_id}"))
            if table["status"] == "over":
                return table
            if table["toMove"] == table["you"] and table["moves"]:
                body = {"move": table["moves"][0], "version": table["version"]}
                answer = await client.post(f"/v1/tables/{table_id}/moves", json=body)
                assert answer.status_code in (200, 409), answer.text
        await asyncio.sleep(0.01)
    raise AssertionError("the game did not end")
