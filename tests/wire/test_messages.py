"""One message for each mistake: the field, what it is, its bounds, and for a
closed set every valid value; the same on REST and GraphQL as on the command line."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import manhattan
from manhattan import wire

CASES: list[tuple[Any, type[msgspec.Struct], str, str]] = [
    ({"players": 5}, wire.Setup, "$.players", "players is an integer from 2 to 4"),
    ({"players": "4"}, wire.Setup, "$.players", "players is an integer from 2 to 4 (got str)"),
    (
        {"seats": ["open", {"bot": {"level": "smart"}}]},
        wire.NewTable,
        "$.seats[1].bot.level",
        "level is one of beginner, expert, greedy, ismcts, random (not 'smart')",
    ),
    ({"edition": "x"}, wire.Setup, "$.edition", "edition is one of classic, modern (not 'x')"),
    ({"name": ""}, wire.JoinTable, "$.name", "name is a string of 1 to 40 characters"),
    ({"limit": 0}, wire.LobbyQuery, "$.limit", "limit is an integer from 1 to 100"),
    ({"public": "yes"}, wire.NewTable, "$.public", "public is true or false (got str)"),
    ({"colour": 1}, wire.NewTable, "$.colour", "Object contains unknown field `colour`"),
]


@pytest.mark.parametrize(("body", "shape", "path", "message"), CASES)
def test_each_mistake_has_one_sentence(
    body: Any, shape: type[msgspec.Struct], path: str, message: str
) -> None:
    with pytest.raises(wire.WireError) as caught:
        wire.read(body, shape)
    assert (caught.value.path, caught.value.message) == (path, message)


def test_the_engine_and_the_command_line_say_the_same_for_players() -> None:
    with pytest.raises(manhattan.InvalidSetupError) as caught:
        manhattan.new_game(players=5)  # what ``manhattan random-game --players 5`` calls
    assert caught.value.message == "$.players: players is an integer from 2 to 4"
