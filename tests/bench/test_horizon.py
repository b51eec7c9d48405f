"""``manhattan bench horizon``: the least-squares weight of the board at a round's end, the
samples a self-play game gives, and the command end to end on a few games."""

from __future__ import annotations

import json
import random

import pytest

from manhattan.bench.horizon import Sample, fit, play_samples
from manhattan.bots.halving import FUTURE_BOARD
from manhattan.cli import main


def test_the_fit_recovers_the_weight_that_made_the_samples() -> None:
    rng = random.Random(3)
    samples = []
    for left, weight in ((1, 0.2), (2, 0.5)):
        for _ in range(2000):
            board = rng.uniform(-10, 10)
            samples.append(Sample(left, weight * board + rng.gauss(0, 2), board))
    fits = fit(samples)
    assert [f.rounds_left for f in fits] == [1, 2]
    assert fits[0].weight == pytest.approx(0.2, abs=0.02)
    assert fits[1].weight == pytest.approx(0.5, abs=0.02)
    assert all(f.samples == 2000 and f.error < f.flat_error for f in fits)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_game_gives_each_player_a_sample_at_every_round_end_but_the_last(players: int) -> None:
    samples = play_samples(players, "horizon-test", 0.3)
    rounds = {2: 6, 3: 6, 4: 4}[players]
    assert len(samples) == players * (rounds - 1)
    assert sorted({s.rounds_left for s in samples}) == list(range(1, rounds))
    # Each figure is the player's less the others' mean: over the players they add up to 0.
    for left in range(1, rounds):
        at = [s for s in samples if s.rounds_left == left]
        assert sum(s.later for s in at) == pytest.approx(0.0, abs=1e-9)
        assert sum(s.board for s in at) == pytest.approx(0.0, abs=1e-9)
    assert play_samples(players, "horizon-test", 0.3) == samples  # the seed decides the game


def test_the_command_fits_the_weights_the_expert_ships(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "horizon", "--games", "1000", "--players", "4"]) == 0
    report = json.loads(capsys.readouterr().out)
    fitted = report["futureBoard"]["4"]
    assert len(fitted) == len(FUTURE_BOARD[4])
    # 1,000 games rather than the 4,000 of the shipped fit: the same weights, give or take.
    assert fitted == pytest.approx(list(FUTURE_BOARD[4]), abs=0.05)
    for row in report["fits"]["4"]:
        assert row["error"] < row["flatError"]


def test_the_command_refuses_nonsense(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--games", "0"], ["--balanced", "1.5"]):
        with pytest.raises(SystemExit):
            main(["bench", "horizon", *argv])
