"""The client tests' servers (``manhattan serve``, the page's) against a port taken by a test
running beside them: started again on another port, and never another server taken for theirs."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx
import pytest

from tests.clients import conftest
from tests.clients.conftest import start_server, stop_server
from tests.clients.web_browser import serve_page
from tests.ports import listens


@pytest.fixture
def taken_first(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """A port someone listens on (a bare socket, which answers nothing), handed out as the
    first free port; real free ports after it."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port: int = taken.getsockname()[1]
        handed = iter([port])
        free = conftest.free_port
        monkeypatch.setattr(conftest, "free_port", lambda: next(handed, None) or free())
        yield port


def test_manhattan_serve_moves_off_a_taken_port(taken_first: int) -> None:
    process, url = start_server()
    try:
        port = int(url.rsplit(":", 1)[1])
        assert port != taken_first and listens(process.pid, port)
        assert not listens(process.pid, taken_first)
        assert httpx.get(f"{url}/healthz").status_code == 200
    finally:
        stop_server(process)


def test_the_page_moves_off_a_taken_port(taken_first: int) -> None:
    process, port = serve_page()
    try:
        assert port != taken_first and listens(process.pid, port)
    finally:
        stop_server(process)
