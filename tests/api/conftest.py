"""Fixtures for the service tests: apps built inline and driven in-process through httpx."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

import manhattan
from manhattan.api.app import create_app
from manhattan.bench.engine import mid_game_state
from manhattan.settings import Settings

from .service_client import connect


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def mid_state() -> manhattan.State:
    """A 4-player classic state in round 2's build phase."""
    return mid_game_state()


@pytest.fixture(scope="session")
def mid_json(mid_state: manhattan.State) -> dict[str, Any]:
    return mid_state.to_json()


@pytest.fixture(scope="session")
def select_state() -> manhattan.State:
    return manhattan.new_game(players=4, seed="select")


MakeApp = Callable[..., Starlette]


@pytest.fixture
def make_app() -> MakeApp:
    def make(**settings: Any) -> Starlette:
        settings.setdefault("access_log", False)
        return create_app(Settings(**settings))

    return make


@pytest.fixture
async def client(make_app: MakeApp) -> AsyncIterator[httpx.AsyncClient]:
    async with connect(make_app()) as c:
        yield c
