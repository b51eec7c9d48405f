"""The no-leak property (RULES §11, DESIGN §7; OpenSpiel #44 and #1613): a bot decides from its
player's View, so changing what that player cannot know (the other hands, the deck order, the
seed, the urban-rule deck) never changes its suggestion at a fixed seed."""

from __future__ import annotations

import random
from typing import Any

import pytest

import manhattan
from manhattan.bots import suggest

BUDGETS = {"random": {}, "greedy": {}, "ismcts": {"iterations": 80}}


def reachable(players: int, edition: str, variants: dict[str, Any], seed: str) -> manhattan.State:
    rng = random.Random(seed)
    state = manhattan.new_game(players=players, seed=seed, edition=edition, variants=variants)
    for _ in range(rng.randrange(10, 60)):
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
    return state


def with_other_secrets(state: manhattan.State, player: int, rng: random.Random) -> manhattan.State:
    """The same game as ``player`` sees it: other hands and the deck re-dealt from the same
    cards, another seed, the urban deck reordered."""
    obj = state.to_json()
    others = [p for p in range(state.rules.players) if p != player]
    pool = [c for p in others for c in obj["hands"][p]] + obj["deck"]
    rng.shuffle(pool)
    for p in others:
        size = len(obj["hands"][p])
        obj["hands"][p], pool = sorted(pool[:size]), pool[size:]
    obj["deck"] = pool
    obj["seed"] = f"other-{rng.getrandbits(32)}"
    if obj["urban"] is not None:
        rng.shuffle(obj["urban"]["deck"])
    changed = manhattan.State.from_json(obj)
    assert manhattan.view(changed, player) == manhattan.view(state, player)
    return changed


CASES = [
    (2, "classic", {}),
    (3, "classic", {"antiTrust": True, "monster": "baby"}),
    (4, "modern", {"urbanRules": True, "slowGrowth": True}),
    (4, "classic", {"monster": "godzilla", "reshuffleEachRound": True}),
]


@pytest.mark.parametrize("level", sorted(BUDGETS))
@pytest.mark.parametrize(("players", "edition", "variants"), CASES)
def test_hidden_information_never_changes_a_suggestion(
    level: str, players: int, edition: str, variants: dict[str, Any]
) -> None:
    rng = random.Random(f"{level}{players}{edition}")
    for k in range(3):
        state = reachable(players, edition, variants, seed=f"leak-{players}-{k}")
        if state.is_over:
            continue
        player = state.to_move
        assert player is not None
        changed = with_other_secrets(state, player, rng)
        assert changed.to_json() != state.to_json()
        a = suggest(manhattan.view(state, player), level=level, seed=5, **BUDGETS[level])
        b = suggest(manhattan.view(changed, player), level=level, seed=5, **BUDGETS[level])
        assert a.move == b.move
        assert [(x.move, x.visits) for x in a.alternatives] == [
            (x.move, x.visits) for x in b.alternatives
        ]
