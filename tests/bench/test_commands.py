"""``manhattan tournament`` and ``manhattan bench bots``, run briefly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from manhattan.bench.stats import wilson_interval
from manhattan.cli import main


def test_wilson_interval() -> None:
    low, high = wilson_interval(36, 40)
    assert low == pytest.approx(0.7695, abs=1e-3) and high == pytest.approx(0.9604, abs=1e-3)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_tournament_reports_win_rates_and_plots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    out_json, png = tmp_path / "r.json", tmp_path / "r.png"
    argv = ["tournament", "--candidate", "ismcts", "--budgets", "5it,10it", "--opponent"]
    argv += ["random", "--players", "2", "4", "--games", "2", "--json", str(out_json)]
    assert main([*argv, "--plot", str(png)]) == 0
    out = capsys.readouterr()
    assert "95% CI" in out.out and "2/8 games" in out.err
    rows = json.loads(out_json.read_text())
    assert {(r["players"], r["candidate"]) for r in rows} == {
        (2, "ismcts@5it"),
        (2, "ismcts@10it"),
        (4, "ismcts@5it"),
        (4, "ismcts@10it"),
    }
    assert png.read_bytes().startswith(b"\x89PNG")


def test_bench_bots_prints_iterations_per_second(capsys: pytest.CaptureFixture[str]) -> None:
    main(["bench", "bots", "--runs", "1", "--seconds", "0.1", "--expert-iterations", "20"])
    out = capsys.readouterr().out
    assert "ismcts_iterations_per_s" in out and "system load (1 min)" in out
    assert "expert_build_s" in out and "expert_selection_s" in out and "20 iterations" in out


@pytest.mark.parametrize(
    "bad",
    [
        ["--candidate", "minimax", "--budgets", "-"],
        ["--budgets", "abc"],
        ["--budgets", "0it"],
        ["--budgets", "10it,10it"],
        ["--candidate", "greedy", "--budgets", "100it"],
        ["--opponent", "greedy@5it"],
        ["--players", "2", "5"],
        ["--games", "0"],
    ],
)
def test_tournament_refuses_bad_arguments_before_playing(
    bad: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["tournament", "--players", "2", "--games", "1", *bad])
    assert exited.value.code == 2
    assert "error:" in capsys.readouterr().err
