"""The replicas' harness against a port taken by a test running beside it."""

from __future__ import annotations

import socket

from tests.ports import listens
from tests.scaleout.replicas import Replica


def test_a_replica_whose_port_was_taken_starts_on_another_and_is_its_own() -> None:
    """Another server bound the chosen port first (here a bare listening socket, which answers
    nothing): the replica cannot bind it, is started again on another port, and is ready there;
    the socket that took the port is not taken for the replica."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        replica = Replica(None)
        replica._use_port(port)
        try:
            replica.start().wait_ready()
            assert replica.process is not None
            assert replica.port != port and listens(replica.process.pid, replica.port)
            with replica.client() as client:
                assert client.get("/readyz").status_code == 200
            # a port someone listens on, but not this replica's process
            assert not listens(replica.process.pid, port)
        finally:
            replica.kill()
