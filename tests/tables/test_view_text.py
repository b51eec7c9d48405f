"""The public view's text made straight from a state is, byte for byte, the engine's view
encoded: the pushes' views are the answers' views."""

from __future__ import annotations

import msgspec
from hypothesis import HealthCheck, given, settings

import manhattan
from manhattan.tables.projection import view_json
from manhattan.tables.view_text import public_rest
from tests.strategies import playthroughs

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_encode = msgspec.json.Encoder().encode


def _engine_text(state: manhattan.State, player: int | None) -> bytes:
    """The old way: the engine's view as dicts, with the hand and the player first."""
    view = manhattan.view(state, player or 0).to_json()
    hand, _ = view.pop("hand"), view.pop("player")
    head = {"hand": [] if player is None else hand, "player": player}
    return _encode(head)[:-1] + b"," + _encode(view)[1:]


@SETTINGS
@given(playthroughs(to_the_end=True))
def test_every_state_of_a_game_gives_the_engines_view_text(game) -> None:  # type: ignore[no-untyped-def]
    """Every state of whole games (all editions and variants: urban rules, monsters, scored
    rounds), the public view and each seat's."""
    for state in [*game.states[:: max(1, len(game.states) // 12)], game.final]:
        assert public_rest(state) == _engine_text(state, None).split(b'"player":null,', 1)[1]
        for player in (None, *range(state.rules.players)):
            assert bytes(view_json(state, player)) == _engine_text(state, player)


@SETTINGS
@given(playthroughs(to_the_end=True), playthroughs(to_the_end=True))
def test_a_table_s_board_text_made_from_its_last_one_is_the_whole_board_s(game, other) -> None:  # type: ignore[no-untyped-def]
    """The states of a game in turn under one table's name (each board's text made from the
    last one's neighborhoods), then another game's under the same name, then the first's
    again from its start: each text is the one made from the state alone."""
    states = [*game.states, game.final]
    for state in [*states, *other.states, *states]:
        assert public_rest(state, "t") == public_rest(state)


def test_each_ruleset_has_its_own_kept_text() -> None:
    """Rules' texts are kept (by the rules object): games of another player count get their
    own, a game of the same count the same."""
    two = manhattan.new_game(players=2, seed="a")
    three = manhattan.new_game(players=3, seed="a")
    assert b'"players":2' in public_rest(two)
    assert b'"players":3' in public_rest(three)
    assert b'"players":2' in public_rest(manhattan.new_game(players=2, seed="b"))
