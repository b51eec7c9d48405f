"""The request counts and durations, kept in plain counters and exposed as Prometheus's own
counter and histogram would expose them."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Histogram
from prometheus_client.exposition import generate_latest

from manhattan.server.metrics import _LATENCY_BUCKETS, Metrics

DURATIONS = (0.0001, 0.0005, 0.00051, 0.01, 0.01, 2.5, 7.0)


def _series(text: bytes, prefix: str) -> list[str]:
    return [line for line in text.decode().splitlines() if line.startswith(prefix)]


def test_durations_are_exposed_as_prometheus_would_expose_them() -> None:
    metrics = Metrics()
    reference = CollectorRegistry()
    histogram = Histogram(
        "manhattan_request_duration_seconds",
        "Time from request start to the end of the response, by route",
        ["route"],
        buckets=_LATENCY_BUCKETS,
        registry=reference,
    )
    for seconds in DURATIONS:  # a bound itself is counted in its bucket ("le")
        metrics.observe_request("/v1/score", "POST", 200, seconds)
        histogram.labels("/v1/score").observe(seconds)
    ours = _series(metrics.render(), "manhattan_request_duration_seconds")
    expected = _series(generate_latest(reference), "manhattan_request_duration_seconds")
    assert ours == [line for line in expected if "_created" not in line]


def test_requests_are_counted_by_route_method_and_status() -> None:
    metrics = Metrics()
    for status in (200, 200, 404):
        metrics.observe_request("/v1/score", "POST", status, 0.001)
    metrics.observe_request("/v1/rules", "GET", 200, 0.001)
    assert sorted(_series(metrics.render(), "manhattan_requests_total")) == [
        'manhattan_requests_total{method="GET",route="/v1/rules",status="200"} 1.0',
        'manhattan_requests_total{method="POST",route="/v1/score",status="200"} 2.0',
        'manhattan_requests_total{method="POST",route="/v1/score",status="404"} 1.0',
    ]
    assert b"# TYPE manhattan_requests_total counter" in metrics.render()
