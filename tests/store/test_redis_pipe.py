"""``RedisPipe``, the pipelined connection the versioned store sends its swaps on, against a
real Redis: concurrent callers each get their own reply, a flushed script is loaded again
unseen, a killed connection fails what was in flight and the next call connects afresh, a reply
that does not come in time is a ``TimeoutError`` and never a hang, and the URL's db, user,
password and TLS are honoured. And its ``Subscription``, the lean listening connection of the
table notices: every push handed over in order as it comes, a killed one lost at once."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.asyncio as redis
from redis.exceptions import AuthenticationError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from manhattan.store.cache import StoreUnavailable
from manhattan.store.cas import Record
from manhattan.store.redis_cas import RedisVersionedStore
from manhattan.store.redis_pipe import RedisPipe, Subscription, encode_command
from tests.conftest import RedisServer
from tests.ports import free_port
from tests.store.test_redis_faults import SPIN, command, raw_connection

pytestmark = [pytest.mark.anyio, pytest.mark.redis]

#: Answers its argument after as many Redis calls as the argument is long: replies of many sizes.
ECHO = "for i = 1, #ARGV[1] % 7 do redis.call('PING') end return ARGV[1]"


def key() -> str:
    return f"manhattan:test:{{pipe:{uuid.uuid4().hex}}}"


def in_db(url: str, db: int) -> str:
    return url.rsplit("/", 1)[0] + f"/{db}"


def test_commands_are_resp_arrays_of_bulk_strings() -> None:
    assert encode_command(("SET", "k", b"\x00\r\n", 12, 1.5)) == (
        b"*5\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\n\x00\r\n\r\n$2\r\n12\r\n$3\r\n1.5\r\n"
    )


async def test_many_concurrent_calls_each_get_their_own_reply(redis_url: str) -> None:
    pipe = RedisPipe(redis_url, timeout=5)
    echo = pipe.register_script(ECHO)
    words = [uuid.uuid4().hex * (i % 50 + 1) for i in range(1000)]
    try:
        replies = await asyncio.gather(*(echo(keys=[], args=[word]) for word in words))
        assert replies == [word.encode() for word in words]
    finally:
        await pipe.close()


async def test_a_cancelled_caller_leaves_the_others_their_replies(redis_url: str) -> None:
    pipe = RedisPipe(redis_url, timeout=5)
    try:
        calls = [asyncio.create_task(pipe.execute("ECHO", str(i))) for i in range(100)]
        await asyncio.sleep(0)  # sent, not answered
        for call in calls[::3]:
            call.cancel()
        for i, call in enumerate(calls):
            if i % 3:
                assert await call == str(i).encode()
        assert await pipe.execute("ECHO", "after") == b"after"
    finally:
        await pipe.close()


async def test_concurrent_swaps_through_the_store(redis_url: str) -> None:
    store = RedisVersionedStore(redis_url)
    names = [key() for _ in range(100)]

    async def swaps(name: str) -> None:
        for version in range(5):
            data = f"{name}:{version + 1}".encode()
            assert await store.swap(name, version, data, ttl=60) == (
                True,
                Record(version + 1, data),
            )
        assert await store.swap(name, 2, b"late", ttl=60) == (
            False,
            Record(5, f"{name}:5".encode()),
        )

    try:
        assert store._pipe is not None
        await asyncio.gather(*(swaps(name) for name in names))
        assert await store.read(names[0]) == Record(5, f"{names[0]}:5".encode())
    finally:
        await store.close()


async def test_closing_while_connecting_leaves_no_connection_open(redis_url: str) -> None:
    pipe = RedisPipe(redis_url, timeout=5)
    call = asyncio.create_task(pipe.execute("PING"))
    await asyncio.sleep(0)  # connecting
    assert pipe._connecting is not None
    await pipe.close()
    assert pipe._connection is None
    result = await asyncio.gather(call, return_exceptions=True)
    assert result == [b"PONG"] or isinstance(result[0], RedisConnectionError)
    assert await pipe.execute("PING") == b"PONG"  # a call after close connects again
    await pipe.close()


async def test_an_error_reply_is_a_response_error(redis_url: str) -> None:
    pipe = RedisPipe(redis_url, timeout=5)
    broken = pipe.register_script("return redis.call('NOSUCHCOMMAND')")
    try:
        with pytest.raises(ResponseError):
            await broken(keys=[], args=[])
        assert await pipe.execute("PING") == b"PONG"  # the connection stays in step
    finally:
        await pipe.close()


async def test_a_flushed_script_is_loaded_again_unseen(redis_server: RedisServer) -> None:
    pipe = RedisPipe(redis_server.url, timeout=5)
    echo = pipe.register_script(ECHO)
    try:
        assert await echo(keys=[], args=["one"]) == b"one"
        assert await pipe.execute("SCRIPT", "FLUSH") == b"OK"
        assert await pipe.execute("SCRIPT", "EXISTS", echo.sha) == [0]
        replies = await asyncio.gather(*(echo(keys=[], args=[str(i)]) for i in range(50)))
        assert replies == [str(i).encode() for i in range(50)]
        assert await pipe.execute("SCRIPT", "EXISTS", echo.sha) == [1]
    finally:
        await pipe.close()


async def test_a_killed_connection_fails_what_was_in_flight(redis_server: RedisServer) -> None:
    """Writes paused, the calls wait in Redis; the connection is killed under them: each one
    fails with a connection error at once, and the next call connects afresh."""
    pipe = RedisPipe(redis_server.url, timeout=5)
    admin = redis.Redis.from_url(redis_server.url)
    swap = pipe.register_script("return redis.call('INCR', KEYS[1])")
    name = key()
    try:
        own_id = await pipe.execute("CLIENT", "ID")
        await admin.execute_command("CLIENT", "PAUSE", 5000, "WRITE")
        calls = [asyncio.create_task(swap(keys=[name], args=[])) for _ in range(20)]
        await asyncio.sleep(0.1)
        assert not any(call.done() for call in calls)
        started = time.monotonic()
        assert await admin.execute_command("CLIENT", "KILL", "ID", own_id) == 1
        results = await asyncio.gather(*calls, return_exceptions=True)
        assert time.monotonic() - started < 2.5  # at once, not at the 5 s timeout
        assert all(isinstance(result, RedisConnectionError) for result in results), results
        await admin.execute_command("CLIENT", "UNPAUSE")
        assert await swap(keys=[name], args=[]) == 1  # none of the killed calls ran
        assert await pipe.execute("CLIENT", "ID") != own_id
    finally:
        await pipe.close()
        await admin.aclose()


async def test_the_store_retries_swaps_a_killed_connection_failed(
    redis_server: RedisServer,
) -> None:
    store = RedisVersionedStore(redis_server.url, timeout=3)
    admin = redis.Redis.from_url(redis_server.url)
    names = [key() for _ in range(30)]
    try:
        assert store._pipe is not None
        own_id = await store._pipe.execute("CLIENT", "ID")
        await admin.execute_command("CLIENT", "PAUSE", 300, "WRITE")
        swaps = [asyncio.create_task(store.swap(name, 0, b"v1", ttl=60)) for name in names]
        await asyncio.sleep(0.1)
        await admin.execute_command("CLIENT", "KILL", "ID", own_id)
        assert await asyncio.gather(*swaps) == [(True, Record(1, b"v1"))] * len(names)
    finally:
        await store.close()
        await admin.aclose()


async def test_a_late_reply_is_a_timeout_not_a_hang(redis_server: RedisServer) -> None:
    """Redis is busy with a script for 0.4 s; the swap's timeout is 0.15 s: the swap fails in
    about that time, and the store answers again once Redis is free."""
    store = RedisVersionedStore(redis_server.url, timeout=0.15)
    name = key()
    try:
        assert (await store.swap(name, 0, b"v1", ttl=60))[0]
        spinner = raw_connection(redis_server)
        spinner.sendall(command("EVAL", SPIN, "0"))
        await asyncio.sleep(0.05)
        started = time.monotonic()
        async with asyncio.timeout(2):
            with pytest.raises(StoreUnavailable) as failed:
                await store.swap(name, 1, b"v2", ttl=60)
        assert isinstance(failed.value.__cause__, RedisTimeoutError)
        assert time.monotonic() - started < 1.0  # its 0.15 s timeout, not the script's end
        spinner.close()
        await asyncio.sleep(0.4)
        record = await store.read(name)
        assert record is not None
        assert (await store.swap(name, record.version, b"v3", ttl=60))[0]
    finally:
        await store.close()


async def test_a_stalled_process_is_not_a_late_reply(redis_url: str) -> None:
    """The loop is held for longer than the timeout just after a command is queued (a long
    callback, a paused machine): the command had no chance to go out, so its timer, firing late,
    grants it as long again, and the reply that then comes in milliseconds answers it."""
    pipe = RedisPipe(redis_url, timeout=0.5)
    try:
        assert await pipe.execute("PING") == b"PONG"
        asyncio.get_running_loop().call_soon(time.sleep, 0.8)  # before the command's flush
        assert await pipe.execute("ECHO", "late") == b"late"
    finally:
        await pipe.close()


async def test_a_stall_gives_a_stuck_redis_one_more_timeout_only(
    redis_server: RedisServer,
) -> None:
    """Redis is busy for 2.5 s; the loop stalls from 0.1 s to 0.8 s, so the timer due at the
    0.5 s timeout fires 0.3 s late: the grace is those 0.3 s, once, and the command fails at
    about 1.1 s, not at the stall's end nor when Redis is free."""
    pipe = RedisPipe(redis_server.url, timeout=0.5)
    spinner = raw_connection(redis_server)
    try:
        assert await pipe.execute("PING") == b"PONG"
        spinner.sendall(command("EVAL", SPIN.replace("400000", "2500000"), "0"))
        await asyncio.sleep(0.05)
        started = time.monotonic()
        asyncio.get_running_loop().call_later(0.1, time.sleep, 0.7)
        with pytest.raises(RedisTimeoutError):
            await pipe.execute("PING")
        assert 0.95 < time.monotonic() - started < 2.0
    finally:
        spinner.close()
        await pipe.close()


