"""Fixtures for the scale-out tests: a Redis of the module's own (never the shared one) and
replicas of the service around it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import RedisServer
from tests.scaleout.redis_cluster import RedisCluster
from tests.scaleout.replicas import Replica, start_replicas


@pytest.fixture(scope="module")
def module_redis() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def replica_pair(module_redis: RedisServer) -> Iterator[list[Replica]]:
    # A generous Redis timeout: on a CPU-starved machine a stalled event loop makes the 0.25 s
    # default fire spuriously, and these tests are about sharing, not about timeouts.
    replicas = start_replicas(2, module_redis.url, MANHATTAN_REDIS_TIMEOUT="2")
    try:
        yield replicas
    finally:
        for replica in replicas:
            replica.stop()


@pytest.fixture(scope="module")
def redis_cluster() -> Iterator[RedisCluster]:
    """A three-node Redis Cluster of the module's own (a few seconds to form)."""
    reason = RedisCluster.available()
    if reason is not None:
        pytest.skip(reason)
    cluster = RedisCluster().start()
    try:
        yield cluster
    finally:
        cluster.stop()
