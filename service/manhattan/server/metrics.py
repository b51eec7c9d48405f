"""Prometheus metrics (``GET /metrics``): requests, latencies, cache outcomes, errors by code.

Each app owns its registry, so several apps in one process (tests) never collide.
"""

from __future__ import annotations

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

CONTENT_TYPE = CONTENT_TYPE_LATEST
disable_created_metrics()  # type: ignore[no-untyped-call]  # the *_created series double the output and nobody reads them
_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._request_children: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}
        self.requests = Counter(
            "manhattan_requests",
            "HTTP requests by route, method and status",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "manhattan_request_duration_seconds",
            "Time from request start to the end of the response, by route",
            ["route"],
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
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
        # The labelled children, looked up once per (route, method, status): ``labels()``
        # validates and joins its arguments on every call. Bounded, as methods come from clients.
        key = (route, method, status)
        children = self._request_children.get(key)
        if children is None:
            children = (
                self.requests.labels(route, method, str(status)),
                self.latency.labels(route),
            )
            if len(self._request_children) < 1_000:
                self._request_children[key] = children
        children[0].inc()
        children[1].observe(seconds)

    def observe_cache(self, kind: str, outcome: str) -> None:
        self.cache.labels(kind, outcome).inc()

    def count_error(self, code: str) -> None:
        self.errors.labels(code).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
