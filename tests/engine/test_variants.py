"""RULES §9 variants: antiTrust [D9], slowGrowth [D10], the monsters [D11] (godzilla, baby),
and what the takeover rule means after a baby-monster removal (RULES §6)."""

from __future__ import annotations

import pytest

import manhattan
from tests.engine.positions import build, building, card_for, position

GODZILLA = {"monster": "godzilla"}
BABY = {"monster": "baby"}


def _neighborhoods(state: manhattan.State) -> set[int]:
    return {m.to_json()["neighborhood"] for m in manhattan.legal_moves(state) if m.type == "build"}


# -- antiTrust [D9] ---------------------------------------------------------------------------
@pytest.mark.parametrize("anti_trust", [False, True])
def test_d9_anti_trust_forbids_building_on_your_own_building(anti_trust: bool) -> None:
    """RULES §9 [D9]: with antiTrust a player may not place a piece on a building they own."""
    board = {(n, 0, 0): [(0, 1)] for n in range(6)}
    state = position(board=board, hand=[0] * 4, variants={"antiTrust": anti_trust})
    assert _neighborhoods(state) == (set() if anti_trust else set(range(6)))
    if anti_trust:  # nothing else is legal: [D5] applies
        assert {m.type for m in manhattan.legal_moves(state)} == {"forfeit"}
        with pytest.raises(manhattan.IllegalMoveError) as err:
            manhattan.apply_move(state, build(0, 2, 1))
        assert err.value.code == "ILLEGAL_MOVE"


def test_d9_anti_trust_covers_both_colors_of_a_two_player_player() -> None:
    """RULES §9 [D9]: "one of their own colors": color 0 may not build on color 2's building."""
    board = {(1, 0, 0): [(2, 1)], (2, 0, 0): [(1, 1)]}
    state = position(
        players=2,
        board=board,
        hand=[0] * 4,
        variants={"antiTrust": True},
        selected={0: (1, 0, 0, 0), 2: (1, 0, 0, 0)},
    )
    assert _neighborhoods(state) == {0, 2, 3, 4, 5}


def test_d9_anti_trust_still_allows_taking_other_buildings() -> None:
    """RULES §9 [D9]: other players' buildings follow RULES §6 as usual."""
    board = {(1, 0, 0): [(1, 1)]}
    state = position(board=board, hand=[0] * 4, variants={"antiTrust": True})
    assert _neighborhoods(state) == set(range(6))


# -- slowGrowth [D10] -------------------------------------------------------------------------
@pytest.mark.parametrize(("round_", "open_"), [(1, 3), (2, 4), (3, 5), (4, 6), (5, 6), (6, 6)])
def test_d10_slow_growth_opens_one_more_neighborhood_each_round(round_: int, open_: int) -> None:
    """RULES §9 [D10]: in round k only neighborhoods 0 .. min(5, k+1) are open."""
    state = position(players=3, round_=round_, variants={"slowGrowth": True})
    assert _neighborhoods(state) == set(range(open_))
    if open_ < 6:
        with pytest.raises(manhattan.IllegalMoveError) as err:
            manhattan.apply_move(state, build(0, open_, 1))
        assert err.value.code == "ILLEGAL_MOVE"


def test_d10_without_slow_growth_every_neighborhood_is_open_in_round_one() -> None:
    """RULES §9 [D10]: the restriction is the option's only."""
    assert _neighborhoods(position(players=3, round_=1)) == set(range(6))


