"""The HTTP request rate limit: a token bucket per client (the body-size limit is in
``middleware.py``, which must see the body before anything parses it; GraphQL's limits are in
``graphql/limits.py``)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable


class RateLimiter:
    """A token bucket per client key: ``rate`` requests per second, bursts up to ``burst``.

    In-process, so with several replicas each enforces its own share; a shared limit belongs in
    the ingress. Bounded to ``max_clients`` keys (least recently seen dropped).
    """

    def __init__(
        self,
        rate: float,
        burst: int,
        *,
        max_clients: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.max_clients = max_clients
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, client: str) -> float:
        """0.0 if the request may proceed, else the seconds until it may."""
        now = self._clock()
        tokens, last = self._buckets.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        if tokens >= 1.0:
            self._buckets[client] = (tokens - 1.0, now)
            wait = 0.0
        else:
            self._buckets[client] = (tokens, now)
            wait = (1.0 - tokens) / self.rate
        self._buckets.move_to_end(client)
        while len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        return wait
