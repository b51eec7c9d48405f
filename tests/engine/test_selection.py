"""RULES §5.1 (select pieces) and [D4]."""

from __future__ import annotations

import pytest

import manhattan
from tests.engine.positions import position


def select(color: int, pieces: list[int]) -> manhattan.Move:
    return manhattan.Move.from_json({"type": "select", "color": color, "pieces": pieces})


def compositions(total: int, supply: tuple[int, int, int, int]) -> int:
    """Hand count of (a, b, c, d) with a+b+c+d = total within the supply."""
    return sum(
        1
        for a in range(supply[0] + 1)
        for b in range(supply[1] + 1)
        for c in range(supply[2] + 1)
        if 0 <= total - a - b - c <= supply[3]
    )


def test_s5_1_selection_counts_from_a_full_supply() -> None:
    """RULES §5.1: any mix of exactly piecesPerRound pieces. From (11, 6, 4, 3): 6 pieces can be
    chosen in C(9,3) = 84 ways minus 10 with four or more 4-floor pieces and 4 with five or more
    3-floor pieces = 70; 4 pieces in C(7,3) - 1 = 34 ways."""
    assert compositions(6, (11, 6, 4, 3)) == 70
    assert compositions(4, (11, 6, 4, 3)) == 34
    assert len(manhattan.legal_moves(manhattan.new_game(players=4, seed="a"))) == 70
    assert len(manhattan.legal_moves(manhattan.new_game(players=3, seed="a"))) == 34
    assert len(manhattan.legal_moves(manhattan.new_game(players=2, seed="a"))) == 34


def test_s5_1_choices_in_turn_order_from_the_first_player_then_build() -> None:
    """RULES §5.1: each player chooses in turn from the first player, clockwise; then the first
    player builds first (§5.2)."""
    state = manhattan.new_game(players=4, seed="t", first_player=2)
    movers = []
    for _ in range(4):
        movers.append(state.to_move)
        state = manhattan.apply_move(state, manhattan.legal_moves(state)[0])
    assert movers == [2, 3, 0, 1]
    assert (state.to_json()["phase"], state.to_json()["toMove"]) == ("build", 2)


def test_s5_1_selection_takes_pieces_from_supply_and_is_public() -> None:
    """RULES §5.1: the chosen pieces leave the supply and are visible to all (§11)."""
    state = manhattan.apply_move(manhattan.new_game(players=4, seed="s"), select(0, [2, 2, 1, 1]))
    js = state.to_json()
    assert js["supply"][0] == [9, 4, 3, 2]
    assert js["selected"][0] == [2, 2, 1, 1]
    assert manhattan.view(state, 1).to_json()["selected"][0] == [2, 2, 1, 1]


@pytest.mark.parametrize("pieces", [[5, 0, 0, 0], [7, 0, 0, 0], [0, 0, 0, 6], [2, 0, 4, 0, 0]])
def test_s5_1_wrong_count_or_beyond_supply_is_rejected(pieces: list[int]) -> None:
    """RULES §5.1: exactly 6 pieces (4 players), never more of a size than the supply holds."""
    state = manhattan.new_game(players=4, seed="w")
    with pytest.raises(manhattan.IllegalMoveError) as err:
        manhattan.apply_move(state, select(0, pieces))
    assert err.value.code in ("ILLEGAL_MOVE", "INVALID_MOVE")


def test_s5_1_selecting_for_another_players_color_is_illegal() -> None:
    """RULES §5.1: a player chooses for their own colors."""
    with pytest.raises(manhattan.IllegalMoveError) as err:
        manhattan.apply_move(manhattan.new_game(players=4, seed="o"), select(1, [6, 0, 0, 0]))
    assert err.value.code == "ILLEGAL_MOVE"


def test_d4_two_players_one_choice_per_color_lower_color_first() -> None:
    """RULES §5.1 [D4]: in 2 players, player 0 chooses color 0 then 2, player 1 then 1 and 3."""
    state = manhattan.new_game(players=2, seed="d4")
    with pytest.raises(manhattan.IllegalMoveError):
        manhattan.apply_move(state, select(2, [4, 0, 0, 0]))
    order = []
    while state.to_json()["phase"] == "select":
        move = manhattan.legal_moves(state)[0]
        order.append((move.player, move.color))
        state = manhattan.apply_move(state, move)
    assert order == [(0, 0), (0, 2), (1, 1), (1, 3)]


def test_d4_lower_color_first_even_when_the_setup_lists_colors_high_first() -> None:
    """RULES §5.1 [D4]: "their lower color first", whatever order the setup lists them in."""
    state = manhattan.new_game(players=2, seed="d4", colors=[[2, 0], [3, 1]])
    assert {m.color for m in manhattan.legal_moves(state)} == {0}


def test_d4_last_round_single_choice_is_still_a_move() -> None:
    """RULES §5.1: when the supply leaves one choice (last round using all 24), it is still a
    move, the only legal one."""
    state = manhattan.new_game(players=4, seed="last", rounds=1, pieces_per_round=24)
    moves = manhattan.legal_moves(state)
    assert [m.to_json()["pieces"] for m in moves] == [[11, 6, 4, 3]]


def test_s5_1_selection_is_not_legal_in_the_build_phase() -> None:
    """RULES §5.1: pieces are chosen at the start of a round only."""
    with pytest.raises(manhattan.IllegalMoveError) as err:
        manhattan.apply_move(position(), select(0, [1, 0, 0, 0]))
    assert err.value.code == "ILLEGAL_MOVE"
