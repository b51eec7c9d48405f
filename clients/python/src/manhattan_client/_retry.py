"""Retries with exponential backoff, on connection errors only.

Only a request that never reached the service is retried (connection refused, connect timeout):
every operation is a pure computation, but a request that was sent may have been answered, and
an answer (even a 5xx) is never second-guessed here.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import httpx

#: The httpx errors that mean "the request was not sent".
RETRYABLE = (httpx.ConnectError, httpx.ConnectTimeout)


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryPolicy:
    """``attempts`` in all (1 = no retry); delays ``backoff * 2**k`` capped at ``max_backoff``,
    each scaled by a random factor in [0.5, 1] when ``jitter`` is on (spreads reconnect storms)."""

    attempts: int = 3
    backoff: float = 0.1
    max_backoff: float = 2.0
    jitter: bool = True

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("attempts is at least 1")

    def delays(self, rng: random.Random | None = None) -> Iterator[float]:
        """The pauses between attempts: ``attempts - 1`` of them."""
        rng = rng or random.Random()
        for k in range(self.attempts - 1):
            delay = min(self.max_backoff, self.backoff * 2**k)
            yield delay * (0.5 + rng.random() / 2) if self.jitter else delay


NO_RETRY = RetryPolicy(attempts=1)
