"""Threats: exact takeover probabilities from public information (RULES §2, §6, §11).

The exact figures are checked against brute-force enumeration: every deal of the cards the viewer
has not seen, each deal a full state on which ``legal_moves`` (the one place legality lives)
says whether an opponent can build on the block, i.e. take it (RULES §6).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from math import comb

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import manhattan
from manhattan.engine.threats import holds_probability, none_holds_probability, threats
from tests.engine.positions import position
from tests.strategies import states

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _brute_none_holds(unseen: list[int], groups: list[tuple[int, int]]) -> Fraction:
    """Deal labelled cards hand by hand, every way, and count the deals where no hand holds its
    card."""
    cards = [t for t, k in enumerate(unseen) for _ in range(k)]

    def deal(left: frozenset[int], rest: list[tuple[int, int]]) -> tuple[int, int]:
        if not rest:
            return 1, 1
        (size, card), later = rest[0], rest[1:]
        good = every = 0
        for hand in itertools.combinations(sorted(left), size):
            g, a = deal(left - set(hand), later)
            every += a
            if all(cards[i] != card for i in hand):
                good += g
        return good, every

    good, every = deal(frozenset(range(len(cards))), groups)
    return Fraction(good, every)


def test_hypergeometric_single_hand() -> None:
    """One hand of 4 from 36 unseen cards of which 4 are the needed card."""
    unseen = [4] * 9
    assert holds_probability(unseen, 4, 3) == 1 - Fraction(comb(32, 4), comb(36, 4))
    assert holds_probability([0, 5, 5, 0, 0, 0, 0, 0, 0], 4, 0) == 0


@pytest.mark.parametrize("seed", range(60))
def test_dependent_hands_match_brute_force(seed: int) -> None:
    """Disjoint hands drawn from one multiset, several hands possibly needing the same card."""
    rng = random.Random(seed)
    unseen = [rng.randint(0, 3) for _ in range(4)] + [0] * 5
    groups, left = [], sum(unseen)
    for _ in range(rng.randint(1, 3)):
        size = rng.randint(0, min(3, left))
        left -= size
        groups.append((size, rng.randrange(4)))
    assert none_holds_probability(unseen, groups) == _brute_none_holds(unseen, groups)


# -- end to end: a small 3-player position, every deal of the 10 unseen cards ----------------
VIEWER_HAND = [1, 2, 3, 3]
HANDS = [VIEWER_HAND, [4, 5, 7, 8], [0, 6, 6, 8]]
DECK = [5, 7]
BOARD = {
    (0, 1, 1): [(0, 1)],  # center: card 4 for every seat, so both opponents compete for it
    (0, 0, 0): [(0, 2)],  # West needs card 6, North card 8; 2 floors
    (2, 2, 2): [(0, 4), (0, 1)],  # 5 floors: safe from a 4-floor piece
    (1, 0, 1): [(1, 1)],  # color 1's: the viewer holds card 1 and a piece, a certain threat
    (3, 2, 1): [(2, 3)],  # color 2's: the viewer cannot reach it (no card 7)
}
SELECTED = {0: (1, 1, 0, 0), 1: (1, 1, 0, 1), 2: (0, 0, 1, 0)}


def small_position() -> manhattan.State:
    used = Counter([c for h in HANDS for c in h] + DECK)
    discard = [c for c in range(9) for _ in range(5 - used[c])]
    return position(players=3, board=BOARD, hands=HANDS, discard=discard, selected=SELECTED)


def _reachable(state: manhattan.State, player: int) -> set[tuple[int, ...]]:
    """Blocks ``player`` could build on if it were their turn (``legal_moves``)."""
    moves = manhattan.legal_moves(replace(state, to_move=player))
    return {tuple(m.to_json()["block"]) for m in moves if m.type == "build"}


def _brute_threats(
    state: manhattan.State, viewer: int
) -> dict[tuple[int, ...], tuple[Fraction, Fraction]]:
    """Per building: (some opponent, some opponent other than the viewer) can take it, averaged
    over every deal of the unseen cards into the other hands and the deck."""
    others = [p for p in range(state.rules.players) if p != viewer]
    unseen = [c for p in others for c in state.hands[p]] + list(state.deck)
    sizes = [len(state.hands[p]) for p in others]
    owners = {
        (n, b // 3, b % 3): building[-1][0]
        for n, hood in enumerate(state.to_json()["board"])
        for b, building in enumerate(hood)
        if building
    }
    hits = {block: [0, 0] for block in owners}
    deals = 0
    for first in itertools.combinations(range(len(unseen)), sizes[0]):
        rest = [i for i in range(len(unseen)) if i not in first]
        for second in itertools.combinations(rest, sizes[1]):
            hands = list(state.hands)
            hands[others[0]] = tuple(sorted(unseen[i] for i in first))
            hands[others[1]] = tuple(sorted(unseen[i] for i in second))
            deal = replace(state, hands=tuple(hands))
            reach = {p: _reachable(deal, p) for p in range(state.rules.players)}
            deals += 1
            for block, owner in owners.items():
                takers = [p for p in reach if p != owner and block in reach[p]]
                hits[block][0] += bool(takers)
                hits[block][1] += any(p != viewer for p in takers)
    return {b: (Fraction(a, deals), Fraction(o, deals)) for b, (a, o) in hits.items()}


def test_threats_match_brute_force_enumeration() -> None:
    """RULES §11: exact probabilities equal the average over all 3150 deals of the unseen cards."""
    state = small_position()
    result = threats(state, 0)
    expected = _brute_threats(state, 0)
    got = {t.block: (t.probability, t.probability_others) for t in result.buildings}
    assert got == expected
    assert got[(2, 2, 2)] == (0, 0)  # safe (RULES §6)
    assert got[(1, 0, 1)][0] == 1  # the viewer's own known threat
    assert got[(0, 1, 1)][1] == Fraction(8, 10)  # the one unseen card 4 is not in the deck of 2


def test_two_player_brute_force_owner_other_color_is_not_an_opponent() -> None:
    """RULES §3 [D3]: in 2 players, the owner's other color does not threaten it; the opponent's
    two colors both may (§6 [D6])."""
    board = {(0, 0, 0): [(0, 1)], (0, 2, 2): [(1, 1)], (4, 1, 1): [(3, 2)]}
    hands = [[0, 4, 4, 8], [1, 2, 8, 8]]
    deck = [0, 4, 5, 8]
    used = Counter([c for h in hands for c in h] + deck)
    discard = [c for c in range(9) for _ in range(5 - used[c])]
    selected = {0: (1, 0, 0, 0), 1: (0, 1, 0, 0), 2: (0, 1, 0, 0), 3: (1, 0, 0, 0)}
    state = position(players=2, board=board, hands=hands, discard=discard, selected=selected)
    unseen = list(state.hands[1]) + list(state.deck)
    deals = [
        replace(state, hands=(state.hands[0], tuple(sorted(unseen[i] for i in hand))))
        for hand in itertools.combinations(range(len(unseen)), 4)
    ]
    expected: dict[tuple[int, ...], Fraction] = {}
    for block, owner_player in (((0, 0, 0), 0), ((0, 2, 2), 1), ((4, 1, 1), 1)):
        count = sum(
            any(block in _reachable(deal, p) for p in (0, 1) if p != owner_player) for deal in deals
        )
        expected[block] = Fraction(count, len(deals))
    assert expected[(0, 0, 0)] == Fraction(13, 14)  # player 1 (North) needs card 8
    got = {t.block: t.probability for t in threats(state, 0).buildings}
    assert got == expected


@SETTINGS
@given(states(), st.randoms(use_true_random=False), st.integers(0, 3))
def test_threats_use_nothing_hidden(state: manhattan.State, rng: random.Random, who: int) -> None:
    """RULES §11: other hands, the deck and the seed do not change the result, and a view gives
    the same result as the full state."""
    viewer = who % state.rules.players
    mine = manhattan.view(state, viewer)
    other = manhattan.sample_state(mine, rng)
    assert other.seed != state.seed
    assert threats(other, viewer) == threats(state, viewer) == threats(mine)


@SETTINGS
@given(states())
def test_probabilities_are_consistent(state: manhattan.State) -> None:
    """Some opponent is at least as likely as any one of them; viewer parts are certain."""
    viewer = state.to_move if state.to_move is not None else 0
    for t in threats(state, viewer).buildings:
        assert 0 <= t.probability_others <= t.probability <= 1
        for p in t.by_player:
            assert p.probability <= t.probability
            assert p.known == (p.player == viewer)
            if p.known:
                assert p.probability in (0, 1)
            else:
                assert p.probability <= t.probability_others
        json = t.to_json()
        assert set(json) == {"block", "owner", "probability", "probabilityOthers", "byPlayer"}


def test_player_without_pieces_has_no_next_turn() -> None:
    """RULES §5.2: a player whose selected pieces are all placed is skipped this round."""
    state = small_position()
    emptied = replace(state, selected=(state.selected[0], (0, 0, 0, 0), state.selected[2]))
    center = next(t for t in threats(emptied, 0).buildings if t.block == (0, 1, 1))
    assert [p.player for p in center.by_player] == [2]


def test_select_phase_uses_what_the_supply_allows() -> None:
    """RULES §5.1: in the select phase a color that has chosen threatens with its selection, one
    that has not yet with any size its supply still holds."""
    rng = random.Random(3)
    state = manhattan.new_game(players=4, seed="threats")
    while not (state.round == 2 and state.phase == "select" and state.to_move == 3):
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
    result = threats(state, 0)
    assert result.buildings
    chosen = {1, 2}  # round 2 starts with player 1 (RULES §5.2: the marker passes left)
    for t in result.buildings:
        for p in t.by_player:
            for color, floors in p.pieces:
                pool = state.selected[color] if color in chosen else state.supply[color]
                assert pool[floors - 1] > 0
    assert any(p.player in (0, 3) for t in result.buildings for p in t.by_player)


def test_view_must_be_the_viewers() -> None:
    state = small_position()
    with pytest.raises(manhattan.InvalidPlayerError):
        threats(manhattan.view(state, 1), 0)
    with pytest.raises(manhattan.InvalidPlayerError):
        threats(state)


def test_to_json_is_exact_and_camel_case() -> None:
    json = threats(small_position(), 0).to_json()
    center = next(b for b in json["buildings"] if b["block"] == [0, 1, 1])
    num, den = map(int, center["probabilityOthers"]["exact"].split("/"))
    assert center["probabilityOthers"]["value"] == pytest.approx(num / den)
    assert {"player", "card", "pieces", "probability", "known"} <= set(center["byPlayer"][0])
