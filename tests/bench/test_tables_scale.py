"""``manhattan bench tables --live N``: a real run with a few hundred live tables, and the
movers playing from their events (no table GET per turn)."""

from __future__ import annotations

from tests.bench.test_tables_bench import _bench


def test_a_tiny_run_with_live_tables() -> None:
    args = ["--tables", "2", "--seconds", "2", "--stateless-seconds", "0.5", "--rounds", "1"]
    report = _bench(
        *args, "--idle-streams", "0", "--live", "200", "--live-seconds", "1", timeout=240
    )
    assert report["errors"] == 0
    assert report["tables"]["moves"] > 0 and report["tables"]["gets"] == 0
    live = report["live"]
    assert live["live"] == 200 and live["created_in_s"] > 0
    for probe in (live["few"], live["many"]):
        assert probe["gets_per_s"] > 0 and probe["moves_per_s"] > 0
    assert live["get_ratio"] > 0 and live["move_ratio"] > 0
