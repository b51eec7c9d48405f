"""The decisions of docs/rules-notes.md (N#) where RULES.md is silent, each checked here or cited
by the test that checks it (``test_rules_coverage.py`` makes sure every N# is cited)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

import manhattan
from tests.engine.positions import build, building, position
from tests.engine.test_urban import one, urban_points

T = TypeVar("T")


def _documented_shuffle(items: Sequence[T], seed: str, label: str) -> list[T]:
    """The shuffle as README and ``engine/shuffle.py`` describe it, written out again: words of
    SHA-256(seed:label:counter), big-endian, rejection below the largest multiple of n,
    Fisher-Yates from the last index down."""

    def words() -> Iterator[int]:
        counter = 0
        while True:
            digest = hashlib.sha256(f"{seed}:{label}:{counter}".encode()).digest()
            for i in range(0, 32, 4):
                yield int.from_bytes(digest[i : i + 4], "big")
            counter += 1

    stream = words()
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - 2**32 % n
        word = next(stream)
        while word >= limit:
            word = next(stream)
        j = word % n
        out[i], out[j] = out[j], out[i]
    return out


def test_n7_n8_deal_is_four_consecutive_cards_per_player_from_the_documented_shuffle() -> None:
    """N7: four consecutive cards from the top of the shuffled deck to each player in player
    order, the rest is the deck; N8: hands are kept sorted. RULES §4: the shuffle comes from
    the seed, by the documented algorithm (label "deal"; the urban deck: "urban")."""
    state: dict[str, Any] = manhattan.new_game(
        players=3, edition="modern", seed="n7", variants={"urbanRules": True}
    ).to_json()
    cards = _documented_shuffle([p for p in range(9) for _ in range(5)], "n7", "deal")
    assert state["hands"] == [sorted(cards[4 * p : 4 * p + 4]) for p in range(3)]
    assert state["deck"] == cards[12:]
    urban = _documented_shuffle(list(manhattan.URBAN_CARDS), "n7", "urban")
    assert [*state["urban"]["revealed"], *state["urban"]["deck"]] == urban


def test_n8_hands_stay_sorted_through_play() -> None:
    """N8: a hand is a multiset, kept sorted after every draw (its order would leak draws)."""
    state = manhattan.new_game(players=4, seed="n8")
    rng = random.Random(8)
    while not state.is_over:
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
        hands: list[list[int]] = state.to_json()["hands"]  # type: ignore[assignment]
        assert all(h == sorted(h) for h in hands)


def test_n4_hobbit_home_a_lone_building_is_the_lowest_of_its_neighborhood() -> None:
    """N4: the tallest building alone in its neighborhood is also its strictly lowest."""
    assert urban_points("hobbitHome", {(3, 0, 0): one(0, 4), (1, 0, 0): one(1, 1)}) == [2, 0, 0, 0]


def test_n10_urban_rules_allow_at_most_nine_rounds_and_the_deck_never_runs_out() -> None:
    """N10: with urbanRules at most 9 rounds; in a 9-round game whose 9th card is fakeNews, the
    scoring reveals the 10th and last card, and every round is scored with a rule."""
    setup: dict[str, Any] = {
        "players": 4,
        "edition": "modern",
        "variants": {"urbanRules": True},
        "rounds": 9,
        "pieces_per_round": 2,
    }
    try:
        manhattan.new_game(seed="n10", **setup | {"rounds": 10})
    except manhattan.InvalidSetupError as err:
        assert err.code == "INVALID_SETUP"
    else:
        raise AssertionError("10 rounds with urban rules were accepted")
    state = manhattan.new_game(seed="n10-9", **setup)
    urban: dict[str, Any] = state.to_json()["urban"]  # type: ignore[assignment]
    assert [*urban["revealed"], *urban["deck"]].index("fakeNews") == 8
    rng = random.Random(10)
    applied = []
    while not state.is_over:
        step = manhattan.play(state, rng.choice(manhattan.legal_moves(state)))
        applied += [e.to_json()["urban"] for e in step.events if e.type == "roundScored"]
        state = step.state
    final: dict[str, Any] = state.to_json()["urban"]  # type: ignore[assignment]
    assert final["deck"] == []
    assert len(final["revealed"]) == 10
    assert None not in applied and len(applied) == 9
    assert applied[-1] == final["revealed"][-1] != "fakeNews"


def test_n13_baby_on_a_center_card_over_an_empty_block_does_nothing() -> None:
    """N13: the center card keeps the baby in place; with no building under it, nothing is
    removed and no removal is reported."""
    state = position(variants={"monster": "baby"}, monster=(2, 1, 1), hand=[4] * 4)
    step = manhattan.play(state, build(4, 0, 1))
    assert step.state.to_json()["monster"] == [2, 1, 1]
    assert building(step.state, 0, 1, 1) == [(0, 1)]
    assert not [e for e in step.events if e.type in ("pieceRemoved", "monsterMoved")]
