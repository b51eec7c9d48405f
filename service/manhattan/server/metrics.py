"""Prometheus metrics (``GET /metrics``): requests, latencies, cache outcomes, errors by code.

Each app owns its registry, so several apps in one process (tests) never collide.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, disable_created_metrics
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.utils import floatToGoString

CONTENT_TYPE = CONTENT_TYPE_LATEST
disable_created_metrics()  # type: ignore[no-untyped-call]  # the *_created series double the output and nobody reads them
_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class RequestCounts:
    """Requests by route, method and status, and their durations by route, counted in plain
    dicts and lists and handed to Prometheus as a counter and a histogram when it scrapes.
    ``prometheus_client``'s own take a lock and several calls for each request (about 2 µs of
    a stateless request's 80); the series are the same."""

    def __init__(self, buckets: tuple[float, ...]) -> None:
        self.buckets = buckets
        self.counts: dict[tuple[str, str, int], int] = {}
        #: By route: each bucket's count (not cumulative; the last is +Inf), then the sum.
        self.durations: dict[str, list[float]] = {}

    def observe(self, route: str, method: str, status: int, seconds: float) -> None:
        key = (route, method, status)
        self.counts[key] = self.counts.get(key, 0) + 1
        durations = self.durations.get(route)
        if durations is None:
            durations = self.durations[route] = [0.0] * (len(self.buckets) + 2)
        durations[bisect_left(self.buckets, seconds)] += 1
        durations[-1] += seconds

    def describe(self) -> list[Metric]:
        return list(self._families({}, {}))

    def collect(self) -> Iterator[Metric]:
        # (read whole within one turn of the event loop that counts: no copies needed)
        return self._families(self.counts, self.durations)

    def _families(
        self, counts: dict[tuple[str, str, int], int], durations: dict[str, list[float]]
    ) -> Iterator[Metric]:
        requests = CounterMetricFamily(
            "manhattan_requests",
            "HTTP requests by route, method and status",
            labels=["route", "method", "status"],
        )
        for (route, method, status), count in counts.items():
            requests.add_metric([route, method, str(status)], count)
        yield requests
        latency = HistogramMetricFamily(
            "manhattan_request_duration_seconds",
            "Time from request start to the end of the response, by route",
            labels=["route"],
        )
        bounds = [*map(floatToGoString, self.buckets), "+Inf"]
        for route, values in durations.items():
            cumulative, total = [], 0.0
            for bound, in_bucket in zip(bounds, values, strict=False):  # (the sum left out)
                total += in_bucket
                cumulative.append((bound, total))
            latency.add_metric([route], cumulative, sum_value=values[-1])
        yield latency


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = RequestCounts(_LATENCY_BUCKETS)
        self.registry.register(self.requests)
        self.cache = Counter(
            "manhattan_cache",
            "State cache lookups by kind (state, legal, suggest) and outcome (hit, miss, error)",
            ["kind", "outcome"],
            registry=self.registry,
        )
        self.errors = Counter(
            "manhattan_errors",
            "Expected failures returned to callers, by code (REST and GraphQL)",
            ["code"],
            registry=self.registry,
        )
        self.ephemeral_key = Gauge(
            "manhattan_token_key_ephemeral",
            "1 when tokens are sealed with a key generated at start (lost on restart)",
            registry=self.registry,
        )

    def observe_request(self, route: str, method: str, status: int, seconds: float) -> None:
        self.requests.observe(route, method, status, seconds)

    def observe_cache(self, kind: str, outcome: str) -> None:
        self.cache.labels(kind, outcome).inc()

    def count_error(self, code: str) -> None:
        self.errors.labels(code).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
