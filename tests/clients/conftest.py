"""Fixtures for the client tests: the real app in-process, and a real server in a subprocess.

The Python client is its own distribution (``clients/python``); the project's test install does
not install it, so its source directory is put on the path here.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENT_SRC = ROOT / "clients" / "python" / "src"
if str(CLIENT_SRC) not in sys.path:
    sys.path.insert(0, str(CLIENT_SRC))


@pytest.fixture
def app():  # type: ignore[no-untyped-def]
    from manhattan.api.app import create_app
    from manhattan.settings import Settings

    return create_app(Settings(access_log=False))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """``manhattan serve`` on a free port; returns the process and its base URL once ready."""
    port = free_port()
    manhattan = Path(sys.executable).with_name("manhattan")
    command = [str(manhattan)] if manhattan.exists() else [sys.executable, "-m", "manhattan.cli"]
    process = subprocess.Popen(
        [*command, "serve", "--host", "127.0.0.1", "--port", str(port)],
        env={**os.environ, "MANHATTAN_ACCESS_LOG": "false", **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    return process, wait_healthy(process, f"http://127.0.0.1:{port}")


def wait_healthy(process: subprocess.Popen[bytes], url: str) -> str:
    """``url`` once its /healthz answers; fails if ``process`` exits first."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            err = process.stderr.read().decode() if process.stderr else ""
            raise RuntimeError(f"the server exited with {process.returncode}: {err[-2000:]}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return url
        except httpx.HTTPError:
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
