"""Building analysis: height, floors per color, owner, safe, the smallest taking piece
per color and the mover's reach (RULES §2, §6, §9), golden examples from seeds 001 and 004."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import manhattan
from manhattan.engine.analysis import analyze
from tests.engine.positions import position
from tests.strategies import states

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
WHITE, BLUE = 0, 1

# Seed 001 (online guide): white needs 2 floors to take the blue building in the center (3-1)
# and the one center right (2-0); the white tower bottom left is safe (9-4 = 5 needed).
# Seed 004: a blue-topped building with 3 blue floors and 1 white one needs a white 2-floor piece.
GUIDE_BOARD = {
    (0, 1, 1): [(WHITE, 1), (BLUE, 3)],
    (0, 1, 2): [(BLUE, 2)],
    (0, 2, 0): [(BLUE, 4), (WHITE, 4), (WHITE, 4), (WHITE, 1)],
}


def guide_position(**kwargs: object) -> manhattan.State:
    hands = [[4, 5, 5, 0], [0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]]
    return position(board=GUIDE_BOARD, hands=hands, **kwargs)  # type: ignore[arg-type]


def by_block(
    analysis: manhattan.Analysis,
) -> dict[tuple[int, int, int], manhattan.BuildingAnalysis]:
    return {b.block: b for b in analysis.buildings}


def test_s6_online_guide_examples() -> None:
    """RULES §6 (seeds 001, 004): floors per color, owner, floors needed to take, safe."""
    result = by_block(analyze(guide_position(selected={WHITE: (1, 1, 0, 0)})))
    center, right, tower = result[(0, 1, 1)], result[(0, 1, 2)], result[(0, 2, 0)]
    assert (center.height, center.floors, center.owner) == (4, (1, 3, 0, 0), BLUE)
    assert center.take_with == (2, None, 3, 3)
    assert right.take_with == (2, None, 2, 2)
    assert (tower.floors, tower.owner, tower.safe) == ((9, 4, 0, 0), WHITE, True)
    assert tower.take_with == (None, None, None, None)  # 9 - 4 = 5 floors: no such piece
    assert not center.safe and not right.safe
    assert center.take_with_selected == (2, None, None, None)  # white selected a 1 and a 2


def test_s6_safe_means_a_lead_of_more_than_four_floors() -> None:
    """RULES §6 (seed 001: "safe if the difference between the players is > 4"): a lead of
    exactly 4 floors is taken with a 4-floor piece, a lead of 5 is not. Every other color counts,
    in 2 players the owner's other color too (colors are independent, [D6])."""
    board = {
        (0, 0, 0): [(1, 4)],  # 4 over nobody: a 4-floor piece ties it
        (0, 0, 1): [(1, 4), (1, 1)],  # 5 over nobody: safe
        (0, 0, 2): [(0, 1), (1, 4), (1, 1)],  # 5 over color 0's 1: a lead of 4
    }
    result = by_block(analyze(position(board=board, hands=[[0, 1, 2, 3]] * 4)))
    four, five, mixed = result[(0, 0, 0)], result[(0, 0, 1)], result[(0, 0, 2)]
    assert (four.safe, four.take_with) == (False, (4, None, 4, 4))
    assert (five.safe, five.take_with) == (True, (None, None, None, None))
    assert (mixed.safe, mixed.take_with) == (False, (4, None, None, None))
    partner = {(0, 0, 0): [(2, 2), (0, 4), (0, 2)]}  # color 0: 6 floors, its partner color 2: 2
    (two,) = analyze(position(players=2, board=partner, hands=[[0, 1, 2, 3]] * 2)).buildings
    assert (two.safe, two.take_with) == (False, (None, None, 4, None))


def test_s2_reach_lists_the_movers_cards_and_pieces() -> None:
    """RULES §2, §5.2: the mover's cards designating the block (in their frame) and the selected
    pieces that may be placed there."""
    result = by_block(analyze(guide_position(selected={WHITE: (1, 1, 0, 0)})))
    center, right, tower = result[(0, 1, 1)], result[(0, 1, 2)], result[(0, 2, 0)]
    assert center.reach is not None and right.reach is not None and tower.reach is not None
    assert (center.reach.cards, center.reach.pieces) == ((4,), ((WHITE, 2),))
    assert (right.reach.cards, right.reach.pieces) == ((5,), ((WHITE, 2),))
    assert tower.reach.cards == () and tower.reach.pieces == ((WHITE, 1), (WHITE, 2))  # its own
    west = by_block(analyze(position(board=GUIDE_BOARD, to_move=1, hands=[[0, 1, 2, 3]] * 4)))
    reach = west[(0, 1, 2)].reach  # West sees block (1, 2) as card 1 (RULES §2 table)
    assert reach is not None and reach.cards == (1,)


