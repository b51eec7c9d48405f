"""Loopback ports for the servers the tests start as processes.

A port the system found free is free only until someone binds it: a test running beside this one
may bind it first (its own service, its receiver), between the choice and the child's bind. Then
the child exits saying the address is in use (``PORT_TAKEN``) and is started again on another
port, and an answer on the port counts only when the child's own process holds the listening
socket (``listens``; None where /proc cannot tell): never another test's server answering in
its place.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

from manhattan.bench.harness import PortTaken, free_port, listens

__all__ = [
    "PORT_TAKEN",
    "PortTaken",
    "bound_socket",
    "free_port",
    "listens",
    "redis_pid",
    "refusing_port",
]

#: What a server says on stderr (or in its log) when its port is bound already.
PORT_TAKEN = "address already in use"


def bound_socket() -> socket.socket:
    """A loopback socket bound to a port the system chose, for a server in this process to
    listen on (``uvicorn.Server.serve(sockets=...)``): the port is this test's from now on, where
    a port found free and bound later could be taken in between by a test running beside it.

    Made with the TCP protocol number, as asyncio makes its own: asyncio turns Nagle's algorithm
    off only on sockets that say so, and without that every answer waited 40 ms for the client's
    delayed acknowledgement (a test of many requests crawled)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    return sock


@contextlib.contextmanager
def refusing_port() -> Iterator[int]:
    """A loopback port where nothing listens and nothing can start listening while the block
    runs (it is bound here, not listened on): a connection to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def redis_pid(port: int) -> int | None:
    """The process id of the Redis answering on loopback ``port`` (``INFO server``), or None
    when nothing answers there (yet)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
            sock.sendall(b"INFO server\r\n")
            answer = b""
            while b"\r\nprocess_id:" not in answer or not answer.endswith(b"\r\n"):
                more = sock.recv(4096)
                if not more:
                    return None
                answer += more
    except OSError:
        return None
    for line in answer.decode("latin-1").splitlines():
        if line.startswith("process_id:"):
            return int(line.partition(":")[2])
    return None
