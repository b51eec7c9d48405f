"""A bot seat at a rated table plays at its ladder rating (``manhattan.bots.ladder``), and the
game leaves that rating as it was; the people's ratings move against it."""

from __future__ import annotations

from manhattan.bots import BotChoice
from manhattan.bots.ladder import ladder_level
from manhattan.platforms.ratings import ladder_ratings, updated
from manhattan.tables.model import Seat, Table


def _table(*seats: Seat) -> Table:
    return Table(
        id="t", name="t", public=False, turn_seconds=None, setup={}, seed="s", seats=list(seats)
    )


def test_ladder_bots_enter_at_their_ladder_rating_and_keep_it() -> None:
    expert = ladder_level(BotChoice.of("expert"))
    assert expert is not None
    table = _table(
        Seat(0, "human", "a", player_id="ann"),
        Seat(1, "bot", "b", {"level": "expert"}),
        Seat(2, "bot", "c", {"level": "expert", "iterations": 7}),  # not the ladder's budget
    )
    fixed = ladder_ratings(table)
    assert fixed == {"bot:expert": (expert.mu, expert.sigma)}
    results = [("ann", 1), ("bot:expert", 2), ("bot:expert:7", 3)]
    after = updated({"bot:expert": [expert.mu, expert.sigma, 4]}, results, fixed)
    assert after["bot:expert"] == [expert.mu, expert.sigma, 5]  # games counted, rating kept
    assert after["bot:expert:7"][:2] != [25.0, 25 / 3]  # any other bot is rated as anyone
    # beating the ladder's expert is worth more than beating a newcomer bot of default rating
    newcomer = updated({}, [("ann", 1), ("bot:x", 2)])
    against_expert = updated({}, [("ann", 1), ("bot:expert", 2)], fixed)
    assert expert.mu > 25 and against_expert["ann"][0] > newcomer["ann"][0]


def test_a_person_who_left_is_rated_as_the_person() -> None:
    left = Seat(0, "human", "x", {"level": "expert"}, left=True, player_id="ann")
    assert ladder_ratings(_table(left)) == {}