# -- monster geometry [D11] -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("start", "seat", "card", "end"),
    [
        ((0, 1, 1), 0, 0, (0, 0, 0)),  # corner card: diagonal
        ((0, 0, 0), 0, 0, (5, 2, 2)),  # wraps left and up at once: the torus' far corner
        ((0, 0, 1), 0, 1, (3, 2, 1)),  # edge card: up, wraps to the bottom row (0 over 3)
        ((2, 1, 2), 0, 5, (0, 1, 0)),  # right, wraps from neighborhood 2 to 0
        ((4, 2, 0), 0, 7, (1, 0, 0)),  # down, wraps from the bottom row to the top
        ((3, 1, 0), 0, 3, (5, 1, 2)),  # left, wraps from 3 to 5
        ((4, 2, 2), 0, 8, (2, 0, 0)),  # diagonal down-right across two edges
        ((0, 1, 2), 0, 5, (1, 1, 0)),  # right: into the next neighborhood, no wrap
        ((1, 2, 1), 0, 7, (4, 0, 1)),  # down: from 1 into 4
        ((0, 1, 1), 0, 4, (0, 1, 1)),  # center card: does not move
        ((0, 1, 1), 1, 0, (0, 0, 2)),  # West's card 0 is the board's top-right: up-right
        ((0, 1, 1), 2, 0, (0, 2, 2)),  # North's card 0 is the board's bottom-right
        ((0, 1, 1), 3, 0, (0, 2, 0)),  # East's card 0 is the board's bottom-left
        ((0, 1, 1), 1, 1, (0, 1, 2)),  # West's card 1 is the board's middle-right
    ],
)
def test_d11_monster_moves_on_the_torus_in_the_board_frame(
    start: tuple[int, int, int], seat: int, card: int, end: tuple[int, int, int]
) -> None:
    """RULES §9 [D11]: a 9 x 6 torus (0 1 2 over 3 4 5) wrapping at every edge; one step toward
    the card's designated block seen from the center, in the board frame after seat rotation:
    corner cards diagonally, edge cards orthogonally, the center card not at all."""
    state = position(
        variants=GODZILLA,
        monster=start,
        to_move=seat,
        hand=[card] * 4,
        selected={seat: (1, 0, 0, 0)},
    )
    n = next(m.to_json()["neighborhood"] for m in manhattan.legal_moves(state))
    after = manhattan.apply_move(state, build(card, n, 1))
    assert tuple(after.to_json()["monster"]) == end


def test_d11_default_start_is_the_center_of_neighborhood_0_or_the_setups_block() -> None:
    """RULES §9 [D11]: default start: center block of neighborhood 0; a setup may name another."""
    assert manhattan.new_game(seed="m", variants=GODZILLA).to_json()["monster"] == [0, 1, 1]
    chosen = manhattan.new_game(seed="m", variants=BABY, monster_start=[4, 2, 0])
    assert chosen.to_json()["monster"] == [4, 2, 0]
    assert manhattan.new_game(seed="m").to_json()["monster"] is None


def test_d11_monster_also_moves_after_a_forfeit_discard() -> None:
    """RULES §9 [D11]: the monster moves after each played card, a [D5] discard included."""
    # Every (n, 0, 0) holds a 3-floor building of another color: player 0's card 0 is useless.
    board = {(n, 0, 0): [(1, 3)] for n in range(4)} | {(n, 0, 0): [(2, 3)] for n in (4, 5)}
    state = position(
        board=board,
        variants=GODZILLA,
        monster=(2, 1, 1),
        hand=[0] * 4,
        selected={0: (1, 0, 0, 0)},
    )
    assert {m.type for m in manhattan.legal_moves(state)} == {"forfeit"}
    after = manhattan.apply_move(state, manhattan.legal_moves(state)[0])
    assert after.to_json()["monster"] == [2, 0, 0]
    assert building(after, 2, 0, 0) == []  # and destroyed the building it entered


def test_s9_nobody_builds_on_the_monsters_block() -> None:
    """RULES §9: nobody may build on the block where the monster stands."""
    state = position(variants=GODZILLA, monster=(3, 2, 2), hand=[8] * 4)
    assert _neighborhoods(state) == {0, 1, 2, 4, 5}
    with pytest.raises(manhattan.IllegalMoveError) as err:
        manhattan.apply_move(state, build(8, 3, 1))
    assert err.value.code == "ILLEGAL_MOVE"


# -- godzilla ---------------------------------------------------------------------------------
def test_s9_godzilla_destroys_the_whole_building_it_enters() -> None:
    """RULES §9 godzilla: entering a block with a building destroys it; its pieces leave the game
    (they do not return to a supply)."""
    board = {(0, 0, 0): [(1, 2), (2, 3)]}
    state = position(board=board, variants=GODZILLA, monster=(0, 1, 1), hand=[0] * 4)
    before = state.to_json()
    result = manhattan.play(state, build(0, 4, 1))
    after = result.state.to_json()
    assert after["board"][0][0] == []
    assert after["supply"] == before["supply"]
    destroyed = [e.to_json() for e in result.events if e.type == "buildingDestroyed"]
    assert destroyed == [
        {"type": "buildingDestroyed", "block": [0, 0, 0], "pieces": [[1, 2], [2, 3]]}
    ]
    moved = [e.to_json() for e in result.events if e.type == "monsterMoved"]
    assert moved == [{"type": "monsterMoved", "from": [0, 1, 1], "to": [0, 0, 0]}]


