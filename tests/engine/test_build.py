"""RULES §2 (card rotation), §5.2 (build: play, place, draw, reshuffle, skip, round end),
[D5] (no legal placement), §6 (legal placement) and [D6] (colors independent)."""

from __future__ import annotations

import pytest

import manhattan
from tests.engine.positions import EAST, NORTH, SOUTH, WEST, build, building, card_for, position

ROTATION_TABLE = {  # RULES §2, the table's rows: card -> board block per seat S, W, N, E
    0: [(0, 0), (0, 2), (2, 2), (2, 0)],
    1: [(0, 1), (1, 2), (2, 1), (1, 0)],
    4: [(1, 1), (1, 1), (1, 1), (1, 1)],
}


@pytest.mark.parametrize("seat", [SOUTH, WEST, NORTH, EAST])
@pytest.mark.parametrize("card", [0, 1, 4])
def test_s2_card_rotation_table(seat: int, card: int) -> None:
    """RULES §2: a card designates the block turned a quarter clockwise per seat (the table)."""
    state = position(players=4, to_move=seat, hand=[card] * 4)
    blocks = {tuple(m.to_json()["block"]) for m in manhattan.legal_moves(state)}
    r, c = ROTATION_TABLE[card][seat]
    assert blocks == {(n, r, c) for n in range(6)}
    after = manhattan.apply_move(state, build(card, 3, 1))
    assert building(after, 3, r, c) == [(seat, 1)]


@pytest.mark.parametrize("seat", [SOUTH, WEST, NORTH, EAST])
def test_s2_every_card_designates_its_rotated_block(seat: int) -> None:
    """RULES §2: (r, c) -> (c, 2 - r) per quarter turn; the center card is the center for all,
    every other card a different block for each seat."""
    for card in range(9):
        state = position(players=4, to_move=seat, hand=[card] * 4)
        (move, *_) = manhattan.legal_moves(state)
        r, c = card // 3, card % 3
        for _ in range(seat):
            r, c = c, 2 - r
        assert tuple(move.to_json()["block"])[1:] == (r, c)


def test_d1_side_by_side_seats_rotate_by_their_own_seat() -> None:
    """RULES §2 [D1]: two players seated South and West: player 1's card 0 means block (0, 2)."""
    state = position(players=2, seats=[SOUTH, WEST], to_move=1, hand=[0] * 4)
    assert {tuple(m.to_json()["block"])[1:] for m in manhattan.legal_moves(state)} == {(0, 2)}


def test_s2_a_card_allows_any_of_the_six_neighborhoods() -> None:
    """RULES §2: a card allows building on its block in any of the six neighborhoods."""
    state = position(hand=[5] * 4)
    assert sorted(m.to_json()["neighborhood"] for m in manhattan.legal_moves(state)) == list(
        range(6)
    )


def test_s5_2_identical_cards_are_one_move() -> None:
    """RULES §5.2: two identical cards in hand give each build once."""
    state = position(hand=[2, 2, 7, 7], selected={0: (1, 1, 0, 0)})
    moves = manhattan.legal_moves(state)
    assert len(moves) == 2 * 6 * 2
    assert len({m.notation for m in moves}) == len(moves)


def test_s5_2_play_a_card_place_a_piece_draw_one() -> None:
    """RULES §5.2: play one card face up (discard), place one selected piece, draw back to 4."""
    before = position(hand=[0, 1, 2, 3], selected={0: (1, 1, 0, 0)}).to_json()
    state = manhattan.State.from_json(before)
    after = manhattan.apply_move(state, build(3, 2, 2)).to_json()
    assert after["discard"] == [*before["discard"], 3]
    assert sorted(after["hands"][0]) == sorted([0, 1, 2, before["deck"][0]])
    assert after["deck"] == before["deck"][1:]
    assert after["selected"][0] == [1, 0, 0, 0]
    assert after["board"][2][3] == [[0, 2]]


def test_s5_2_empty_deck_reshuffles_the_discard_pile() -> None:
    """RULES §5.2: when the deck is empty, the discard pile is shuffled to form a new deck; N6:
    the card just played is already in it."""
    hands = [[0, 1, 2, 3], [0, 1, 2, 3], [4, 5, 6, 7], [4, 5, 6, 7]]
    rest = [p for p in range(9) for _ in range(5 - sum(h.count(p) for h in hands))]
    state = position(hands=hands, discard=rest, selected={0: (1, 1, 0, 0)})
    assert state.to_json()["deck"] == []
    result = manhattan.play(state, build(0, 0, 1))
    js = result.state.to_json()
    assert js["shuffles"] == 1
    assert js["discard"] == []
    assert len(js["deck"]) == len(rest)  # the played card joined, one was drawn
    assert len(js["hands"][0]) == 4
    assert "deckReshuffled" in [e.type for e in result.events]


