"""RULES §10: the advanced mode's urban-rule cards, each with its tie rules, [D12] founder,
fakeNews, and the deck revealed one card per round."""

from __future__ import annotations

from typing import Any

import pytest

import manhattan
from tests.engine.positions import build, card_for, position, scores_of

URBAN = {"urbanRules": True}


def urban_points(card: str, board: dict[Any, Any], **kw: Any) -> list[int]:
    state = position(edition="modern", variants=URBAN, urban=card, board=board, **kw)
    return [s["urban"] for s in scores_of(state)]


def one(color: int, floors: int = 1) -> list[tuple[int, int]]:
    return [(color, floors)]


def test_s10_big_business_strictly_tallest_per_neighborhood() -> None:
    """RULES §10 bigBusiness: in each neighborhood the owner of the strictly tallest building
    scores 2; a tie for tallest there: nobody."""
    board = {(0, 0, 0): one(0, 3), (0, 0, 1): one(1, 2)}  # 0 scores
    board |= {(1, 0, 0): one(0, 2), (1, 0, 1): one(1, 2)}  # tie: nobody
    board |= {(2, 2, 2): one(2, 1)}  # alone: strictly tallest, scores
    board |= {(3, 0, 0): [(1, 1), (3, 1)], (3, 1, 1): one(3, 4)}  # 3 wins with the 4
    assert urban_points("bigBusiness", board) == [2, 0, 2, 2]


def test_s10_multiple_tower_three_colors_in_a_property() -> None:
    """RULES §10 multipleTower: 2 per property containing pieces of at least 3 colors."""
    board = {(0, 0, 0): [(0, 1), (1, 1), (2, 2)]}  # 3 colors: 2 for color 2
    board |= {(0, 0, 1): [(0, 1), (1, 1), (0, 2)]}  # 2 colors only
    board |= {(0, 0, 2): [(0, 1), (1, 1), (2, 2), (3, 3)]}  # 4 colors: 2 for color 3
    assert urban_points("multipleTower", board) == [0, 0, 2, 2]


def _all_hoods(extra: dict[Any, Any]) -> dict[Any, Any]:
    """One building of color 3 in the center of every neighborhood, plus ``extra``."""
    return {(n, 1, 1): one(3) for n in range(6)} | extra


def test_s10_small_town_properties_in_the_emptiest_neighborhood() -> None:
    """RULES §10 smallTown: 1 per property in the neighborhood with the fewest buildings."""
    extra = {(n, 0, c): one(c % 3) for n in range(1, 6) for c in range(2)}
    # neighborhood 0 has 1 building (color 3), the others 3
    assert urban_points("smallTown", _all_hoods(extra)) == [0, 0, 0, 1]


def test_s10_small_town_tie_for_fewest_scores_nobody() -> None:
    """RULES §10 smallTown: several neighborhoods tie for fewest: nobody scores."""
    extra = {(n, 0, 0): one(0) for n in range(2, 6)}
    assert urban_points("smallTown", _all_hoods(extra)) == [0, 0, 0, 0]


def test_s10_small_town_an_empty_neighborhood_is_the_fewest() -> None:
    """RULES §10 smallTown (RULES silent, decided here): an empty neighborhood counts, with 0
    buildings; if it is the only one, it is the fewest and holds no property: nobody scores."""
    board = {(n, 1, 1): one(3) for n in range(5)}
    assert urban_points("smallTown", board) == [0, 0, 0, 0]


def test_s10_fog_free_view_properties_of_five_floors_or_more() -> None:
    """RULES §10 fogFreeView: 1 per property of at least 5 floors."""
    board = {(0, 0, 0): [(0, 1), (1, 4)], (1, 0, 0): [(1, 4)], (2, 0, 0): [(2, 3), (2, 3)]}
    assert urban_points("fogFreeView", board) == [0, 1, 1, 0]


def test_s10_hobbit_home_lowest_in_the_tallest_buildings_neighborhood() -> None:
    """RULES §10 hobbitHome: in the neighborhood holding the board's tallest building, the owner
    of the strictly lowest building there scores 2."""
    board = {(3, 0, 0): one(0, 4), (3, 0, 1): one(1, 1), (3, 0, 2): one(2, 2)}
    board |= {(0, 0, 0): one(3, 1)}  # lower, but elsewhere
    assert urban_points("hobbitHome", board) == [0, 2, 0, 0]