async def test_the_url_db_is_selected(redis_url: str) -> None:
    name = key()
    pipe = RedisPipe(in_db(redis_url, 10), timeout=5)
    in_10 = redis.Redis.from_url(in_db(redis_url, 10))
    in_9 = redis.Redis.from_url(in_db(redis_url, 9))
    try:
        assert await pipe.execute("SET", name, b"here", "EX", 60) == b"OK"
        assert await in_10.get(name) == b"here"
        assert await in_9.get(name) is None
    finally:
        await pipe.close()
        await in_10.delete(name)
        await in_10.aclose()
        await in_9.aclose()


@pytest.fixture
def guarded_server(redis_server: RedisServer) -> RedisServer:
    """A Redis with a password for the default user and a user of its own."""
    with raw_connection(redis_server) as connection:
        connection.sendall(command("ACL", "SETUSER", "alice", "on", ">wonder", "~*", "+@all"))
        connection.sendall(command("CONFIG", "SET", "requirepass", "s3cret"))
        time.sleep(0.1)
        assert connection.recv(64) == b"+OK\r\n+OK\r\n"
    return redis_server


async def test_the_url_password_and_user_are_sent(guarded_server: RedisServer) -> None:
    base = f"127.0.0.1:{guarded_server.port}/2"
    for url in (f"redis://:s3cret@{base}", f"redis://alice:wonder@{base}"):
        pipe = RedisPipe(url, timeout=5)
        try:
            assert b" db=2 " in await pipe.execute("CLIENT", "INFO")
        finally:
            await pipe.close()
    for url in (f"redis://:wrong@{base}", f"redis://{base}"):
        pipe = RedisPipe(url, timeout=5)
        try:
            with pytest.raises(AuthenticationError):
                await pipe.execute("PING")
        finally:
            await pipe.close()


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[RedisServer, int, Path]]:
    """A Redis with a TLS port, its certificate signed by a throwaway CA (``ca.pem``)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not on PATH")
    ca, cert, private = tmp_path / "ca.pem", tmp_path / "cert.pem", tmp_path / "key.pem"
    openssl = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
    subprocess.run(
        [*openssl, "-keyout", tmp_path / "ca.key", "-out", ca, "-subj", "/CN=test-ca"],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [
            *(*openssl, "-keyout", private, "-out", cert, "-subj", "/CN=localhost"),
            *("-CA", ca, "-CAkey", tmp_path / "ca.key", "-addext", "subjectAltName=DNS:localhost"),
        ],
        check=True,
        capture_output=True,
    )
    tls_port = free_port()
    server = RedisServer(
        options=(
            *("--tls-port", str(tls_port), "--tls-auth-clients", "no"),
            *("--tls-cert-file", str(cert), "--tls-key-file", str(private)),
            *("--tls-ca-cert-file", str(ca)),
        )
    )
    server.start()
    try:
        yield server, tls_port, ca
    finally:
        server.stop()


async def test_rediss_speaks_tls_and_checks_the_certificate(
    tls_server: tuple[RedisServer, int, Path],
) -> None:
    _, port, ca = tls_server
    trusted = RedisPipe(f"rediss://localhost:{port}/3?ssl_ca_certs={ca}", timeout=5)
    untrusted = RedisPipe(f"rediss://localhost:{port}/3", timeout=5)
    try:
        assert b" db=3 " in await trusted.execute("CLIENT", "INFO")
        with pytest.raises(RedisConnectionError):
            await untrusted.execute("PING")
    finally:
        await trusted.close()
        await untrusted.close()


async def test_no_redis_is_a_connection_error_within_the_timeout() -> None:
    pipe = RedisPipe(f"redis://127.0.0.1:{free_port()}/0", timeout=0.5)
    started = time.monotonic()
    with pytest.raises(RedisConnectionError):
        await pipe.execute("PING")
    assert time.monotonic() - started < 2.5  # (slack for a busy machine)
    await pipe.close()


async def _subscribed(pipe: RedisPipe, pushes: list[list[object]], channel: str) -> Subscription:
    subscription = await pipe.subscription(pushes.append)
    subscription.command("SSUBSCRIBE", channel)
    deadline = time.monotonic() + 5
    while not pushes:
        assert time.monotonic() < deadline, "not subscribed in time"
        await asyncio.sleep(0.01)
    assert pushes.pop(0) == [b"ssubscribe", channel.encode(), 1]
    return subscription


async def test_a_subscription_hands_over_every_push_in_order(redis_url: str) -> None:
    pipe = RedisPipe(redis_url, timeout=5)
    publisher = redis.Redis.from_url(redis_url)
    channel = f"manhattan:test:{{sub:{uuid.uuid4().hex}}}"
    pushes: list[list[object]] = []
    subscription = await _subscribed(pipe, pushes, channel)
    try:
        sent = [uuid.uuid4().bytes * (i % 9 + 1) for i in range(300)]
        for data in sent:
            await publisher.spublish(channel, data)
        deadline = time.monotonic() + 5
        while len(pushes) < len(sent):
            assert time.monotonic() < deadline, f"{len(pushes)} of {len(sent)} in time"
            await asyncio.sleep(0.01)
        assert pushes == [[b"smessage", channel.encode(), data] for data in sent]
        subscription.command("SUNSUBSCRIBE", channel)
        while len(pushes) == len(sent):
            await asyncio.sleep(0.01)
        assert pushes[-1] == [b"sunsubscribe", channel.encode(), 0]
    finally:
        subscription.close()
        await asyncio.wait_for(subscription.lost, 5)
        await publisher.aclose()
        await pipe.close()


async def test_a_killed_subscription_is_lost_at_once(redis_url: str) -> None:
    pipe = RedisPipe(redis_url, timeout=5)
    admin = redis.Redis.from_url(redis_url)
    channel = f"manhattan:test:{{sub:{uuid.uuid4().hex}}}"
    subscription = await _subscribed(pipe, [], channel)
    try:
        killed = await admin.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
        assert killed >= 1
        await asyncio.wait_for(subscription.lost, 2)
        assert isinstance(subscription.failed, RedisConnectionError)
        with pytest.raises(RedisConnectionError):
            subscription.command("SSUBSCRIBE", channel)
    finally:
        subscription.close()
        await admin.aclose()
        await pipe.close()


async def test_a_subscription_is_authenticated_as_the_url_says(
    guarded_server: RedisServer,
) -> None:
    base = f"127.0.0.1:{guarded_server.port}/2"
    pipe = RedisPipe(f"redis://:s3cret@{base}", timeout=5)
    subscription = await _subscribed(pipe, [], "manhattan:test:{sub:guarded}")
    subscription.close()
    with pytest.raises(AuthenticationError):
        await RedisPipe(f"redis://:wrong@{base}", timeout=5).subscription(print)
