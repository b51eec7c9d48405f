"""The benches' SVG charts (``--svg``): drawn from the figures the command printed, text kept
as text so the chart says the same numbers as the report."""

from __future__ import annotations

from pathlib import Path

from manhattan.bench.charts import engine_chart, tables_chart
from manhattan.cli import main


def test_the_engine_chart_draws_each_figures_gain(tmp_path: Path) -> None:
    here = {"legal_moves_us": [4.0, 5.0, 6.0], "fast_games_per_s": [900.0, 1000.0, 1100.0]}
    there = {"legal_moves_us": [15.0], "fast_games_per_s": [250.0]}
    path = tmp_path / "engine.svg"
    engine_chart(here, there, "compiled (mypyc)", str(path))
    svg = path.read_text(encoding="utf-8")
    assert svg.startswith("<?xml") and "<svg" in svg
    # medians: 15 / 5 = 3.00x faster, 1000 / 250 = 4.00x
    assert "3.00x" in svg and "4.00x" in svg and "legal_moves (µs a call)" in svg


def test_bench_engine_draws_its_chart(tmp_path: Path) -> None:
    path = tmp_path / "engine.svg"
    main(["bench", "engine", "--runs", "1", "--seconds", "0.02", "--svg", str(path)])
    svg = path.read_text(encoding="utf-8")
    assert "games/s, fast path" in svg and "ISMCTS iterations/s" in svg


def test_the_tables_chart_draws_rates_and_push_latencies(tmp_path: Path) -> None:
    push = {"count": 30, "p50_ms": 3.0, "p90_ms": 9.0, "p99_ms": 40.0}
    report = {
        "stateless": [{"moves_per_s": 400.0}, {"moves_per_s": 410.0}],
        "tables": {"tables": 2, "moves_per_s": 700.0, "push_latency": push},
        "tables_paced": {"think_seconds": 2.0, "moves_per_s": 90.0, "push_latency": push},
    }
    path = tmp_path / "tables.svg"
    tables_chart(report, str(path))
    svg = path.read_text(encoding="utf-8")
    assert "tables, flat out" in svg and "tables, 2 s a move" in svg and "700" in svg
    assert "push latency" in svg
