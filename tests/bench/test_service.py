"""``manhattan bench service``: reading wrk's report, pairing cases with a baseline, arguments."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from manhattan.bench import service as bench

WRK = """Running 5s test @ http://127.0.0.1:8000/v1/legal-moves
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    11.25ms    2.01ms  40.10ms   90.00%
    Req/Sec     4.08k   200.00     4.50k    70.00%
  Latency Distribution
     50%   11.25ms
     75%   12.00ms
     90%   13.10ms
     99%  850.00us
  20400 requests in 5.00s, 80.00MB read
Requests/sec:   4080.12
Transfer/sec:     16.00MB
"""


def test_wrk_report_is_read_in_milliseconds() -> None:
    m = bench.parse_wrk(WRK)
    assert m == bench.Measurement(4080.12, 11.25, 0.85)
    assert bench._ms("1.5s") == 1500.0


def test_error_responses_or_a_missing_distribution_are_refused() -> None:
    with pytest.raises(RuntimeError):
        bench.parse_wrk(WRK + "  Non-2xx or 3xx responses: 12\n")
    with pytest.raises(ValueError):
        bench.parse_wrk(WRK.replace("     99%", "     98%"))


def test_baseline_cases_run_beside_their_twins_in_alternating_order() -> None:
    cases = [bench.Case(n, "service", "/x", b"{}") for n in ("a", "b")]
    echo = bench.Case("echo", "echo", "/echo", b"{}")
    twins = [bench.Case(f"baseline: {c.name}", "baseline", "/x", b"{}") for c in cases]
    names = [c.name for c in bench._interleaved([echo, *cases], twins, first_baseline=False)]
    assert names == ["echo", "a", "baseline: a", "b", "baseline: b"]
    names = [c.name for c in bench._interleaved([echo, *cases], twins, first_baseline=True)]
    assert names == ["echo", "baseline: a", "a", "baseline: b", "b"]


def test_a_baseline_without_the_package_is_refused(tmp_path: Path) -> None:
    assert bench.run(["--baseline", str(tmp_path)]) == 2


def test_each_target_is_reported_with_its_ratio() -> None:
    names = ["echo", "rest", "gql", "rest id", "gql id", "rest distinct", "gql distinct"]
    figures = [(8000, 10.0), (4000, 20.0), (3200, 24.0), (5000, 18.0), (4000, 20.0)]
    figures += [(3000, 30.0), (2100, 26.0)]
    medians = {
        n: bench.Measurement(rps, 1.0, p99) for n, (rps, p99) in zip(names, figures, strict=True)
    }
    lines = bench.target_lines(50, medians, names)
    assert lines[0] == "inline state: REST / echo 0.50, GraphQL / REST 0.80 (target >= 0.75)"
    assert lines[2] == "distinct states: REST / echo 0.38, GraphQL / REST 0.70 (target >= 0.75)"
    assert lines[3] == "REST distinct states / echo 0.38 (target >= 0.5)"
    assert lines[4] == (
        "worst p99 at 50 connections: rest distinct 30.0 ms, 3.00x the echo's 10.0 ms "
        "(target <= 2.5x)"
    )


def test_the_cpu_a_request_costs_is_read_from_the_process() -> None:
    used = bench.process_cpu_seconds(os.getpid())
    assert used is not None and used > 0
    assert bench.process_cpu_seconds(2**22 + 7) is None  # no such process
    names = ["echo", "rest", "gql", "rest id", "gql id", "rest distinct", "gql distinct"]
    cpu = [50.0, 100.0, 125.0, 80.0, 100.0, 200.0, 250.0]
    medians = {n: bench.Measurement(1000, 1.0, 10.0, c) for n, c in zip(names, cpu, strict=True)}
    assert bench.target_lines(50, medians, names)[4] == (
        "by CPU a request (REST / echo, GraphQL / REST): inline 0.50 / 0.80, "
        "cached id 0.62 / 0.80, distinct 0.25 / 0.80"
    )
