"""RULES §7 (round scoring) with [D7], and §8 (end of game, ranking) with [D8]."""

from __future__ import annotations

import pytest

import manhattan
from tests.engine.positions import build, card_for, position, scores_of


def _final(board: dict, *, players: int = 4, edition: str = "classic", mover: int = 0, **kw):  # type: ignore[no-untyped-def, type-arg]
    """Play the game's very last piece (a 1-floor piece on block (5, 2, 2)) and return the end."""
    card = card_for(position(players=players).to_json()["rules"]["seats"][mover], 2, 2)
    state = position(
        players=players, edition=edition, board=board, to_move=mover, hand=[card] * 4, **kw
    )
    return manhattan.apply_move(
        state, build(card, 5, 1, state.to_json()["rules"]["colors"][mover][0])
    )


def test_s7_1_one_point_per_building_owned() -> None:
    """RULES §7.1: 1 point per building the color owns (the top piece's color)."""
    board = {(0, 0, 0): [(1, 1), (0, 2)], (1, 0, 0): [(1, 1)], (2, 0, 0): [(1, 2)]}
    assert [s["buildings"] for s in scores_of(position(board=board))] == [1, 2, 0, 0]


def test_s7_2_majority_is_strictly_more_than_every_other_color_plurality_counts() -> None:
    """RULES §7.2: 2 points for strictly more buildings than every other color in a
    neighborhood; a 3-2-2 plurality scores (Mayfair's example)."""
    board = {(0, 0, i): [(0, 1)] for i in range(3)}
    board |= {(0, 1, 0): [(1, 1)], (0, 1, 1): [(1, 1)], (0, 2, 0): [(2, 1)], (0, 2, 1): [(2, 1)]}
    assert [s["majorities"] for s in scores_of(position(board=board))] == [[0], [], [], []]


def test_s7_2_tie_for_the_most_buildings_scores_nobody() -> None:
    """RULES §7.2: any tie for the most buildings in a neighborhood: nobody scores there."""
    board = {(2, 0, 0): [(0, 1)], (2, 0, 1): [(1, 1)], (2, 0, 2): [(2, 1)]}
    board |= {(2, 1, 0): [(0, 1)], (2, 1, 1): [(1, 1)]}
    assert [s["majorities"] for s in scores_of(position(board=board))] == [[], [], [], []]


def test_s7_2_two_player_colors_of_one_player_tie_and_cancel() -> None:
    """RULES §7.2 [D3] [D6]: in 2 players the two colors of one player can tie each other and
    cancel the bonus (scoring is per color)."""
    board = {(4, 0, 0): [(0, 1)], (4, 0, 1): [(2, 1)]}
    scores = scores_of(position(players=2, board=board))
    assert [s["majorities"] for s in scores] == [[], [], [], []]
    assert [s["buildings"] for s in scores] == [1, 0, 1, 0]


def test_s7_3_unique_tallest_building_scores_three() -> None:
    """RULES §7.3: the owner of the one building of greatest height scores 3."""
    board = {(0, 0, 0): [(2, 2), (1, 3)], (3, 1, 1): [(2, 4)]}
    assert [s["tallest"] for s in scores_of(position(board=board))] == [0, 3, 0, 0]


def test_d7_tied_tallest_scores_nothing_even_same_owner() -> None:
    """RULES §7.3 [D7]: two buildings tied for tallest: nobody scores, even when one color owns
    both (seeds 000 and 003)."""
    board = {(0, 0, 0): [(1, 4)], (5, 2, 2): [(1, 4)], (3, 0, 0): [(0, 3)]}
    assert [s["tallest"] for s in scores_of(position(board=board))] == [0, 0, 0, 0]


def test_s7_empty_board_scores_nothing() -> None:
    """RULES §7: nothing built, nothing scored."""
    assert all(s["total"] == 0 for s in scores_of(position()))


def test_s7_player_score_is_the_sum_of_their_colors() -> None:
    """RULES §7: a 2-player player's score is the sum of their two colors."""
    board = {(0, 0, 0): [(0, 1)], (1, 0, 0): [(2, 4)], (2, 0, 0): [(1, 1)]}
    end = _final(board, players=2, selected={0: (1, 0, 0, 0)})
    js = end.to_json()
    assert manhattan.player_scores(end) == [
        js["scores"][0] + js["scores"][2],
        js["scores"][1] + js["scores"][3],
    ]