def test_s10_hobbit_home_tallest_tied_across_neighborhoods_scores_nobody() -> None:
    """RULES §10 hobbitHome: the tallest tied across neighborhoods: nobody."""
    board = {(3, 0, 0): one(0, 4), (3, 0, 1): one(1, 1), (4, 0, 0): one(2, 4)}
    assert urban_points("hobbitHome", board) == [0, 0, 0, 0]


def test_s10_hobbit_home_lowest_tied_scores_nobody() -> None:
    """RULES §10 hobbitHome: the lowest tied in that neighborhood: nobody."""
    board = {(3, 0, 0): one(0, 4), (3, 0, 1): one(1, 1), (3, 0, 2): one(2, 1)}
    assert urban_points("hobbitHome", board) == [0, 0, 0, 0]


def test_s10_hobbit_home_tallest_tied_inside_one_neighborhood_still_counts() -> None:
    """RULES §10 hobbitHome, N3: only a tie ACROSS neighborhoods cancels; two tallest in the same
    neighborhood still name it."""
    board = {(3, 0, 0): one(0, 4), (3, 0, 1): one(1, 4), (3, 0, 2): one(2, 1)}
    assert urban_points("hobbitHome", board) == [0, 0, 2, 0]


def test_d12_founder_scores_ground_floor_color_that_lost_the_building() -> None:
    """RULES §10 founder [D12]: 1 point to the color of each building's ground-floor piece when
    that color no longer owns the building."""
    board = {(0, 0, 0): [(0, 1), (1, 2)]}  # 0 founded, 1 owns: 1 for color 0
    board |= {(0, 0, 1): [(0, 1), (1, 2), (0, 3)]}  # founder owns it again: nothing
    board |= {(0, 0, 2): one(2)}  # founder owns: nothing
    board |= {(1, 0, 0): [(3, 1), (0, 1)], (1, 0, 1): [(3, 2), (2, 2)]}  # 2 for color 3
    assert urban_points("founder", board) == [1, 0, 0, 2]


def test_s10_villa_one_floor_single_piece_with_an_empty_neighbor() -> None:
    """RULES §10 villa: 2 per one-floor property (a single one-floor piece) with at least one
    orthogonally adjacent empty block in its neighborhood."""
    board = {(0, 1, 1): one(0)}  # empty neighbors: 2
    board |= {(1, 0, 0): one(1), (1, 0, 1): one(2, 2), (1, 1, 0): one(2, 2)}  # surrounded: 0
    board |= {(2, 0, 0): one(3, 2)}  # two floors: 0
    board |= {(2, 2, 2): [(3, 1), (3, 1)]}  # two pieces: not a single piece: 0
    assert urban_points("villa", board) == [2, 0, 0, 0]


def test_s10_villa_neighbors_in_another_neighborhood_do_not_count() -> None:
    """RULES §10 villa: "in its neighborhood": the empty block next door across the border of
    the neighborhood does not count (the torus is only the monster's, §9)."""
    board = {(1, 0, 0): one(1), (1, 0, 1): one(2, 2), (1, 1, 0): one(2, 2)}
    assert urban_points("villa", board)[1] == 0  # (0, 0, 2) is empty but in neighborhood 0


def test_s10_megacity_fully_built_neighborhood() -> None:
    """RULES §10 megacity: 1 per property in a fully built neighborhood (9 buildings)."""
    board = {(2, r, c): one((r + c) % 2) for r in range(3) for c in range(3)}
    board |= {(3, 0, 0): one(2), (3, 0, 1): one(2)}
    assert urban_points("megacity", board) == [5, 4, 0, 0]


def test_s10_megacity_else_the_neighborhood_with_the_most_buildings() -> None:
    """RULES §10 megacity: none complete: the neighborhood with the most buildings."""
    board = {(2, 0, c): one(c) for c in range(3)} | {(3, 0, 0): one(3), (3, 0, 1): one(3)}
    assert urban_points("megacity", board) == [1, 1, 1, 0]


def test_s10_megacity_tie_for_most_scores_nobody() -> None:
    """RULES §10 megacity: if the most-built neighborhood is tied, nobody."""
    board = {(2, 0, 0): one(0), (2, 0, 1): one(1), (3, 0, 0): one(3), (3, 0, 1): one(3)}
    assert urban_points("megacity", board) == [0, 0, 0, 0]


def test_s10_megacity_two_complete_neighborhoods_score_nobody() -> None:
    """RULES §10 megacity, N2 (RULES says "a fully built neighborhood"; decided from seed 003's note
    "if more than one neighborhood fulfils the condition, no points"): two complete
    neighborhoods tie and nobody scores."""
    board = {(n, r, c): one((n + r) % 4) for n in (0, 1) for r in range(3) for c in range(3)}
    assert urban_points("megacity", board) == [0, 0, 0, 0]


