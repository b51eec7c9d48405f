"""Fixtures for the client tests: the real app in-process, and a real server in a subprocess.

The Python client is its own distribution (``clients/python``); the project's test install does
not install it, so its source directory is put on the path here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.ports import PORT_TAKEN, PortTaken, free_port, listens

ROOT = Path(__file__).resolve().parents[2]
CLIENT_SRC = ROOT / "clients" / "python" / "src"
if str(CLIENT_SRC) not in sys.path:
    sys.path.insert(0, str(CLIENT_SRC))


@pytest.fixture
def app():  # type: ignore[no-untyped-def]
    from manhattan.server.app import create_app
    from manhattan.settings import Settings

    return create_app(Settings(access_log=False))


def start_server(env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """``manhattan serve`` on a free port; returns the process and its base URL once ready."""
    manhattan = Path(sys.executable).with_name("manhattan")
    command = [str(manhattan)] if manhattan.exists() else [sys.executable, "-m", "manhattan.cli"]

    def launch(port: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [*command, "serve", "--host", "127.0.0.1", "--port", str(port)],
            env={**os.environ, "MANHATTAN_ACCESS_LOG": "false", **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    return on_a_free_port(launch)


def on_a_free_port(
    launch: Callable[[int], subprocess.Popen[bytes]],
) -> tuple[subprocess.Popen[bytes], str]:
    """The server ``launch`` starts on a port (its stderr piped), and its base URL once it is
    healthy; started again on another port when the chosen one was taken (``tests/ports.py``)."""
    for _ in range(5):
        port = free_port()
        process = launch(port)
        try:
            return process, wait_healthy(process, f"http://127.0.0.1:{port}")
        except PortTaken:
            continue
    raise RuntimeError("the server found no free port in five tries")


def wait_healthy(process: subprocess.Popen[bytes], url: str) -> str:
    """``url`` once its /healthz answers from ``process`` itself (not another test's server
    that took the port); fails if ``process`` exits first, with ``PortTaken`` when it could
    not bind the port."""
    port = int(url.rsplit(":", 1)[1])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            err = ""
            if process.stderr:
                err = process.stderr.read().decode()
                process.stderr.close()
            if PORT_TAKEN in err:
                raise PortTaken(url)
            raise RuntimeError(f"the server exited with {process.returncode}: {err[-2000:]}")
        try:
            answered = httpx.get(f"{url}/healthz", timeout=1).status_code == 200
            if answered and listens(process.pid, port) is not False:
                return url
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{url} did not become healthy in 30 s")


def stop_server(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stderr:
        process.stderr.close()


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    process, url = start_server()
    try:
        yield url
    finally:
        stop_server(process)
