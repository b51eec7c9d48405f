"""Loopback ports for the servers the tests start as processes.

A port the system found free is free only until someone binds it: a test running beside this one
may bind it first (its own service, its receiver), between the choice and the child's bind. Then
the child exits saying the address is in use (``PORT_TAKEN``) and is started again on another
port, and an answer on the port counts only when the child's own process holds the listening
socket (``listens``): never another test's server answering in its place.
"""

from __future__ import annotations

import contextlib
import os
import socket
from pathlib import Path

#: What a server says on stderr (or in its log) when its port is bound already.
PORT_TAKEN = "address already in use"
#: ``/proc/net/tcp``'s state of a listening socket.
LISTEN = "0A"


def free_port() -> int:
    """A loopback port the system found free just now (see the module's note)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def listens(pid: int, port: int) -> bool:
    """Whether process ``pid`` holds the socket listening on loopback ``port`` (Linux's
    ``/proc``; True where that cannot be read)."""
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
        tables = [Path(t).read_text() for t in ("/proc/net/tcp", "/proc/net/tcp6")]
    except OSError:
        return True
    inodes = set()
    for fd in fds:
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[len("socket:[") : -1])
    suffix = f":{port:04X}"
    for line in "\n".join(tables).splitlines():
        fields = line.split()  # sl, local address, remote address, state, ..., inode
        if len(fields) > 9 and fields[1].endswith(suffix) and fields[3] == LISTEN:
            return fields[9] in inodes
    return False