def test_s10_worldwide_expansion_one_per_neighborhood_with_a_property() -> None:
    """RULES §10 worldwideExpansion: 1 per neighborhood where the color owns a property."""
    board = {(n, 0, 0): one(0) for n in range(6)} | {(0, 0, 1): one(1), (0, 0, 2): one(1)}
    board |= {(1, 1, 1): [(2, 1), (3, 1)]}  # color 2's piece is under 3's: no property
    assert urban_points("worldwideExpansion", board) == [6, 1, 0, 1]


def test_s10_fake_news_the_next_card_applies_at_scoring() -> None:
    """RULES §10 fakeNews, N11: no rule is known during the round; at scoring the next card is
    revealed and applies."""
    board = {(n, 0, 0): one(0) for n in range(6)}
    state = position(
        edition="modern",
        variants=URBAN,
        urban="fakeNews",
        urban_next="worldwideExpansion",
        board=board,
        round_=2,
        hand=[8] * 4,
    )
    assert [s["urban"] for s in scores_of(state)] == [6, 0, 0, 0]
    after = manhattan.apply_move(state, build(8, 0, 1)).to_json()  # last piece of round 2
    assert after["history"][-1]["scores"][0]["urban"] == 6
    revealed = after["urban"]["revealed"]
    assert revealed[1:4] == ["fakeNews", "worldwideExpansion", after["urban"]["current"]]
    assert after["round"] == 3
    assert after["urban"]["current"] not in ("fakeNews", "worldwideExpansion")  # N15: used up


def test_s10_one_card_revealed_at_the_start_of_each_round() -> None:
    """RULES §10: the urban deck is shuffled at setup; each round, before selection, its top card
    is revealed and scores that round only."""
    state = manhattan.new_game(players=4, edition="modern", seed="u", variants=URBAN)
    urban = state.to_json()["urban"]
    assert len(urban["revealed"]) == 1
    assert urban["current"] == urban["revealed"][0]
    assert sorted(urban["revealed"] + urban["deck"]) == sorted(manhattan.URBAN_CARDS)
    other = manhattan.new_game(players=4, edition="modern", seed="v", variants=URBAN)
    decks = {
        tuple(
            manhattan.new_game(edition="modern", seed=s, variants=URBAN).to_json()["urban"]["deck"]
        )
        for s in "abcdef"
    }
    assert len(decks) > 1 or other.to_json()["urban"] != urban  # shuffled from the seed


def test_s10_urban_points_are_the_fourth_criterion_in_the_breakdown() -> None:
    """RULES §7.4 / §10: the round's urban rule is added to the round's breakdown."""
    board = {(0, 1, 1): one(0)}
    state = position(edition="modern", variants=URBAN, urban="villa", board=board, hand=[8] * 4)
    after = manhattan.apply_move(state, build(8, 5, 1)).to_json()
    part = after["history"][-1]["scores"][0]
    assert part == {"buildings": 2, "majorities": [0, 5], "tallest": 0, "urban": 4, "total": 10}


def test_s10_no_urban_points_without_the_advanced_mode() -> None:
    """RULES §10: without urbanRules there is no 4th criterion."""
    state = position(edition="modern", board={(0, 1, 1): one(0)})
    assert [s["urban"] for s in scores_of(state)] == [0, 0, 0, 0]


@pytest.mark.parametrize("card", [c for c in manhattan.URBAN_CARDS if c != "fakeNews"])
def test_s10_every_card_scores_through_a_real_round_end(card: str) -> None:
    """RULES §10: each card scores from the board at the round's end (one round's pipeline)."""
    board = {(0, 1, 1): [(1, 1), (2, 1), (0, 4)], (0, 0, 0): one(0)}
    seat_card = card_for(0, 2, 2)
    state = position(
        edition="modern", variants=URBAN, urban=card, board=board, hand=[seat_card] * 4
    )
    expected = scores_of(
        position(
            edition="modern",
            variants=URBAN,
            urban=card,
            board=board | {(0, 2, 2): one(0)},
            hand=[seat_card] * 4,
            selected={0: (0, 0, 0, 0), 1: (1, 0, 0, 0)},
            to_move=1,
        )
    )
    after = manhattan.apply_move(state, build(seat_card, 0, 1)).to_json()
    assert after["history"][-1]["scores"] == expected