def test_s9_godzilla_can_destroy_the_piece_just_built() -> None:
    """RULES §9, N14: the monster moves after the build; if it steps onto the new building, it is
    destroyed like any other."""
    state = position(variants=GODZILLA, monster=(0, 1, 1), hand=[0] * 4)
    after = manhattan.apply_move(state, build(0, 0, 1))
    assert building(after, 0, 0, 0) == []
    assert after.to_json()["monster"] == [0, 0, 0]


def test_s9_godzilla_center_card_does_nothing() -> None:
    """RULES §9: the center card does not move godzilla, and godzilla removes nothing."""
    state = position(variants=GODZILLA, monster=(1, 1, 1), hand=[4] * 4)
    after = manhattan.apply_move(state, build(4, 0, 1))
    assert after.to_json()["monster"] == [1, 1, 1]
    assert building(after, 0, 1, 1) == [(0, 1)]


# -- baby monster -----------------------------------------------------------------------------
def test_s9_baby_removes_the_top_piece_and_the_owner_is_recomputed() -> None:
    """RULES §9 baby: entering a building removes its top piece (it leaves the game); the new top
    piece decides the owner."""
    board = {(0, 0, 0): [(1, 2), (2, 3)]}
    state = position(board=board, variants=BABY, monster=(0, 1, 1), hand=[0] * 4)
    result = manhattan.play(state, build(0, 4, 1))
    assert building(result.state, 0, 0, 0) == [(1, 2)]
    removed = [e.to_json() for e in result.events if e.type == "pieceRemoved"]
    assert removed == [{"type": "pieceRemoved", "block": [0, 0, 0], "piece": [2, 3], "owner": 1}]
    scores = [b.to_json() for b in manhattan.score_round(result.state).colors]
    assert scores[1]["buildings"] == 1  # color 1 owns what is left (and it is not in 4)
    assert scores[2]["buildings"] == 0


def test_s9_baby_removes_another_piece_on_a_center_card() -> None:
    """RULES §9 baby: when the center card is played, the baby removes the top piece of the
    building it stands on."""
    board = {(2, 1, 1): [(1, 1), (2, 1), (3, 2)]}
    state = position(board=board, variants=BABY, monster=(2, 1, 1), hand=[4] * 4)
    after = manhattan.apply_move(state, build(4, 0, 1))
    assert after.to_json()["monster"] == [2, 1, 1]
    assert building(after, 2, 1, 1) == [(1, 1), (2, 1)]


def test_s9_baby_removing_the_last_piece_empties_the_block() -> None:
    """RULES §9 baby: a one-piece building loses its only piece: the block is empty."""
    board = {(0, 0, 0): [(1, 2)]}
    state = position(board=board, variants=BABY, monster=(0, 1, 1), hand=[0] * 4)
    after = manhattan.apply_move(state, build(0, 4, 1))
    assert building(after, 0, 0, 0) == []


def test_s6_after_a_baby_removal_the_owner_rule_stands() -> None:
    """RULES §6 with the baby monster: after a removal the owner (top piece) may hold fewer floors
    than another color. The rule compares with the OWNER's floors only: with blue 3 floors under
    red's 1 floor, white (0 floors) takes the building with a 1-floor piece, although blue holds
    more floors than white would."""
    board = {(1, 0, 0): [(1, 3), (2, 1), (3, 2)]}  # blue 3, red 1, green 2 on top
    state = position(board=board, variants=BABY, monster=(1, 1, 1), hand=[0] * 4)
    after = manhattan.apply_move(state, build(0, 3, 1))  # card 0 from (1,1,1): up-left to (1,0,0)
    assert building(after, 1, 0, 0) == [(1, 3), (2, 1)]  # red owns it with 1 floor of 4
    white = position(
        board={(1, 0, 0): [(1, 3), (2, 1)]},
        variants=BABY,
        monster=(1, 0, 0),
        hand=[card_for(0, 0, 0)] * 4,
    )
    assert _neighborhoods(white) == {0, 2, 3, 4, 5}  # the monster's block is closed, though
    white = position(
        board={(1, 0, 0): [(1, 3), (2, 1)]},
        variants=BABY,
        monster=(4, 1, 1),
        hand=[0] * 4,
        selected={0: (1, 0, 0, 0)},
    )
    assert 1 in _neighborhoods(white)
    taken = manhattan.apply_move(white, build(0, 1, 1))
    assert building(taken, 1, 0, 0) == [(1, 3), (2, 1), (0, 1)]
