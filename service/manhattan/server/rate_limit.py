"""The HTTP request rate limit: a token bucket per client (the body-size limit is in
``middleware.py``, which must see the body before anything parses it; GraphQL's limits are in
``graphql/limits.py``)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field


@dataclass(eq=False)
class RateLimiter:
    """A token bucket per client key: ``rate`` requests per second, bursts up to ``burst``.

    In-process, so with several replicas each enforces its own share; a shared limit belongs in
    the ingress. Bounded to ``max_clients`` keys (least recently seen dropped).
    """

    rate: float
    burst: int
    _: KW_ONLY
    max_clients: int = 10_000
    clock: Callable[[], float] = time.monotonic
    #: client key -> (tokens left, when they were counted), least recently seen first.
    _buckets: OrderedDict[str, tuple[float, float]] = field(
        default_factory=OrderedDict, init=False, repr=False
    )

    def allow(self, client: str) -> float:
        """0.0 if the request may proceed, else the seconds until it may."""
        now = self.clock()
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
