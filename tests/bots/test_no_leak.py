"""The no-leak property (RULES §11, DESIGN §7; as OpenSpiel checks it): a bot decides from its
player's View, so changing what that player cannot know (the other hands, the deck order, the
seed, the urban-rule deck) never changes its suggestion at a fixed seed."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

import manhattan
from manhattan.bots import suggest
from tests.engine.positions import position

BUDGETS = {
    "random": {},
    "beginner": {},
    "greedy": {},
    "ismcts": {"iterations": 80},
    "expert": {"iterations": 80},
}


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


def test_the_view_type_has_no_room_for_hidden_information() -> None:
    """A bot's input, ``View``, holds other hands and the deck as counts only, no seed and no
    urban deck (RULES §11); frozen with slots, nothing can be attached to it."""
    public = {"player", "rules", "round", "phase", "first_player", "to_move", "board", "supply"}
    public |= {"selected", "discard", "scores", "history", "monster", "shuffles"}
    counts = {"hand_sizes", "deck_size", "urban_revealed", "urban_current", "urban_deck_size"}
    assert {f.name for f in dataclasses.fields(manhattan.View)} == public | counts | {"hand"}
    state = manhattan.new_game(
        players=4, seed="room", edition="modern", variants={"urbanRules": True}
    )
    v = manhattan.view(state, 0)
    with pytest.raises((AttributeError, TypeError)):
        v.hands = state.hands  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        suggest(state)  # type: ignore[arg-type]  # the full state is refused, not read


@pytest.mark.parametrize("level", sorted(BUDGETS))
def test_the_hidden_card_of_a_fake_news_round_never_changes_a_suggestion(level: str) -> None:
    """RULES §10: during a fakeNews round the card that will score it is the next of the hidden
    urban deck. The same position with each possible next card gives the same suggestion."""
    board = {(0, 0, 0): [(1, 2)], (1, 1, 1): [(0, 1)], (2, 2, 2): [(2, 3)]}
    found = []
    for hidden in ("villa", "fogFreeView", "founder", "megacity"):
        state = position(
            edition="modern",
            variants={"urbanRules": True},
            board=board,
            hand=(0, 1, 2, 3),
            selected={0: (1, 1, 0, 0)},
            round_=2,
            urban="fakeNews",
            urban_next=hidden,
        )
        assert state.urban is not None and state.urban.deck[0] == hidden
        v = manhattan.view(state, 0)
        assert v.urban_current == "fakeNews"
        s = suggest(v, level=level, seed=2, **BUDGETS[level])
        found.append((s.move, [(a.move, a.visits, a.mean_score) for a in s.alternatives]))
    assert all(f == found[0] for f in found)