@pytest.mark.parametrize("reshuffle", [False, True])
def test_s5_2_reshuffle_each_round_option(reshuffle: bool) -> None:
    """RULES §5.2 option reshuffleEachRound (Mayfair): at the end of each round discards and deck
    are shuffled together; without it, the discard pile carries over."""
    state = position(
        round_=1, variants={"reshuffleEachRound": reshuffle}, discard=[8, 8], hand=[0] * 4
    )
    js = manhattan.apply_move(state, build(0, 0, 1)).to_json()
    assert (js["round"], js["phase"]) == (2, "select")
    if reshuffle:
        assert js["discard"] == []
        assert len(js["deck"]) == 45 - 16
        assert js["shuffles"] == 1
    else:
        assert js["discard"] == [8, 8, 0]
        assert js["shuffles"] == 0


def test_s5_2_a_player_without_pieces_is_skipped() -> None:
    """RULES §5.2: a player whose selected pieces are all placed is skipped."""
    state = position(round_=1, selected={0: (2, 0, 0, 0), 2: (1, 0, 0, 0)})
    assert manhattan.apply_move(state, build(0, 0, 1)).to_move == 2


def test_s5_2_round_end_scores_and_passes_the_first_player_marker_left() -> None:
    """RULES §5.2: the round ends when no selected piece is left, it is scored (§7), the marker
    passes to the left (clockwise) and buildings stay on the board."""
    state = position(round_=2, first_player=3, to_move=2, hand=[4] * 4, selected={2: (1, 0, 0, 0)})
    js = manhattan.apply_move(state, build(4, 5, 1)).to_json()
    assert (js["round"], js["phase"], js["firstPlayer"], js["toMove"]) == (3, "select", 0, 0)
    assert js["history"][-1]["round"] == 2
    assert js["history"][-1]["scores"][2] == {
        "buildings": 1,
        "majorities": [5],
        "tallest": 3,
        "urban": 0,
        "total": 6,
    }
    assert js["scores"] == [0, 0, 6, 0]
    assert js["board"][5][4] == [[2, 1]]


def test_s5_2_first_player_marker_follows_seats_clockwise() -> None:
    """RULES §2/§5.2, N1: clockwise is by seat (S, W, N, E), not by player index."""
    state = position(players=3, seats=[EAST, SOUTH, WEST], round_=1, first_player=0, to_move=0)
    js = manhattan.apply_move(state, build(0, 0, 1)).to_json()
    assert (js["firstPlayer"], js["toMove"]) == (1, 1)


def _blocked_position(selected: tuple[int, int, int, int]) -> manhattan.State:
    """Player 0 holds only center cards; every center block has a 3-floor building of another
    color (colors 1 and 2 have four 3-floor pieces each)."""
    board = {(n, 1, 1): [(1 if n < 4 else 2, 3)] for n in range(6)}
    return position(board=board, hand=[4] * 4, selected={0: selected, 1: (1, 0, 0, 0)})


def test_d5_no_legal_placement_means_discard_and_forfeit_of_choice() -> None:
    """RULES §5.2 [D5], N9: no card allows a legal placement: the only moves are to discard a card
    and forfeit a selected piece of the player's choice (it leaves the game), then draw."""
    state = _blocked_position((1, 1, 0, 0))
    moves = manhattan.legal_moves(state)
    assert sorted(m.notation.rstrip("c0") for m in moves) == ["x4f1", "x4f2"]
    before = state.to_json()
    after = manhattan.apply_move(state, moves[0]).to_json()
    assert after["board"] == before["board"]
    assert sum(after["selected"][0]) == 1
    assert after["supply"] == before["supply"]
    assert after["discard"][-1] == 4
    assert len(after["hands"][0]) == 4
    assert after["toMove"] == 1


def test_d5_forfeit_is_illegal_while_a_build_is_legal() -> None:
    """RULES §5.2 [D5]: forfeiting is never legal when some placement is."""
    state = _blocked_position((0, 0, 1, 0))  # a 3-floor piece takes the red buildings
    assert all(m.type == "build" for m in manhattan.legal_moves(state))
    forfeit = manhattan.Move.from_json({"type": "forfeit", "card": 4, "floors": 3})
    with pytest.raises(manhattan.IllegalMoveError) as err:
        manhattan.apply_move(state, forfeit)
    assert err.value.code == "ILLEGAL_MOVE"


def test_s6_empty_block_or_own_building_takes_any_piece() -> None:
    """RULES §6: a piece may go on an empty block or on a building its color owns, any size."""
    board = {(0, 0, 0): [(1, 4), (0, 1)]}
    state = position(board=board, hand=[0] * 4, selected={0: (1, 0, 0, 0)})
    assert {m.notation.rstrip("c0") for m in manhattan.legal_moves(state)} == {
        f"b0n{n}f1" for n in range(6)
    }


