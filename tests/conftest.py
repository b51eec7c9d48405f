"""Shared fixtures: a real Redis for the cache tests (never a mock).

``redis_url``: $REDIS_URL when set, else a ``redis-server`` the session starts on a free port.
``redis_server``: always a server of its own that a test may stop and restart (outage tests).
Tests that need Redis are marked ``redis``; without REDIS_URL and without ``redis-server`` on
PATH they are skipped with the reason.

Hypothesis runs derandomized by default, so the test command (and CI, which gates landing on it)
gives the same verdict every time; ``HYPOTHESIS_PROFILE=explore`` searches with fresh random
examples, more of them, to hunt for new failures.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import settings
from starlette.applications import Starlette

import manhattan
from manhattan.bench.engine import mid_game_state
from manhattan.server.app import create_app
from manhattan.settings import Settings
from tests.ports import free_port, redis_pid
from tests.service_client import connect

# ``manhattan serve`` processes the tests start keep tables in memory unless the test gives them
# a data directory (tests/scaleout/replicas.py and the restart tests do): servers started at once
# in one working directory would otherwise contend for ./manhattan-data.
os.environ.setdefault("MANHATTAN_DATA_DIR", ":memory:")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers a core. Many tests wait on the servers, Redis and browsers
    they start, so one worker a core leaves the cores idle a good part of the run (the suite
    kept two cores 1.5 busy with two workers, 1.8 with four)."""
    affinity = getattr(os, "sched_getaffinity", None)  # (Linux only; macOS has none)
    cores = len(affinity(0)) if affinity is not None else os.cpu_count() or 1
    return 2 * cores


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The thorough Schemathesis runs only when the mark expression may select slow tests
    (``-m slow``, or no expression): their tests are built at collection, some seconds for
    every worker of a default run, which deselects them all."""
    if collection_path.name != "test_schemathesis_thorough.py":
        return None
    expression = config.getoption("markexpr") or ""
    return bool(expression) and "slow" not in expression.replace("not slow", "")


settings.register_profile("default", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, max_examples=300, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True)
def no_bot_workers_left() -> Iterator[None]:
    """Apps driven in-process never run their shutdown, so the bot workers their pools started
    on demand are stopped after each test (set up first, so this runs after every teardown)."""
    yield
    from manhattan.bot_pool import shutdown_all

    shutdown_all()


class RedisServer:
    """A throwaway ``redis-server`` that can be stopped and started again. ``append_only``: it
    writes an append-only file (fsync on every write), so a restart keeps its data; otherwise
    it keeps nothing. ``options``: more ``redis-server`` arguments."""

    def __init__(
        self, port: int | None = None, *, append_only: bool = False, options: tuple[str, ...] = ()
    ) -> None:
        self.port = port or free_port()
        self.append_only = append_only
        self.options = options
        self.directory = tempfile.mkdtemp(prefix="manhattan-redis-")
        self.process: subprocess.Popen[bytes] | None = None
        self.started_once = port is not None  # a port the caller chose is kept

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start the server on its port; the first start moves to another port when a process
        beside this test took the chosen one first (a restart keeps its port, as its URL)."""
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not on PATH and REDIS_URL is not set")
        for _ in range(1 if self.started_once else 5):
            if self._start_on_port(binary):
                self.started_once = True
                return
            self.port = free_port()
        raise RuntimeError("redis-server did not start on a free port")

    def _start_on_port(self, binary: str) -> bool:
        """Whether a ``redis-server`` of this object's own answers on its port: False when the
        process ended (its port was taken); an answer from another process does not count."""
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes" if self.append_only else "no",
                *(("--appendfsync", "always") if self.append_only else ()),
                "--dir",
                self.directory,
                *self.options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while redis_pid(self.port) != self.process.pid:
            if self.process.poll() is not None:
                self.process = None
                return False
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)
        return True

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.process = None


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    server = RedisServer()
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


# The service in process (apps built inline, driven through httpx), for every test package.


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