def test_d9_anti_trust_forbids_taking_from_your_other_color() -> None:
    """RULES §9 [D9]: in 2 players, color 2 may take color 0's building only without antiTrust
    (colors are independent, [D6])."""
    board = {(0, 0, 0): [(0, 2)]}
    free = by_block(analyze(position(players=2, board=board)))[(0, 0, 0)]
    trust = by_block(analyze(position(players=2, board=board, variants={"antiTrust": True})))
    assert free.take_with == (None, 2, 2, 2)
    assert trust[(0, 0, 0)].take_with == (None, 2, None, 2)


def test_s9_monster_block_and_closed_neighborhoods_cannot_be_taken() -> None:
    """RULES §9: nobody builds on the monster's block; slowGrowth [D10] closes neighborhoods."""
    board = {(0, 0, 0): [(1, 1)], (5, 0, 0): [(1, 1)], (1, 0, 0): [(1, 1)]}
    monster = analyze(position(board=board, variants={"monster": "baby"}, monster=(0, 0, 0)))
    assert by_block(monster)[(0, 0, 0)].take_with == (None, None, None, None)
    assert by_block(monster)[(1, 0, 0)].take_with == (1, None, 1, 1)
    slow = by_block(analyze(position(board=board, variants={"slowGrowth": True}, round_=1)))
    assert slow[(5, 0, 0)].take_with == (None, None, None, None)  # round 1: 0, 1, 2 open
    assert slow[(1, 0, 0)].take_with == (1, None, 1, 1)


@SETTINGS
@given(states())
def test_s6_reach_agrees_with_legal_moves(state: manhattan.State) -> None:
    """RULES §6: cards x pieces of ``reach`` are exactly the legal builds onto each building;
    ``takeWithSelected`` of the mover's colors is the smallest such piece; ``safe`` is is_safe."""
    legal: dict[tuple[int, ...], set[tuple[int, int, int]]] = {}
    if state.phase == "build":
        for m in manhattan.legal_moves(state):
            if m.type == "build":
                assert m.block is not None and m.card is not None and m.color is not None
                legal.setdefault(m.block, set()).add((m.card, m.color, m.floors or 0))
    for b in analyze(state).buildings:
        if state.phase == "over":
            assert b.reach is None
            continue
        assert b.reach is not None
        pairs = {(card, c, f) for card in b.reach.cards for c, f in b.reach.pieces}
        assert pairs == legal.get(b.block, set())
        player = state.to_move
        assert player is not None
        for color in state.rules.colors[player]:
            sizes = [f for c, f in b.reach.pieces if c == color]
            if color != b.owner and state.phase == "build":  # nothing reaches while selecting
                assert b.take_with_selected[color] == min(sizes, default=None)
            if b.take_with[color] is not None:
                assert b.take_with[color] <= min(sizes, default=4)
        if b.safe:  # RULES §6: no piece has more than 4 floors, so no color takes it
            assert b.take_with == (None,) * state.rules.color_count


@SETTINGS
@given(states(), st.randoms(use_true_random=False), st.integers(0, 3))
def test_s11_analysis_of_a_view_uses_nothing_hidden(
    state: manhattan.State, rng: random.Random, who: int
) -> None:
    """RULES §11: a view gives the same analysis as the state, except that another player's view
    cannot know the mover's reach; other hands, deck and seed change nothing."""
    player = who % state.rules.players
    mine = manhattan.view(state, player)
    other = manhattan.view(manhattan.sample_state(mine, rng), player)
    assert analyze(mine) == analyze(other)
    full = analyze(state)
    for a, b in zip(analyze(mine).buildings, full.buildings, strict=True):
        assert a.take_with == b.take_with and a.safe == b.safe and a.floors == b.floors
        assert a.reach == (b.reach if player == state.to_move else None)
    if state.to_move is not None:  # the mover's full-state analysis: their hand only
        mover = manhattan.view(state, state.to_move)
        assert analyze(manhattan.sample_state(mover, rng)).buildings == full.buildings


def test_to_json_is_camel_case() -> None:
    json = analyze(guide_position()).to_json()
    assert set(json) == {"round", "phase", "toMove", "player", "buildings"}
    first = json["buildings"][0]
    assert set(first) == {
        "block",
        "height",
        "floors",
        "owner",
        "safe",
        "takeWith",
        "takeWithSelected",
        "reach",
    }
    assert set(first["reach"]) == {"cards", "pieces", "canBuild"}


def test_s5_nothing_reaches_a_building_between_a_players_two_selections() -> None:
    """RULES §5 [D4]: a 2-player player who has chosen one color's pieces still cannot build
    until the build phase, so ``reach`` offers no piece (found by the property test above)."""
    rng = random.Random(7)
    state = manhattan.new_game(players=2, seed="reach")
    while not (state.round == 2 and state.phase == "select" and any(state.selected[0])):
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
    buildings = analyze(state).buildings
    assert buildings
    for b in buildings:
        assert b.reach is not None and b.reach.pieces == ()
