"""The projection's views (``tables/projection.seat_view``): a seat's view is built from the
public view of the same state plus its own hand, so it must be, to the key order, the engine's
view of that player; the public view is any player's view without the hand."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings

import manhattan
from manhattan.tables.projection import seat_view

from ..strategies import states

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(states())
def test_a_seats_view_is_the_engines_view_of_that_player(state: manhattan.State) -> None:
    for player in range(state.rules.players):
        expected = manhattan.view(state, player).to_json()
        got = seat_view(state, player)
        assert json.dumps(got) == json.dumps(expected)


@SETTINGS
@given(states())
def test_the_public_view_shows_no_hand_and_no_player(state: manhattan.State) -> None:
    public = seat_view(state, None)
    assert public["hand"] == [] and public["player"] is None
    for player in range(state.rules.players):
        expected = manhattan.view(state, player).to_json()
        expected["hand"], expected["player"] = [], None
        assert json.dumps(public) == json.dumps(expected)


def test_a_player_out_of_range_is_refused_as_by_the_engine() -> None:
    state = manhattan.new_game(players=2, seed="projection")
    with pytest.raises(manhattan.InvalidPlayerError):
        seat_view(state, 2)
