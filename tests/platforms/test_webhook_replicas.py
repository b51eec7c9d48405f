"""Webhooks survive what deployments do to them: a receiver that answers 500, hangs, closes
the connection and then recovers, while the replica making a delivery is killed (``kill -9``):
two replicas on one real Redis (the survivor takes over the dead one's claim), and the embedded
store (the process comes back on its data directory). Every event arrives, every signature
verifies, each table's deliveries come in version order, a duplicate only ever repeats a
``webhook-id``, and no move waited on a delivery."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import RedisServer
from tests.platforms.helpers import API_KEYS, check_deliveries, ok, play_one, seat_up
from tests.platforms.receiver import Receiver
from tests.scaleout.replicas import Replica

EVENTS = ["table.started", "table.turn", "table.over"]
GAME = {"players": 2, "rounds": 2, "piecesPerRound": 3}
SETTINGS = {
    "MANHATTAN_API_KEYS": API_KEYS,
    "MANHATTAN_WEBHOOK_ALLOW": "127.0.0.0/8",
    "MANHATTAN_WEBHOOK_TIMEOUT": "3",
    "MANHATTAN_WEBHOOK_RETRY_SECONDS": "0.2",
    "MANHATTAN_WEBHOOK_LEASE_SECONDS": "3",
    "MANHATTAN_TABLE_STAND_IN_LEVEL": "random",
}


def owner_of(peer_port: int, receiver_port: int, replicas: list[Replica]) -> Replica | None:
    """The replica one of whose processes (the service, its delivery worker) holds the socket
    that is the receiver's peer on ``peer_port`` (from /proc)."""
    inode = None
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = fields[1], fields[2]
        if int(local.split(":")[1], 16) == peer_port and int(remote.split(":")[1], 16) == (
            receiver_port
        ):
            inode = fields[9]
    for replica in replicas:
        for pid in replica.pids():
            with contextlib.suppress(OSError):
                for fd in Path(f"/proc/{pid}/fd").iterdir():
                    with contextlib.suppress(OSError):
                        if os.readlink(fd) == f"socket:[{inode}]":
                            return replica
    return None


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver(plan=["500", "hang", "close", "500"], hang_seconds=8.0).start()
    yield found
    found.stop()


def play_through(
    replicas: list[Replica], receiver: Receiver, restart: bool
) -> tuple[dict[str, str], list[float], dict[str, int]]:
    """Two keyed tables played to the end through the live replicas; the replica holding the
    receiver's hanging request is killed (and, with ``restart``, started again)."""
    clients = {id(r): r.client() for r in replicas}
    timings: list[float] = []
    secrets: dict[str, str] = {}
    tokens: dict[str, list[str]] = {}
    live = list(replicas)
    killed = False
    try:
        for i in range(2):
            c = clients[id(live[i % len(live)])]
            tid, secret, seats = seat_up(c, {"url": receiver.url, "events": EVENTS}, setup=GAME)
            secrets[tid], tokens[tid] = secret, seats
        playing = set(secrets)
        turn = 0
        deadline = time.monotonic() + 120
        while playing or not killed:  # (the games may end before a delivery hangs)
            assert time.monotonic() < deadline, "the games did not finish, or nothing hung"
            if not playing:
                time.sleep(0.05)
            if not killed and receiver.hanging.is_set():
                hanging = [r for r in receiver.snapshot() if r.answer == "hang"][-1]
                holder = owner_of(hanging.peer_port, receiver.port, live)
                assert holder is not None, "no replica holds the hanging delivery"
                holder.kill()
                killed = True
                if restart:
                    clients[id(holder)].close()
                    holder.start().wait_ready()
                    clients[id(holder)] = holder.client()
                else:
                    live.remove(holder)
            for tid in sorted(playing):
                c = clients[id(live[turn % len(live)])]
                turn += 1
                try:
                    if not play_one(c, tid, tokens[tid], timings):
                        playing.discard(tid)
                except httpx.TransportError:  # the replica was just killed
                    continue
        assert killed, "no delivery was in flight to kill"
        moves = {
            tid: len(ok(clients[id(live[0])].get(f"/v1/tables/{tid}/record"))["moves"])
            for tid in secrets
        }
    finally:
        for client in clients.values():
            client.close()
    return secrets, timings, moves


def check_all(receiver: Receiver, secrets: dict[str, str], moves: dict[str, int]) -> None:
    def over_everywhere(r: Receiver) -> bool:
        kinds = {(d.json["data"]["tableId"], d.json["type"]) for d in r.delivered()}
        return all((tid, "table.over") in kinds for tid in secrets)

    receiver.wait_for(over_everywhere, timeout=60)
    answers = [r.answer for r in receiver.snapshot()]
    assert answers[:4] == ["500", "hang", "close", "500"], answers
    for tid, secret in secrets.items():
        mine = [r for r in receiver.snapshot() if r.body and r.json["data"]["tableId"] == tid]
        first = check_deliveries(mine, secret)
        kinds = [d.json["type"] for d in first]
        assert kinds == ["table.started"] + ["table.turn"] * moves[tid] + ["table.over"], kinds


@pytest.mark.redis
def test_two_replicas_on_redis_one_killed_mid_delivery(receiver: Receiver) -> None:
    redis = RedisServer()
    redis.start()
    replicas = [Replica(redis.url, **SETTINGS).start() for _ in range(2)]
    try:
        for replica in replicas:
            replica.wait_ready()
        secrets, timings, moves = play_through(replicas, receiver, restart=False)
        check_all(receiver, secrets, moves)
    finally:
        for replica in replicas:
            replica.kill()
        redis.stop()
    assert max(timings) < receiver.hang_seconds / 4, f"a move waited: {max(timings):.2f} s"


def test_the_embedded_store_killed_mid_delivery_and_restarted(receiver: Receiver) -> None:
    replica = Replica(None, **SETTINGS).start()
    try:
        replica.wait_ready()
        secrets, timings, moves = play_through([replica], receiver, restart=True)
        check_all(receiver, secrets, moves)
    finally:
        replica.kill()
    assert max(timings) < receiver.hang_seconds / 4, f"a move waited: {max(timings):.2f} s"
