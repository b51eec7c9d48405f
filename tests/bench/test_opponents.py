"""``manhattan bench opponents``: the conditional logit recovers the weights that made the
choices, and the command runs end to end on a few short games (that the features it fits are
the ones the policies play by: ``tests/bots/test_greedy_playout.py``)."""

from __future__ import annotations

import json
import math
import random

import pytest

from manhattan.bench.opponents import (
    Decision,
    dot,
    first_choice_rate,
    fit,
    log_likelihood,
)
from manhattan.bots.greedy_playout import FEATURES, GREEDY_VALUE
from manhattan.cli import main


def _drawn(weights: list[float], count: int, rng: random.Random) -> list[Decision]:
    """Choices drawn from the logit of ``weights`` among 25 random placements each."""
    decisions = []
    for i in range(count):
        features = tuple(
            tuple(
                rng.choice((0.0, 1.0)) if k in (3, 4, 5) else rng.uniform(-3, 3)
                for k in range(len(FEATURES))
            )
            for _ in range(25)
        )
        scores = [dot(x, weights) for x in features]
        top = max(scores)
        chosen = rng.choices(range(25), [math.exp(s - top) for s in scores])[0]
        decisions.append(Decision(i, features, chosen))
    return decisions


def test_the_fit_recovers_the_weights_that_made_the_choices() -> None:
    truth = [1.2, -0.5, 0.3, 2.5, 2.0, -2.0, 0.25]
    decisions = _drawn(truth, 1500, random.Random(7))
    fitted = fit(decisions)
    assert fitted == pytest.approx(truth, abs=0.2)
    assert log_likelihood(decisions, fitted) > log_likelihood(decisions, GREEDY_VALUE)
    assert first_choice_rate(decisions, fitted) > first_choice_rate(decisions, GREEDY_VALUE)


def test_a_tie_for_first_shares_the_choice() -> None:
    same = (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    decision = Decision(0, (same, same, (0.0,) * 7, same), 1)
    assert first_choice_rate([decision], GREEDY_VALUE) == pytest.approx(1 / 3)


def test_the_command_fits_ismcts_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "opponents", "--games", "2", "--iterations", "20"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["games"] == 2 and result["decisions"] > 100
    assert result["features"] == list(FEATURES) and len(result["weights"]) == len(FEATURES)
    for figures in (result["held_out"], result["all"]):
        assert 0 < figures["greedy_first_choice"] < 1 and 0 < figures["model_first_choice"] < 1


def test_the_command_refuses_too_few_games(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "opponents", "--games", "1"])
