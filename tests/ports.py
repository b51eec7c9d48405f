"""Loopback ports for the servers the tests start as processes.

A port the system found free is free only until someone binds it: a test running beside this one
may bind it first (its own service, its receiver), between the choice and the child's bind. Then
the child exits saying the address is in use (``PORT_TAKEN``) and is started again on another
port, and an answer on the port counts only when the child's own process holds the listening
socket (``listens``; None where /proc cannot tell): never another test's server answering in
its place.
"""

from __future__ import annotations

from manhattan.bench.harness import free_port, listens

__all__ = ["PORT_TAKEN", "free_port", "listens"]

#: What a server says on stderr (or in its log) when its port is bound already.
PORT_TAKEN = "address already in use"
