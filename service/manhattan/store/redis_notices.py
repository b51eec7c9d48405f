"""Change notices over Redis pub/sub, sharded where Redis has it.

On Redis >= 7 notices are ``SPUBLISH``ed and heard with ``SSUBSCRIBE``: a shard channel lives in
the slot of its name, so on Redis Cluster a notice goes to the node that owns that slot (and its
replicas) rather than being broadcast over the cluster bus to every node. Older Redis answers
``SPUBLISH`` with an error: then plain ``PUBLISH``/``SUBSCRIBE`` are used, said once in the log.

One process keeps one listening connection (on a cluster, one per node owning a followed
channel, through redis-py's ``ClusterPubSub``) for every channel its local subscribers follow,
and fans each notice out to them (``Fanout``). A (re)confirmed subscription tells the channel's
subscribers ``GAP`` (notices may have been missed: re-read); after a failure the listener
reconnects every ``retry_every`` seconds, with one warning per kind of failure (``OutageLog``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import redis.asyncio as redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError, ResponseError

from manhattan.store.cas import GAP, Fanout, offer
from manhattan.store.outage import OutageLog
from manhattan.store.redis_pipe import RedisPipe, Subscription

log = logging.getLogger("manhattan.store.notices")

#: The channel the first ``SPUBLISH`` goes to, to learn whether Redis has sharded pub/sub.
PROBE_CHANNEL = "manhattan:1:probe"
_FAILURES = (TimeoutError, RedisError, OSError)


class RedisNotices:
    """Publish and subscribe through ``client`` (commands: publishing, and a cluster's pub/sub)
    and ``listener_client`` (a standalone Redis's listening connection: no read timeout). With
    a ``pipe`` (plain Redis), the listening connection is the pipe's lean ``Subscription``."""

    def __init__(
        self,
        client: redis.Redis | RedisCluster,
        listener_client: redis.Redis,
        *,
        pipe: RedisPipe | None = None,
        retry_every: float = 0.2,
    ) -> None:
        self._client = client
        self._listener_client = listener_client
        self._pipe = pipe
        self.retry_every = retry_every
        self.sharded: bool | None = None
        self._fanout = Fanout()
        self._listener: asyncio.Task[None] | None = None
        self._closing = False
        self._pubsub: Any = None
        self._confirmed: set[str] = set()
        self._outage = OutageLog(log, "table notices (Redis pub/sub)")

    async def publish(self, channel: str, message: bytes) -> None:
        if await self._is_sharded():
            await self._client.spublish(channel, message)
        else:
            await self._listener_client.publish(channel, message)

    async def is_sharded(self) -> bool:
        """Whether notices go by ``SPUBLISH`` (Redis >= 7) or plain ``PUBLISH``."""
        return await self._is_sharded()

    async def _is_sharded(self) -> bool:
        """Whether Redis has ``SPUBLISH`` (asked once, by a probe)."""
        if self.sharded is None:
            try:
                await self._client.spublish(PROBE_CHANNEL, b"")
                self.sharded = True
            except ResponseError:
                log.warning("Redis < 7 has no sharded pub/sub: table notices use plain PUBLISH")
                self.sharded = False
        return self.sharded

    async def subscribe(self, channel: str) -> AsyncIterator[bytes]:
        """Notices of ``channel``; the first item, ``GAP``, comes once Redis has confirmed the
        subscription, so nothing published after the subscriber's first re-read is missed."""
        queue = self._fanout.add(channel)
        if channel in self._confirmed:
            offer(queue, GAP)
        elif self._pubsub is not None:
            with contextlib.suppress(*_FAILURES):
                await self._subscribe(self._pubsub, channel)  # the listener sees the answer
        if self._listener is None or self._listener.done():
            self._closing = False
            self._listener = asyncio.create_task(self._listen(), name="manhattan-notices")
        try:
            while True:
                yield await queue.get()
        finally:
            if self._fanout.remove(channel, queue):
                self._confirmed.discard(channel)
                if self._pubsub is not None:
                    with contextlib.suppress(*_FAILURES):
                        await self._unsubscribe(self._pubsub, channel)

    async def _subscribe(self, pubsub: Any, *channels: str) -> None:
        if isinstance(pubsub, Subscription):
            pubsub.command("SSUBSCRIBE" if self.sharded else "SUBSCRIBE", *channels)
        elif self.sharded:
            await pubsub.ssubscribe(*channels)
        else:
            await pubsub.subscribe(*channels)

    async def _unsubscribe(self, pubsub: Any, channel: str) -> None:
        if isinstance(pubsub, Subscription):
            pubsub.command("SUNSUBSCRIBE" if self.sharded else "UNSUBSCRIBE", channel)
        elif self.sharded:
            await pubsub.sunsubscribe(channel)
        else:
            await pubsub.unsubscribe(channel)

    async def _open(self) -> Any:
        if self._pipe is not None:
            return await self._pipe.subscription(self._pushed)
        if self.sharded and isinstance(self._client, RedisCluster):
            return self._client.pubsub()
        return self._listener_client.pubsub()

    async def _next(self, pubsub: Any) -> dict[str, Any] | None:
        if self.sharded and isinstance(self._client, RedisCluster):
            message: dict[str, Any] | None = await pubsub.get_sharded_message(timeout=1.0)
        else:
            message = await pubsub.get_message(timeout=1.0)
        return message

    async def _listen(self) -> None:
        """Keeps the channels local subscribers follow subscribed, reconnecting after
        failures."""
        # ``_closing`` too: a cancel lost to a retried failure must not keep it running.
        while self._fanout.queues and not self._closing:
            pubsub: Any = None
            try:
                await self._is_sharded()
                pubsub = await self._open()
                await self._subscribe(pubsub, *self._fanout.queues)
                self._pubsub = pubsub
                if isinstance(pubsub, Subscription):
                    await self._follow(pubsub)
                else:
                    await self._read(pubsub)
            except _FAILURES as exc:
                if not self._outage.active:
                    self._fanout.deliver_gap()  # notices may be lost from now on
                self._outage.failed(exc)
                await asyncio.sleep(self.retry_every)
            finally:
                self._pubsub = None
                self._confirmed.clear()
                if isinstance(pubsub, Subscription):
                    pubsub.close()
                elif pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()

    async def _follow(self, subscription: Subscription) -> None:
        """While anyone follows a channel: the pushes are dispatched as they come (``_pushed``);
        a lost connection raises its failure, for the listener to reconnect."""
        while self._fanout.queues and not self._closing:
            await asyncio.wait([subscription.lost], timeout=1.0)
            if subscription.failed is not None:
                raise subscription.failed

    async def _read(self, pubsub: Any) -> None:
        """While anyone follows a channel: redis-py's messages, read one by one."""
        while self._fanout.queues and not self._closing:
            message = await self._next(pubsub)
            if message is not None:
                self._dispatch(message.get("type"), message["channel"], message.get("data"))

    def _pushed(self, reply: list[Any]) -> None:
        if len(reply) == 3:
            self._dispatch(reply[0].decode(), reply[1], reply[2])

    def _dispatch(self, kind: str | None, channel: bytes | str, data: Any) -> None:
        name = channel.decode() if isinstance(channel, bytes) else str(channel)
        if kind in ("message", "smessage"):
            self._fanout.deliver(name, data if isinstance(data, bytes) else str(data).encode())
        elif kind in ("subscribe", "ssubscribe"):
            self._outage.recovered()
            self._confirmed.add(name)
            self._fanout.deliver(name, GAP)
        elif kind in ("unsubscribe", "sunsubscribe"):
            self._confirmed.discard(name)

    async def close(self) -> None:
        self._closing = True
        self._fanout.deliver_gap()
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener


__all__ = ["PROBE_CHANNEL", "RedisNotices"]