def test_s7_breakdown_is_kept_in_history_per_round() -> None:
    """RULES §7: each round's breakdown per color is kept (DESIGN §2 history)."""
    end = _final({(0, 0, 0): [(1, 2)]})
    history = end.to_json()["history"]
    assert [h["round"] for h in history] == [1, 2, 3, 4]
    assert history[-1]["scores"][1] == {
        "buildings": 1,
        "majorities": [0],
        "tallest": 3,
        "urban": 0,
        "total": 6,
    }


def test_s8_game_ends_after_the_last_round_highest_total_wins() -> None:
    """RULES §8: the game ends after the last round's scoring; the highest total wins."""
    end = _final({(0, 0, 0): [(1, 2)], (0, 0, 1): [(1, 1)]})
    js = end.to_json()
    assert (js["phase"], js["toMove"], js["round"]) == ("over", None, 4)
    assert next((p.player, p.place) for p in manhattan.ranking(end)) == (1, 1)


def _places(end: manhattan.State) -> dict[int, int]:
    return {p.player: p.place for p in manhattan.ranking(end)}


# Color 1 owns a 3-floor building in 0, color 2 a 2-floor one in 1, color 3 places its last
# piece (1 floor) in 5. The tallest (color 1) is unique: 1: 1+2+3 = 6, 2: 1+2 = 3, 3: 1+2 = 3.
HEIGHTS_BOARD = {(0, 0, 0): [(1, 3)], (1, 0, 0): [(2, 2)]}


def test_d8_classic_tie_is_a_shared_place() -> None:
    """RULES §8 [D8]: classic edition: a tie is a shared place (no tiebreaker); N12: the next
    place is skipped."""
    end = _final(HEIGHTS_BOARD, mover=3)
    assert end.to_json()["scores"] == [0, 6, 3, 3]
    assert _places(end) == {1: 1, 2: 2, 3: 2, 0: 4}


def test_d8_classic_three_way_tie_shares_first_place() -> None:
    """RULES §8 [D8]: three players tied for the most share place 1; the next is 4th."""
    board = {(0, 0, 0): [(1, 2)], (1, 0, 0): [(2, 2)]}  # tallest tied: nobody; 3 points each
    end = _final(board, mover=3)
    assert end.to_json()["scores"] == [0, 3, 3, 3]
    assert _places(end) == {1: 1, 2: 1, 3: 1, 0: 4}


def test_d8_modern_tie_broken_by_the_tallest_owned_building() -> None:
    """RULES §8 [D8], N5: modern: among tied players, the one who owns the tallest building wins
    (color 2's 2-floor building beats color 3's 1-floor one)."""
    end = _final(HEIGHTS_BOARD, edition="modern", mover=3)
    assert end.to_json()["scores"] == [0, 6, 3, 3]
    assert _places(end) == {1: 1, 2: 2, 3: 3, 0: 4}


def test_d8_modern_equal_heights_broken_by_majorities_then_shared() -> None:
    """RULES §8 [D8]: modern, equal totals and equal tallest heights: the most neighborhood
    majorities on the final board wins; still tied: a shared place.
    Colors 0 and 2 tie in neighborhoods 0-3 (4 points each, no majority); color 3 has one
    building in 4 (tied with color 1) and its last piece in 5 (a majority): 2 + 2 = 4."""
    board = {(n, 0, 0): [(0, 1)] for n in range(4)} | {(n, 0, 1): [(2, 1)] for n in range(4)}
    board |= {(4, 0, 0): [(3, 1)], (4, 0, 1): [(1, 1)]}
    end = _final(board, edition="modern", mover=3)
    assert end.to_json()["scores"] == [4, 1, 4, 4]
    assert _places(end) == {3: 1, 0: 2, 2: 2, 1: 4}
    classic = _final(board, edition="classic", mover=3)
    assert _places(classic) == {3: 1, 0: 1, 2: 1, 1: 4}


@pytest.mark.parametrize("edition", ["classic", "modern"])
def test_d8_ranking_places_are_1_based_and_cover_every_player(edition: str) -> None:
    """RULES §8: the result ranks every player with places from 1."""
    end = _final({(0, 0, 0): [(2, 2)]}, edition=edition)
    placings = manhattan.ranking(end)
    assert sorted(p.player for p in placings) == [0, 1, 2, 3]
    assert placings[0].place == 1
