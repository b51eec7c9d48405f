"""The bots' fast path (``engine/rollout.py``: one mutable ``Game``, unchecked moves) against the
public API, in every combination of the variants (RULES §9-10).

For each player count, edition and combination of antiTrust, slowGrowth, reshuffleEachRound,
monster (none, godzilla, baby) and urbanRules (modern only), a random game is played to its end
on the fast path. Every step is read back from the events it emitted and checked: the move is one
of ``legal_moves``, and ``play`` on the state before gives the same state and the same events.
The finished game then passes the end-of-game checks of the property tests (§3, §5, §7, §8).
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import manhattan
from manhattan.engine.draws import below, shuffle
from manhattan.engine.rollout import random_step
from tests.engine.test_properties import _check_finished, _check_round_scores
from tests.strategies import MONSTERS, Playthrough


def _combinations() -> list[tuple[int, str, dict[str, Any]]]:
    out = []
    for players, edition in itertools.product((2, 3, 4), ("classic", "modern")):
        urban = (False, True) if edition == "modern" else (False,)
        for anti, slow, reshuffle, monster, urban_rules in itertools.product(
            (False, True), (False, True), (False, True), MONSTERS, urban
        ):
            variants = {
                "antiTrust": anti,
                "slowGrowth": slow,
                "reshuffleEachRound": reshuffle,
                "monster": monster,
                "urbanRules": urban_rules,
            }
            out.append((players, edition, variants))
    return out


COMBINATIONS = _combinations()


def _id(players: int, edition: str, variants: dict[str, Any]) -> str:
    on = [k for k, v in variants.items() if v and k != "monster"] + [str(variants["monster"])]
    return f"{players}p-{edition}-" + "+".join(on)


def _move_of(events: list[manhattan.Event]) -> manhattan.Move:
    """The move a fast-path step made, read from its events."""
    first = events[0].to_json()
    if first["type"] == "piecesSelected":
        return manhattan.Move.select(first["color"], tuple(first["pieces"]))
    assert first["type"] == "cardPlayed"
    second = events[1].to_json()
    if second["type"] == "piecePlaced":
        return manhattan.Move.build(
            first["card"], second["block"][0], second["floors"], second["color"]
        )
    assert second["type"] == "pieceForfeited"
    return manhattan.Move.forfeit(first["card"], second["floors"], second["color"])


def test_every_combination_is_listed() -> None:
    """3 player counts x (24 classic + 48 modern) combinations."""
    assert len(COMBINATIONS) == 3 * (24 + 48)
    assert len({_id(*c) for c in COMBINATIONS}) == len(COMBINATIONS)


@pytest.mark.parametrize(
    ("players", "edition", "variants"), COMBINATIONS, ids=[_id(*c) for c in COMBINATIONS]
)
def test_s9_s10_fast_path_games_in_every_variant_combination_follow_the_public_api(
    players: int, edition: str, variants: dict[str, Any]
) -> None:
    """RULES §9-10: the fast path plays only legal moves, each with the state and events ``play``
    gives, and the game ends after its rounds with every selected piece placed or forfeited."""
    index = COMBINATIONS.index((players, edition, variants))
    setup: dict[str, Any] = {
        "players": players,
        "edition": edition,
        "seed": f"fast-{index}",
        "variants": variants,
        "first_player": index % players,
    }
    if index % 2:  # RULES §2 [D1]: chosen seats, e.g. side by side
        setup["seats"] = random.Random(index).sample(range(4), players)
    if variants["monster"] is not None and index % 3 == 0:  # [D11] a chosen start block
        setup["monster_start"] = [index % 6, index % 3, (index // 3) % 3]
    game = manhattan.Game(manhattan.new_game(**setup), record_events=True)
    assert game.events is not None
    run = Playthrough(setup, [game.to_state()])
    rng = random.Random(index)
    while game.phase != "over":
        before = run.final
        start = len(game.events)
        random_step(game, rng)
        events = game.events[start:]
        move = _move_of(events)
        assert move in manhattan.legal_moves(before), (str(move), before.to_json())
        expected = manhattan.play(before, move)
        after = game.to_state()
        assert after == expected.state
        assert events == expected.events
        run.moves.append(move)
        run.events.append(events)
        run.states.append(after)
    _check_finished(run)
    _check_round_scores(run)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(1, 2**70))
def test_below_draws_what_randrange_draws(seed: int, n: int) -> None:
    """The fast path's ``below`` is ``randrange`` (same value, same bits consumed), so a seeded
    playout is the same game it was before."""
    ours, theirs = random.Random(seed), random.Random(seed)
    assert [below(ours, n) for _ in range(5)] == [theirs.randrange(n) for _ in range(5)]
    assert ours.random() == theirs.random()


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), items=st.lists(st.integers(), max_size=60))
def test_shuffle_shuffles_as_random_shuffles(seed: int, items: list[int]) -> None:
    ours, theirs = list(items), list(items)
    first, second = random.Random(seed), random.Random(seed)
    shuffle(first, ours)
    second.shuffle(theirs)
    assert ours == theirs and first.random() == second.random()
