"""``manhattan bench engine --baseline``: the interpreted build measured in the same run."""

from __future__ import annotations

import pytest

from manhattan.cli import main
from manhattan.engine.build import kernel_build


def test_the_baseline_is_the_interpreted_build_with_a_gain_per_figure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["bench", "engine", "--runs", "1", "--seconds", "0.05", "--baseline"])
    out = capsys.readouterr().out
    assert out.startswith(f"kernel: {kernel_build()}\n") and "interpreted" in out
    for figure in ("legal_moves_us", "fast_games_per_s", "ismcts_iterations_per_s"):
        [line] = [row for row in out.splitlines() if row.startswith(figure)]
        assert "x   " in line and ("met" in line or "MISSED" in line)