@pytest.mark.parametrize(
    ("pieces", "color", "smallest"),
    [
        ([(1, 2)], 0, 2),  # 0 + f >= 2
        ([(1, 1)], 0, 1),  # at least as many: a tie is enough
        ([(0, 1), (1, 2), (2, 3)], 0, 2),  # owner color 2 has 3, color 0 has 1
        ([(0, 1), (1, 2), (2, 3)], 1, 1),  # color 1 has 2 of the owner's 3
        ([(2, 1), (1, 2), (2, 1), (1, 3)], 2, 3),  # owner 1 has 5, color 2 has 2
        ([(1, 4), (1, 4)], 0, 5),  # safe: 8 floors ahead, no piece is big enough
    ],
)
def test_s6_takeover_needs_at_least_the_owners_floors(
    pieces: list[tuple[int, int]], color: int, smallest: int
) -> None:
    """RULES §6: after placing, the placer's floors are at least the owner's floors."""
    board = {(3, 0, 0): pieces}
    card = card_for(color, 0, 0)  # 4 players: player = color = seat
    state = position(board=board, to_move=color, hand=[card] * 4, selected={color: (1, 1, 1, 1)})
    sizes = {m.to_json()["floors"] for m in manhattan.legal_moves(state) if m.neighborhood == 3}
    assert sizes == set(range(smallest, 5))
    if smallest > 1:
        with pytest.raises(manhattan.IllegalMoveError) as err:
            manhattan.apply_move(state, build(card, 3, smallest - 1))
        assert err.value.code == "ILLEGAL_MOVE"
        if smallest <= 4:
            assert str(smallest) in err.value.message  # the message names the floors needed


def test_s6_takeover_changes_the_owner() -> None:
    """RULES §1/§6: the owner is the color of the top piece."""
    board = {(3, 0, 0): [(1, 2)]}
    state = position(board=board, hand=[0] * 4, selected={0: (0, 1, 0, 0)})
    result = manhattan.play(state, build(0, 3, 2))
    assert building(result.state, 3, 0, 0) == [(1, 2), (0, 2)]
    takeovers = [e.to_json() for e in result.events if e.type == "takeover"]
    assert takeovers == [{"type": "takeover", "block": [3, 0, 0], "from": 1, "to": 0}]


def test_d6_two_colors_of_one_player_are_independent_for_takeovers() -> None:
    """RULES §6 [D6]: in 2 players, color 0 taking its partner color 2's building follows the
    rule as for any other color; color 2 builds on it freely."""
    board = {(1, 2, 2): [(2, 2)]}
    state = position(
        players=2,
        board=board,
        hands=[[8] * 4, [0] * 4],
        selected={0: (1, 1, 0, 0), 2: (1, 0, 0, 0)},
    )
    on_it = {
        (m.to_json()["color"], m.to_json()["floors"])
        for m in manhattan.legal_moves(state)
        if m.neighborhood == 1
    }
    assert on_it == {(0, 2), (2, 1)}


def test_s5_2_two_players_place_either_color_and_must_name_it() -> None:
    """RULES §5.2: in 2 players a turn places a piece of either color; the move names it."""
    state = position(
        players=2, hands=[[8] * 4, [0] * 4], selected={0: (1, 0, 0, 0), 2: (1, 0, 0, 0)}
    )
    assert {m.color for m in manhattan.legal_moves(state)} == {0, 2}
    with pytest.raises(manhattan.IllegalMoveError) as err:
        manhattan.apply_move(state, build(8, 0, 1))
    assert err.value.code == "INVALID_MOVE"
    with pytest.raises(manhattan.IllegalMoveError) as err:
        manhattan.apply_move(state, build(8, 0, 1, color=1))
    assert err.value.code == "ILLEGAL_MOVE"


def test_s5_2_card_not_in_hand_or_piece_not_selected_is_illegal() -> None:
    """RULES §5.2: the card comes from the hand, the piece from the selection."""
    state = position(hand=[0, 1, 2, 3], selected={0: (1, 0, 0, 0)})
    for move in (build(8, 0, 1), build(0, 0, 2)):
        with pytest.raises(manhattan.IllegalMoveError) as err:
            manhattan.apply_move(state, move)
        assert err.value.code == "ILLEGAL_MOVE"


def test_s6_safe_building_cannot_be_taken() -> None:
    """RULES §6: an owner leading every other color by more than 4 floors is safe."""
    assert manhattan.is_safe(((1, 4), (1, 1)), 4)
    assert not manhattan.is_safe(((1, 4), (0, 1), (1, 1)), 4)
    assert not manhattan.is_safe(((1, 4),), 4)


def test_s8_moves_after_the_end_are_rejected_with_game_over() -> None:
    """RULES §8: the game ends after the last round's scoring; no move is legal after."""
    state = position(selected={0: (1, 0, 0, 0)})
    over = manhattan.apply_move(state, build(0, 0, 1))
    assert over.to_json()["phase"] == "over"
    assert over.to_json()["toMove"] is None
    assert manhattan.legal_moves(over) == []
    with pytest.raises(manhattan.IllegalMoveError) as err:
        manhattan.apply_move(over, build(0, 1, 1))
    assert err.value.code == "GAME_OVER"
