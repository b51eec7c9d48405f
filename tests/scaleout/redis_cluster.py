"""A three-node Redis Cluster on loopback, made of ``redis-server --cluster-enabled yes``
processes joined by ``redis-cli --cluster create`` (three primaries, no replicas)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from tests.ports import free_port, redis_pid

CLUSTER_BUS_OFFSET = 10_000


def _port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_cluster_ports(count: int, besides: list[int] | None = None) -> list[int]:
    """Ports whose cluster-bus port (port + 10000) is free as well (none of ``besides``)."""
    taken = list(besides or [])
    ports: list[int] = []
    while len(ports) < count:
        port = free_port()
        bus = port + CLUSTER_BUS_OFFSET
        if bus < 65_536 and port not in ports + taken and _port_is_free(bus):
            ports.append(port)
        elif port > 55_000:
            # Ephemeral ports this high have no room for a bus port: take one from below.
            start = 20_000 + (len(ports) + len(taken)) * 7 + (port % 5000)
            for candidate in range(start, 30_000, 37):
                if candidate not in ports + taken and all(
                    _port_is_free(p) for p in (candidate, candidate + CLUSTER_BUS_OFFSET)
                ):
                    ports.append(candidate)
                    break
    return ports


def _command(port: int, *words: str) -> str:
    line = "".join(f"${len(w)}\r\n{w}\r\n" for w in words)
    with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
        connection.sendall(f"*{len(words)}\r\n{line}".encode())
        time.sleep(0.02)
        return connection.recv(65_536).decode(errors="replace")


class RedisCluster:
    """Three primaries covering all 16384 slots; ``url`` names one node as a seed."""

    def __init__(self, nodes: int = 3) -> None:
        self.ports = free_cluster_ports(nodes)
        self.directory = Path(tempfile.mkdtemp(prefix="manhattan-cluster-"))
        self.processes: dict[int, subprocess.Popen[bytes]] = {}

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.ports[0]}/0"

    @staticmethod
    def available() -> str | None:
        """Why a cluster cannot be made here, or None when it can."""
        for binary in ("redis-server", "redis-cli"):
            if shutil.which(binary) is None:
                return f"{binary} is not on PATH"
        return None

    def start(self) -> RedisCluster:
        for k in range(len(self.ports)):
            for _ in range(5):  # a port a process beside the test took first: another one
                if self.start_node(self.ports[k]):
                    break
                self.ports[k] = free_cluster_ports(1, besides=self.ports)[0]
            else:
                raise RuntimeError("a cluster node did not start on a free port")
        subprocess.run(
            [
                "redis-cli",
                "--cluster",
                "create",
                *(f"127.0.0.1:{port}" for port in self.ports),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=30,
        )
        self.wait_until_ok()
        return self

    def start_node(self, port: int) -> bool:
        """Whether a node of this cluster's own answers on ``port``: False when its process
        ended (the port was taken); an answer from another process does not count."""
        node_directory = self.directory / str(port)
        node_directory.mkdir(exist_ok=True)
        self.processes[port] = subprocess.Popen(
            [
                "redis-server",
                "--port", str(port),
                "--bind", "127.0.0.1",
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", "2000",
                "--save", "",
                "--appendonly", "no",
                "--dir", str(node_directory),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        process = self.processes[port]
        deadline = time.monotonic() + 10
        while True:
            if redis_pid(port) == process.pid:
                return True
            if process.poll() is not None:
                del self.processes[port]
                return False
            if time.monotonic() > deadline:
                raise RuntimeError(f"cluster node on port {port} did not start")
            time.sleep(0.02)

    def wait_until_ok(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all("cluster_state:ok" in _command(p, "CLUSTER", "INFO") for p in self.ports):
                return
            time.sleep(0.1)
        raise RuntimeError("the cluster did not reach cluster_state:ok")

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=10)
        self.processes.clear()
        shutil.rmtree(self.directory, ignore_errors=True)
