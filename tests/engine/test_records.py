"""Positions without a record (docs/rules-notes.md N16): a state in round 2 or later
with an empty ``history`` is a position set up from a real table (board and score track only);
its scores stand as given. A non-empty history is checked as before (DESIGN §2)."""

from __future__ import annotations

import random

import pytest

import manhattan
from tests.engine.positions import position_json

SCORES = [11, 4, 9, 0]


def _no_record(**kwargs: object) -> dict[str, object]:
    data = position_json(round_=3, **kwargs)  # type: ignore[arg-type]
    data["history"] = []
    data["scores"] = list(SCORES)
    return data


def test_a_position_without_a_record_is_accepted_with_its_scores() -> None:
    """N16: round 3, empty history, the score track as given."""
    state = manhattan.State.from_json(_no_record())
    assert state.history == () and list(state.scores) == SCORES
    assert manhattan.State.from_json(state.to_json()) == state


def test_a_partial_record_is_refused() -> None:
    """DESIGN §2: a non-empty history lists every scored round (here round 2 is missing)."""
    data = _no_record()
    zero = {"buildings": 0, "majorities": [], "tallest": 0, "urban": 0, "total": 0}
    data["history"] = [{"round": 1, "scores": [zero] * 4}]
    data["scores"] = [0, 0, 0, 0]
    with pytest.raises(manhattan.InvalidStateError) as err:
        manhattan.State.from_json(data)
    assert err.value.code == "INVALID_STATE" and "$.history" in err.value.message


def test_a_recorded_history_must_sum_to_the_scores() -> None:
    """DESIGN §2: with a record, the scores are the sum of its round totals."""
    data = position_json(round_=3)
    data["scores"] = list(SCORES)
    with pytest.raises(manhattan.InvalidStateError) as err:
        manhattan.State.from_json(data)
    assert "$.scores[0]" in err.value.message


def test_round_one_has_no_scores_to_set_up() -> None:
    """RULES §7: nothing is scored before round 1 ends, record or not."""
    data = position_json(players=4, round_=1)
    data["scores"] = list(SCORES)
    with pytest.raises(manhattan.InvalidStateError):
        manhattan.State.from_json(data)


@pytest.mark.parametrize("seed", range(4))
def test_a_game_from_a_position_without_a_record_plays_to_the_end(seed: int) -> None:
    """N16: each round scored adds to the given scores and keeps no record; every state on
    the way reads back; the final ranking counts the given scores."""
    state = manhattan.State.from_json(_no_record())
    rng = random.Random(seed)
    totals = list(SCORES)
    while not state.is_over:
        step = manhattan.play(state, rng.choice(manhattan.legal_moves(state)))
        for event in step.events:
            if event.type == "roundScored":
                totals = event.data["totals"]
        state = step.state
        assert manhattan.State.from_json(state.to_json()) == state
    assert state.history == () and list(state.scores) == totals
    assert all(t >= s for t, s in zip(totals, SCORES, strict=True))
    ranking = manhattan.ranking(state)
    assert sorted(p.score for p in ranking) == sorted(totals)
