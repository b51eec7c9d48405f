"""Tables on a real three-node Redis Cluster: a whole game with a bot seat and a
person whose time keeps running out, on two replicas, one of them killed mid-game. Every write
is one compare-and-set on one hash-tagged key, the due-time work is shared, and the pushes
cross nodes, so the game ends the same whichever replica is left."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.scaleout.redis_cluster import RedisCluster
from tests.scaleout.replicas import Replica, ok, start_replicas

pytestmark = pytest.mark.redis

SETUP = {"players": 3, "rounds": 1}


@pytest.fixture(scope="module")
def table_replicas(redis_cluster: RedisCluster) -> Iterator[list[Replica]]:
    replicas = start_replicas(
        2,
        redis_cluster.url,
        MANHATTAN_REDIS_TIMEOUT="2",
        MANHATTAN_TABLE_STAND_IN_LEVEL="random",
        MANHATTAN_TABLE_BOT_SECONDS="0.5",
    )
    try:
        yield replicas
    finally:
        for replica in replicas:
            replica.stop()


def _seat(client: httpx.Client, table_id: str, name: str) -> str:
    joined = ok(client.post(f"/v1/tables/{table_id}/join", json={"name": name}))
    return str(joined["seatToken"])


def _play_until_over(client: httpx.Client, table_id: str, token: str, *, until: float) -> Any:
    """Ann plays her first legal move on each of her turns; the others are left to the bot and
    to the clock."""
    auth = {"authorization": f"Bearer {token}"}
    while time.monotonic() < until:
        table = ok(client.get(f"/v1/tables/{table_id}", headers=auth))
        if table["status"] == "over":
            return table
        if table["toMove"] == table["you"] and table["moves"]:
            body = {"move": table["moves"][0], "version": table["version"]}
            answer = client.post(f"/v1/tables/{table_id}/moves", json=body, headers=auth)
            assert answer.status_code in (200, 409), answer.text  # 409: a timeout came first
        else:
            time.sleep(0.05)
    raise AssertionError("the game did not end in time")


def test_a_whole_table_with_a_bot_and_timeouts_survives_a_killed_replica(
    table_replicas: list[Replica],
) -> None:
    first, second = table_replicas
    seats: list[Any] = ["open", "open", {"bot": {"level": "random"}}]
    with first.client(timeout=10) as a, second.client(timeout=10) as b:
        body = {"setup": SETUP, "seats": seats, "turnSeconds": 1}
        created = ok(a.post("/v1/tables", json=body))
        table_id = created["tableId"]
        ann = _seat(a, table_id, "ann")
        _seat(b, table_id, "bob")  # bob never moves: his clock runs out every turn
        auth = {"authorization": f"Bearer {ann}"}
        ok(b.post(f"/v1/tables/{table_id}/start", headers=auth))
        deadline = time.monotonic() + 60
        while ok(a.get(f"/v1/tables/{table_id}", headers=auth))["version"] < 10:
            assert time.monotonic() < deadline, "the table did not get going"
            time.sleep(0.05)
        first.kill()  # mid-game: its leases and its due checks die with it
        final = _play_until_over(b, table_id, ann, until=deadline)
        record = ok(b.get(f"/v1/tables/{table_id}/record"))
    first.start().wait_ready()  # for the module's other tests
    assert final["status"] == "over" and len(final["ranking"]) == 3
    assert final["seats"][1]["away"] is True  # bob timed out; a bot played his turns
    pieces = sum(record["moves"][0]["pieces"])  # the round's pieces per color
    assert len(record["moves"]) == 3 * (1 + pieces)  # one selection and the builds, each
