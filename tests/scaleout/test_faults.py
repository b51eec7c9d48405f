"""Faults under load: Redis killed and restarted, a replica killed mid-game, Redis too slow to
answer. Requests that carry their state must keep succeeding and none may hang; requests that
only name an id fail fast and clearly; everything recovers by itself."""

from __future__ import annotations

import copy
import random
import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import RedisServer
from tests.scaleout.replicas import (
    InlineLoad,
    Replica,
    by_id,
    by_token,
    inline,
    ok,
    play_game,
    start_replicas,
)

pytestmark = pytest.mark.redis

REDIS_TIMEOUT = 0.2
RETRY_AFTER = 0.5
#: No request may take longer than this, outage or not: a few Redis timeouts plus a loaded CPU.
REQUEST_BOUND = 2.0
FAST_FAILURE = 1.0
FAULT_SETTINGS = {
    "MANHATTAN_REDIS_TIMEOUT": str(REDIS_TIMEOUT),
    "MANHATTAN_REDIS_RETRY_AFTER": str(RETRY_AFTER),
}


@pytest.fixture
def own_redis_replicas(redis_server: RedisServer) -> Iterator[list[Replica]]:
    replicas = start_replicas(2, redis_server.url, **FAULT_SETTINGS)
    try:
        yield replicas
    finally:
        for replica in replicas:
            replica.stop()


def kill_redis(server: RedisServer) -> None:
    assert server.process is not None
    server.process.kill()
    server.process.wait()
    server.process = None


def stored_and_read_across(first: Replica, second: Replica) -> bool:
    """Store a fresh state through one replica and read it by id through the other."""
    with first.client(timeout=REQUEST_BOUND) as a, second.client(timeout=REQUEST_BOUND) as b:
        created = a.post("/v1/games", json={"players": 2, "seed": f"probe-{time.monotonic()}"})
        if created.status_code != 201:
            return False
        read = b.get(f"/v1/states/{created.json()['stateId']}")
        return read.status_code == 200 and read.json()["state"] == created.json()["state"]


def wait_for(condition: object, timeout: float) -> float:
    """Seconds until ``condition()`` holds; fails the test after ``timeout``."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if condition():  # type: ignore[operator]
            return time.monotonic() - started
        time.sleep(0.1)
    pytest.fail(f"not recovered within {timeout} s")


def id_only_request_fails_fast(replica: Replica, state_id: str) -> httpx.Response:
    with replica.client(timeout=REQUEST_BOUND) as client:
        started = time.monotonic()
        response = client.post("/v1/legal-moves", json={"state": {"id": state_id}})
        elapsed = time.monotonic() - started
    assert elapsed < FAST_FAILURE, f"an id-only request took {elapsed:.2f} s"
    return response


@pytest.mark.slow  # two replicas of its own, an outage and a recovery
def test_redis_killed_and_restarted_under_load(
    redis_server: RedisServer, own_redis_replicas: list[Replica]
) -> None:
    first, second = own_redis_replicas
    with first.client() as a:
        # An id cached before the outage and never seen by the second replica's parsed cache.
        known = ok(a.post("/v1/games", json={"players": 3, "seed": "before-outage"}))
    with InlineLoad(own_redis_replicas) as load:
        time.sleep(0.5)
        kill_redis(redis_server)
        outage_started = time.monotonic()
        time.sleep(0.3)
        response = id_only_request_fails_fast(second, known["stateId"])
        assert response.status_code in (404, 503)
        assert response.json()["code"] in ("STORE_UNAVAILABLE", "STATE_NOT_FOUND")
        time.sleep(1.0)
        served_during_outage = load.count_since(outage_started)
        redis_server.start()  # same port, empty: a cache restart loses its contents
        recovery = wait_for(lambda: stored_and_read_across(first, second), timeout=5.0)
        time.sleep(0.3)
    assert served_during_outage > 10, "the load stalled while Redis was down"
    assert load.failures() == [], "requests with inline states failed during the outage"
    assert load.slowest() < REQUEST_BOUND, f"a request took {load.slowest():.2f} s"
    assert recovery < 5.0


def test_replica_killed_mid_game_the_game_continues_on_another(
    replica_pair: list[Replica],
) -> None:
    first, second = replica_pair
    with first.client() as a, second.client() as b:
        reference, reference_moves = play_game([b], send_state=inline, seed=21)
        rng = random.Random(21)
        before_kill, moves_before = play_game([a], send_state=by_id, rng=rng, max_moves=12)
        first.kill()
        with pytest.raises(httpx.TransportError):
            a.post("/v1/legal-moves", json={"state": by_id(before_kill)})
        # The client fails over: the same reference, another replica. Nothing was lost: the
        # state lives in Redis (by id) and in the token the client holds.
        assert ok(b.get(f"/v1/states/{before_kill['stateId']}"))["state"] == before_kill["state"]
        for send_state in (by_id, by_token):
            finished, moves_after = play_game(
                [b], send_state=send_state, rng=copy.deepcopy(rng), start=before_kill
            )
            assert moves_before + moves_after == reference_moves
            assert finished["state"] == reference["state"]
    # Restart the killed replica for the module's other tests.
    first.start().wait_ready()


def pause_redis(server: RedisServer, milliseconds: int) -> None:
    """Make every client's commands wait (CLIENT PAUSE): Redis alive but too slow to answer."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=2) as connection:
        connection.sendall(f"CLIENT PAUSE {milliseconds} ALL\r\n".encode())
        assert connection.recv(16).startswith(b"+OK")


@pytest.mark.slow  # two replicas of its own, a 2.5 s pause and a recovery
def test_slow_redis_timeouts_hold(
    redis_server: RedisServer, own_redis_replicas: list[Replica]
) -> None:
    first, second = own_redis_replicas
    with first.client() as a:
        known = ok(a.post("/v1/games", json={"players": 4, "seed": "before-pause"}))
    with InlineLoad(own_redis_replicas) as load:
        time.sleep(0.3)
        pause_redis(redis_server, 2500)
        paused_at = time.monotonic()
        response = id_only_request_fails_fast(second, known["stateId"])
        assert response.status_code == 503
        assert response.json()["code"] == "STORE_UNAVAILABLE"
        time.sleep(1.5)
        served_while_paused = load.count_since(paused_at)
        recovery = wait_for(lambda: stored_and_read_across(first, second), timeout=6.0)
    assert served_while_paused > 10, "the load stalled while Redis was slow"
    assert load.failures() == []
    assert load.slowest() < REQUEST_BOUND, f"a request took {load.slowest():.2f} s"
    assert recovery < 6.0
