"""Redis faults without fallout, against a real ``redis-server`` the tests stop,
restart, pause and cut: no call fails for a pooled connection a restart left dead, a swap whose
reply was lost is not reported as a conflict, one slow reply does not open the cache's circuit,
a busy process at the default pool and timeouts sees no failure and no warning, and an outage
logs one line per kind of failure."""

from __future__ import annotations

import asyncio
import logging
import socket
import uuid
from collections import Counter

import pytest

from manhattan.store.cache import RedisBackend, StoreUnavailable
from manhattan.store.cas import Record
from manhattan.store.redis_cas import RedisVersionedStore
from tests.conftest import RedisServer

pytestmark = [pytest.mark.anyio, pytest.mark.redis]

#: A script that keeps Redis busy for 0.4 s: commands sent meanwhile wait in their sockets.
SPIN = (
    "local t0 = redis.call('TIME') repeat local t = redis.call('TIME') "
    "until (t[1] - t0[1]) * 1000000 + (t[2] - t0[2]) > 400000 return 1"
)


def command(*words: str) -> bytes:
    encoded = "".join(f"${len(word.encode())}\r\n{word}\r\n" for word in words)
    return f"*{len(words)}\r\n{encoded}".encode()


def raw_connection(server: RedisServer) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    connection.sendall(command("PING"))
    assert connection.recv(16).startswith(b"+PONG")
    return connection


def key() -> str:
    return f"manhattan:test:{{t:{uuid.uuid4().hex}}}"


async def fill_the_pool(store: RedisVersionedStore, backend: RedisBackend) -> None:
    await asyncio.gather(*(store.read(key()) for _ in range(64)))
    await asyncio.gather(*(backend.get(key()) for _ in range(64)))


async def test_no_call_fails_for_a_connection_a_redis_restart_left_dead(
    redis_server: RedisServer,
) -> None:
    store = RedisVersionedStore(redis_server.url)
    backend = RedisBackend(redis_server.url)
    failures: Counter[str] = Counter()

    async def use(name: str) -> None:
        try:
            await store.read(name)
            await store.swap(name, 0, b"v1", ttl=60)
            await store.put(name + ":ticket", b"t", ttl=60)
            await store.get(name + ":ticket")
            await store.publish("manhattan:test:channel", b"n")
            await backend.set(name, b"c", 60)
            await backend.get(name)
        except StoreUnavailable as exc:
            failures[repr(exc.__cause__)] += 1

    try:
        await fill_the_pool(store, backend)
        redis_server.stop()
        redis_server.start()  # the same port: every pooled connection is now dead
        await asyncio.gather(*(use(key()) for _ in range(100)))
        assert failures == Counter()
        assert not backend.is_down
        name = key()  # after the first failures the idle dead connections were dropped,
        await store.put(name, b"t", ttl=60)  # so even a call never retried finds a live one
        assert await store.take(name) == b"t"
    finally:
        await store.close()
        await backend.close()


