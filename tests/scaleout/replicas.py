"""Service replicas as real processes on loopback (``python -m manhattan.cli serve``), and a
reference client that plays seeded games through them.

Every replica of one test shares a token key and a Redis, as a deployment's replicas do.
"""

from __future__ import annotations

import base64
import contextlib
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx

from tests.ports import PORT_TAKEN, free_port, listens

REPO = Path(__file__).resolve().parents[2]
SHARED_TOKEN_KEY = "scale:" + base64.urlsafe_b64encode(bytes(range(32))).decode().rstrip("=")


class Replica:
    """One ``manhattan serve`` process; ``stop`` sends SIGTERM, ``kill`` SIGKILL."""

    def __init__(self, redis_url: str | None, **settings: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.directory = Path(tempfile.mkdtemp(prefix="manhattan-replica-"))
        self.environment = {
            **os.environ,
            "MANHATTAN_DATA_DIR": str(self.directory / "data"),
            "MANHATTAN_HOST": "127.0.0.1",
            "MANHATTAN_PORT": str(self.port),
            "MANHATTAN_TOKEN_KEY": SHARED_TOKEN_KEY,
            "MANHATTAN_ACCESS_LOG": "false",
            "MANHATTAN_LOG_LEVEL": "INFO",
            "REDIS_URL": redis_url or "",
            **settings,
        }
        self.log_path = self.directory / "serve.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Replica:
        with open(self.log_path, "ab") as log:  # the child keeps its own descriptor
            self.process = subprocess.Popen(
                [sys.executable, "-m", "manhattan.cli", "serve"],
                env=self.environment,
                cwd=REPO,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: the service and its workers
            )
        return self

    def pids(self) -> list[int]:
        """The replica's processes: the service and its workers (its process group)."""
        if self.process is None:
            return []
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[2]) == self.process.pid:
                found.append(int(entry.name))
        return found

    def wait_ready(self, timeout: float = 60.0) -> Replica:
        """Until this replica answers ``/readyz``. The port was free when it was chosen, but a
        test running beside this one may bind it first (its own service or receiver): then
        this replica cannot bind it and exits, and is started again on another port; and an
        answer from a server that is not this replica's process does not count."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                if PORT_TAKEN not in self.log_text():
                    raise RuntimeError(f"replica on {self.port} exited:\n{self.log_text()}")
                self._use_port(free_port())
                self.start()
            try:
                answered = httpx.get(f"{self.url}/readyz", timeout=1.0).status_code == 200
                if answered and listens(self.process.pid, self.port) is not False:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"replica on {self.port} not ready in {timeout} s:\n{self.log_text()}")

    def _use_port(self, port: int) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.environment["MANHATTAN_PORT"] = str(port)
        self.log_path.write_bytes(b"")  # (the failed start's log said the port was taken)

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def stop(self) -> int | None:
        """SIGTERM and wait: the graceful path."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return None if self.process is None else self.process.returncode

    def kill(self) -> None:
        """SIGKILL to all its processes: a replica lost without warning (a node failure)."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def client(self, timeout: float = 5.0) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=timeout)


def start_replicas(count: int, redis_url: str | None, **settings: str) -> list[Replica]:
    """Start ``count`` replicas in parallel (start-up is mostly imports) and wait for all."""
    replicas = [Replica(redis_url, **settings).start() for _ in range(count)]
    try:
        for replica in replicas:
            replica.wait_ready()
    except BaseException:
        for replica in replicas:
            replica.kill()
        raise
    return replicas


def ok(response: httpx.Response) -> dict[str, Any]:
    assert 200 <= response.status_code < 300, f"{response.status_code}: {response.text[:500]}"
    body: dict[str, Any] = response.json()
    return body


#: A short but complete game: two players, one round.
SHORT_GAME = {"players": 2, "seed": "scale-out", "rounds": 1}

StateForm = Callable[[dict[str, Any]], Any]


def by_id(result: dict[str, Any]) -> Any:
    return {"id": result["stateId"]}


def by_token(result: dict[str, Any]) -> Any:
    return {"token": result["token"]}


def inline(result: dict[str, Any]) -> Any:
    return result["state"]


def play_game(
    clients: Sequence[httpx.Client],
    *,
    setup: dict[str, Any] = SHORT_GAME,
    send_state: StateForm = by_id,
    seed: int = 7,
    rng: random.Random | None = None,
    max_moves: int | None = None,
    start: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """Play a seeded game, sending request ``i`` to ``clients[i % len(clients)]``; returns the
    last result and the notation of every move played. The move at each step is picked from
    the legal moves by a seeded random generator, so the same seed plays the same game; pass
    ``rng`` and ``start`` to continue a game where an earlier call stopped."""
    rng = rng or random.Random(seed)
    calls = 0

    def next_client() -> httpx.Client:
        nonlocal calls
        client = clients[calls % len(clients)]
        calls += 1
        return client

    result = start or ok(next_client().post("/v1/games", json=setup))
    played: list[str] = []
    while result["state"]["phase"] != "over":
        if max_moves is not None and len(played) >= max_moves:
            break
        listed = ok(next_client().post("/v1/legal-moves", json={"state": send_state(result)}))
        move = rng.choice(listed["moves"])
        body = {"state": send_state(result), "move": move}
        result = ok(next_client().post("/v1/apply", json=body))
        played.append(move["notation"])
    return result, played


class InlineLoad:
    """Background clients playing games with inline states across replicas; records every
    request's outcome. Such requests never need the cache, so none may fail in any fault."""

    def __init__(self, replicas: Sequence[Replica], clients: int = 4, timeout: float = 5.0):
        import threading

        self.replicas = list(replicas)
        self.timeout = timeout
        self.outcomes: list[tuple[float, float, int | str]] = []  # (start, seconds, status)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._run, args=(seed,), daemon=True) for seed in range(clients)
        ]

    def __enter__(self) -> InlineLoad:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=self.timeout + 5)

    def _request(self, client: httpx.Client, path: str, body: dict[str, Any]) -> Any:
        started = time.monotonic()
        try:
            response = client.post(path, json=body)
            status: int | str = response.status_code
        except httpx.HTTPError as exc:
            response, status = None, exc.__class__.__name__
        with self._lock:
            self.outcomes.append((started, time.monotonic() - started, status))
        return response.json() if response is not None and status == 200 else None

    def _run(self, seed: int) -> None:
        rng = random.Random(seed)
        clients = [r.client(timeout=self.timeout) for r in self.replicas]
        try:
            while not self._stop.is_set():
                client = clients[rng.randrange(len(clients))]
                setup = {"players": 2, "seed": f"load-{seed}-{rng.random()}", "rounds": 1}
                result = self._request(client, "/v1/games", setup)
                while result is not None and result["state"]["phase"] != "over":
                    if self._stop.is_set():
                        return
                    client = clients[rng.randrange(len(clients))]
                    state = result["state"]
                    listed = self._request(client, "/v1/legal-moves", {"state": state})
                    if listed is None:
                        break
                    move = rng.choice(listed["moves"])
                    result = self._request(client, "/v1/apply", {"state": state, "move": move})
        finally:
            for client in clients:
                client.close()

    def failures(self) -> list[tuple[float, float, int | str]]:
        with self._lock:
            return [o for o in self.outcomes if o[2] != 200 and o[2] != 201]

    def slowest(self) -> float:
        with self._lock:
            return max((o[1] for o in self.outcomes), default=0.0)

    def count_since(self, moment: float) -> int:
        with self._lock:
            return sum(1 for o in self.outcomes if o[0] >= moment)
