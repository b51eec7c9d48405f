"""Redis Cluster: a three-node cluster on loopback, and replicas sharing it through
``REDIS_URL=redis+cluster://...``. Forming the cluster takes a few seconds: the store's round
trip through it runs by default, the replicas over it are slow."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
import redis

from manhattan.store.cache import RedisBackend, StateCache, make_backend
from manhattan.store.cas import GAP
from manhattan.store.redis_cas import RedisVersionedStore
from manhattan.store.versioned import make_versioned_store
from tests.conftest import RedisServer
from tests.scaleout.redis_cluster import RedisCluster
from tests.scaleout.replicas import Replica, by_id, inline, ok, play_game, start_replicas

pytestmark = pytest.mark.redis


def test_store_accepts_redis_cluster_urls() -> None:
    backend = make_backend("redis+cluster://127.0.0.1:7000/0")
    assert backend.name == "redis-cluster"


def test_a_node_whose_port_another_redis_took_does_not_count_as_started() -> None:
    """Its port taken between choice and start (here by a plain Redis), the node's process
    ends: the cluster moves that node to another port, never onto the other server."""
    other = RedisServer()
    other.start()
    cluster = RedisCluster(nodes=1)
    try:
        assert not cluster.start_node(other.port) and cluster.processes == {}
        assert cluster.start_node(cluster.ports[0])
    finally:
        cluster.stop()
        other.stop()


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


def shard_subscribers(cluster: RedisCluster, channel: str) -> dict[int, int]:
    """Per node port: subscribers of ``channel`` as a shard channel (PUBSUB SHARDNUMSUB)."""
    counts = {}
    for port in cluster.ports:
        with redis.Redis(port=port) as node:
            answer = node.execute_command("PUBSUB", "SHARDNUMSUB", channel)
            counts[port] = int(answer[1])
    return counts


def test_versioned_records_swap_and_notify_by_sharded_pub_sub(
    redis_cluster: RedisCluster,
) -> None:
    """Tables' compare-and-set (one Lua script on one hash-tagged key) on keys spread over the
    nodes, and notices by SSUBSCRIBE/SPUBLISH: each channel is followed on the one node that
    owns its slot (not broadcast to every node), and every notice is heard."""
    channels = [f"manhattan:test:{{notices:{i}}}" for i in range(6)]
    with redis.RedisCluster.from_url(redis_cluster.url.replace("+cluster", "")) as plain:
        owners = {ch: plain.get_node_from_key(ch).port for ch in channels}
    assert len(set(owners.values())) > 1  # the channels live on different nodes

    async def run() -> tuple[list[bool], list[bool], list[bytes], dict[str, dict[int, int]]]:
        store = make_versioned_store(redis_cluster.url)
        assert isinstance(store, RedisVersionedStore) and store.name == "redis-cluster"
        keys = [f"manhattan:test:{{table:{i}}}" for i in range(20)]
        streams = [store.subscribe(channel) for channel in channels]
        try:
            firsts = [(await store.swap(k, 0, b"a", ttl=60))[0] for k in keys]
            seconds = [(await store.swap(k, 0, b"b", ttl=60))[0] for k in keys]
            for stream in streams:
                assert await asyncio.wait_for(stream.__anext__(), 10) == GAP
            assert store.notices.sharded is True
            followed = {
                ch: await asyncio.to_thread(shard_subscribers, redis_cluster, ch) for ch in channels
            }
            heard = []
            for channel, stream in zip(channels, streams, strict=True):
                await store.publish(channel, channel.encode())
                heard.append(await asyncio.wait_for(stream.__anext__(), 10))
            return firsts, seconds, heard, followed
        finally:
            for stream in streams:
                await stream.aclose()  # type: ignore[attr-defined]
            await store.close()

    firsts, seconds, heard, followed = asyncio.run(run())
    assert all(firsts) and not any(seconds)
    assert heard == [channel.encode() for channel in channels]
    for channel, counts in followed.items():
        assert counts == {port: int(port == owners[channel]) for port in counts}