async def test_a_swap_retried_after_its_reply_was_lost_is_a_success(
    redis_server: RedisServer,
) -> None:
    """Redis runs the swap, then the connection is cut before the reply is read: the retry
    finds the version it wrote holding its data, which is the swap's success."""
    store = RedisVersionedStore(redis_server.url, timeout=3)
    name = key()
    try:
        assert (await store.swap(name, 0, b"old", ttl=60))[0]
        killer = raw_connection(redis_server)  # connected before Redis is busy
        spinner = raw_connection(redis_server)
        spinner.sendall(command("EVAL", SPIN, "0"))
        await asyncio.sleep(0.05)
        swap = asyncio.create_task(store.swap(name, 1, b"new", ttl=60))
        await asyncio.sleep(0.05)  # the swap waits in its socket, ahead of the kill
        killer.sendall(command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"))
        assert await swap == (True, Record(2, b"new"))
        assert await store.read(name) == Record(2, b"new")
        assert await store.swap(name, 1, b"new", ttl=60) == (False, Record(2, b"new"))
        killer.close()
        spinner.close()
    finally:
        await store.close()


def pause(server: RedisServer, milliseconds: int) -> None:
    with raw_connection(server) as connection:
        connection.sendall(command("CLIENT", "PAUSE", str(milliseconds), "ALL"))
        assert connection.recv(16).startswith(b"+OK")


async def test_one_slow_reply_does_not_open_the_cache_circuit(redis_server: RedisServer) -> None:
    backend = RedisBackend(redis_server.url, timeout=0.2, retry_after=30)
    try:
        await backend.set("k", b"v", 60)
        pause(redis_server, 400)
        with pytest.raises(StoreUnavailable):
            await backend.get("k")
        assert not backend.is_down  # one slow reply: that call fails, the next tries again
        await asyncio.sleep(0.4)
        assert await backend.get("k") == b"v"
        pause(redis_server, 1_000)
        for _ in range(3):  # slow again and again: now it is an outage
            with pytest.raises(StoreUnavailable):
                await backend.get("k")
        assert backend.is_down
    finally:
        await backend.close()


async def test_a_busy_process_at_the_defaults_sees_no_failure_and_no_warning(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """200 tables flat out, in miniature: 400 tasks at once, each reading and
    swapping its record, through the default pool size and timeouts."""
    caplog.set_level(logging.WARNING, "manhattan")
    store = RedisVersionedStore(redis_url)
    names = [key() for _ in range(400)]

    async def play(name: str) -> None:
        for version in range(10):
            assert await store.read(name) == (None if version == 0 else Record(version, b"m"))
            assert (await store.swap(name, version, b"m", ttl=60))[0]

    try:
        await asyncio.gather(*(play(name) for name in names))
    finally:
        await store.close()
    assert [r.getMessage() for r in caplog.records] == []


async def test_an_outage_is_one_warning_per_kind_then_a_count(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "manhattan.store")
    store = RedisVersionedStore(redis_server.url, timeout=0.5)
    try:
        await store.read(key())
        redis_server.stop()
        for _ in range(200):
            with pytest.raises(StoreUnavailable):
                await store.read(key())
        assert [r.getMessage() for r in caplog.records] == [
            "table store (Redis) unavailable (ConnectionError)"
        ]
        redis_server.start()
        await store.read(key())
    finally:
        await store.close()
    messages = [r.getMessage() for r in caplog.records]
    assert messages[1].startswith("table store (Redis) is back after")
    assert messages[2:] == ["table store (Redis) was unavailable: 200 failures (ConnectionError)"]


async def test_without_sharded_pub_sub_notices_fall_back_to_publish(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A Redis without SPUBLISH (as before 7; here the command is renamed away) answers the
    probe with an error: notices then go by PUBLISH/SUBSCRIBE, said once in the log."""
    caplog.set_level(logging.WARNING, "manhattan.store")
    server = RedisServer(options=("--rename-command", "SPUBLISH", ""))
    server.start()
    store = RedisVersionedStore(server.url)
    messages = store.subscribe("manhattan:test:old")
    try:
        assert await asyncio.wait_for(messages.__anext__(), 5) == b""  # GAP: subscribed
        for text in (b"one", b"two"):
            await store.publish("manhattan:test:old", text)
            assert await asyncio.wait_for(messages.__anext__(), 5) == text
        assert store.notices.sharded is False
    finally:
        await messages.aclose()  # type: ignore[attr-defined]
        await store.close()
        server.stop()
    assert [r.getMessage() for r in caplog.records] == [
        "Redis < 7 has no sharded pub/sub: table notices use plain PUBLISH"
    ]


async def test_notices_use_sharded_pub_sub_on_redis_7(redis_server: RedisServer) -> None:
    store = RedisVersionedStore(redis_server.url)
    messages = store.subscribe("manhattan:test:new")
    try:
        assert await asyncio.wait_for(messages.__anext__(), 5) == b""
        with raw_connection(redis_server) as connection:
            connection.sendall(command("PUBSUB", "SHARDNUMSUB", "manhattan:test:new"))
            assert connection.recv(100).endswith(b":1\r\n")  # followed as a shard channel
            connection.sendall(command("SPUBLISH", "manhattan:test:new", "hello"))
            assert connection.recv(16) == b":1\r\n"
        assert await asyncio.wait_for(messages.__anext__(), 5) == b"hello"
        assert store.notices.sharded is True
    finally:
        await messages.aclose()  # type: ignore[attr-defined]
        await store.close()
