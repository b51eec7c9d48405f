"""``manhattan bench soak`` (service/manhattan/bench/soak.py): a short run against a service it
starts itself, zero errors, and the report's figures present."""

from __future__ import annotations

import json

import pytest

from manhattan.bench import soak


@pytest.mark.parametrize(
    "url", ["http://10.0.0.1:8000", "http://example.com", "http://0.0.0.0:8000"]
)
def test_soak_refuses_anything_but_loopback(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert soak.run(["--url", url, "--seconds", "1"]) == 2
    assert "loopback" in capsys.readouterr().err


def test_short_soak_against_its_own_service(capsys: pytest.CaptureFixture[str]) -> None:
    status = soak.run(["--seconds", "1.5", "--games", "4", "--warmup", "0.3", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == 0, report["error_samples"]
    assert status == 0
    assert report["requests"] > 20
    assert {"legal-moves", "apply", "new-game"} <= set(report["latency_by_operation"])
    assert report["latency"]["p50_ms"] <= report["latency"]["p99_ms"] <= report["latency"]["max_ms"]
    assert report["memory"]["available"] is True and report["memory"]["end_mib"] > 10
    assert report["service_cpu"]["available"] is True
    assert report["service_cpu"]["ms_per_request"] > 0


def test_soak_stops_at_the_request_budget(capsys: pytest.CaptureFixture[str]) -> None:
    assert soak.run(["--seconds", "30", "--max-requests", "40", "--games", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["requests"] == 40
    assert report["seconds"] < 30
