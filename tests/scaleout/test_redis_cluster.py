"""Redis Cluster: a three-node cluster on loopback, and replicas sharing it through
``REDIS_URL=redis+cluster://...``. Forming the cluster takes a few seconds: the store's round
trip through it runs by default, the replicas over it are slow."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
import redis

from manhattan.store.cache import RedisBackend, StateCache, make_backend

from .redis_cluster import RedisCluster
from .replicas import Replica, by_id, inline, ok, play_game, start_replicas

pytestmark = pytest.mark.redis


def test_store_accepts_redis_cluster_urls() -> None:
    backend = make_backend("redis+cluster://127.0.0.1:7000/0")
    assert backend.name == "redis-cluster"


def test_store_round_trips_through_the_cluster(redis_cluster: RedisCluster) -> None:
    """The service's own backend on a ``redis+cluster://`` URL: keys on every node, each
    command one slot (a plain client on the seed node would get MOVED for two thirds)."""
    state_ids = [f"{i:032x}" for i in range(30)]

    async def round_trip() -> tuple[list[bytes | None], bool, bool]:
        backend = make_backend(redis_cluster.url)
        assert isinstance(backend, RedisBackend) and backend.name == "redis-cluster"
        cache = StateCache(backend, rules_version=1, ttl=60)
        try:
            saved = [await cache.save_state(i, i.encode()) for i in state_ids]
            loaded = [await cache.load_state(i) for i in state_ids]
            await cache.save_result("legal", state_ids[0], b"moves")
            assert await cache.load_result("legal", state_ids[0]) == b"moves"
            return loaded, all(saved), await cache.ping()
        finally:
            await cache.close()

    loaded, saved, ready = asyncio.run(round_trip())
    assert saved and ready and not any(v is None for v in loaded)
    assert loaded == [i.encode() for i in state_ids]
    client = redis.RedisCluster(host="127.0.0.1", port=redis_cluster.ports[0])
    try:
        nodes = {client.get_node_from_key(f"manhattan:1:state:{i}").name for i in state_ids}
    finally:
        client.close()
    assert len(nodes) == 3


@pytest.mark.slow
def test_the_fixture_is_a_three_primary_cluster_covering_every_slot(
    redis_cluster: RedisCluster,
) -> None:
    client = redis.RedisCluster(host="127.0.0.1", port=redis_cluster.ports[0])
    try:
        slots = client.cluster_slots()
        assert sum(end - start + 1 for start, end in slots) == 16_384
        assert len({info["primary"] for info in slots.values()}) == 3
        # Keys of the service's shape land on different nodes: each command names one key.
        keys = [f"manhattan:1:state:{i:032x}" for i in range(30)]
        nodes = {client.get_node_from_key(key).name for key in keys}
        assert len(nodes) == 3
        for key in keys:
            client.set(key, b"x", ex=60)
        assert all(client.get(key) == b"x" for key in keys)
    finally:
        client.close()


@pytest.fixture(scope="module")
def cluster_replicas(request: pytest.FixtureRequest) -> Iterator[list[Replica]]:
    redis_cluster: RedisCluster = request.getfixturevalue("redis_cluster")
    replicas = start_replicas(2, redis_cluster.url, MANHATTAN_REDIS_TIMEOUT="2")
    try:
        yield replicas
    finally:
        for replica in replicas:
            replica.stop()


@pytest.mark.slow
def test_replicas_share_states_through_the_cluster(cluster_replicas: list[Replica]) -> None:
    first, second = cluster_replicas
    with first.client() as a, second.client() as b:
        ids = [ok(a.post("/v1/games", json={"players": 2, "seed": f"c{i}"}))["stateId"]
               for i in range(12)]  # fmt: skip
        for state_id in ids:
            assert ok(b.get(f"/v1/states/{state_id}"))["stateId"] == state_id
        alone, _ = play_game([a], send_state=inline)
        across, _ = play_game([a, b], send_state=by_id)
    assert across["state"] == alone["state"]


@pytest.mark.slow
def test_readiness_reports_the_cluster_cache(cluster_replicas: list[Replica]) -> None:
    for replica in cluster_replicas:
        with replica.client() as client:
            assert ok(client.get("/readyz"))["cache"]["ok"] is True


def test_versioned_records_swap_and_notify_through_the_cluster(
    redis_cluster: RedisCluster,
) -> None:
    """Tables' compare-and-set (one Lua script on one hash-tagged key) on keys spread over the
    nodes, and a notice published on one node heard through the seed node."""
    from manhattan.store.cas import GAP, RedisVersionedStore, make_versioned_store

    async def run() -> tuple[list[bool], list[bool], bytes]:
        store = make_versioned_store(redis_cluster.url)
        assert isinstance(store, RedisVersionedStore) and store.name == "redis-cluster"
        keys = [f"manhattan:test:{{table:{i}}}" for i in range(20)]
        messages = store.subscribe("manhattan:test:notices")
        try:
            firsts = [(await store.swap(k, 0, b"a", ttl=60))[0] for k in keys]
            seconds = [(await store.swap(k, 0, b"b", ttl=60))[0] for k in keys]
            assert await asyncio.wait_for(messages.__anext__(), 10) == GAP
            await store.publish("manhattan:test:notices", b"v2")
            heard = await asyncio.wait_for(messages.__anext__(), 10)
            return firsts, seconds, heard
        finally:
            await messages.aclose()  # type: ignore[attr-defined]
            await store.close()

    firsts, seconds, heard = asyncio.run(run())
    assert all(firsts) and not any(seconds)
    assert heard == b"v2"
