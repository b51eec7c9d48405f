"""RULES §11: what is public, what is private to a player, and what is hidden from everyone."""

from __future__ import annotations

import random

import pytest

import manhattan


def _midgame(**setup: object) -> manhattan.State:
    state = manhattan.new_game(players=4, seed="info", **setup)  # type: ignore[arg-type]
    rng = random.Random(3)
    for _ in range(25):
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
    return state


@pytest.mark.parametrize("player", [0, 1, 2, 3])
def test_s11_view_shows_own_hand_and_public_facts_only(player: int) -> None:
    """RULES §11: public: board, monster, scores, selections, supplies, played cards, hand and
    deck sizes, revealed urban rules; private: one's own hand; hidden: deck order, other hands,
    the urban deck, the seed."""
    state = _midgame(edition="modern", variants={"urbanRules": True, "monster": "baby"})
    full = state.to_json()
    seen = manhattan.view(state, player).to_json()
    for key in ("board", "monster", "scores", "selected", "supply", "discard", "history", "round"):
        assert seen[key] == full[key], key
    assert seen["hand"] == full["hands"][player]
    assert seen["handSizes"] == [len(h) for h in full["hands"]]
    assert seen["deckSize"] == len(full["deck"])
    text = repr(seen)
    assert "seed" not in seen and full["seed"] not in text
    assert "deck" not in seen and "hands" not in seen
    assert seen["urban"]["revealed"] == full["urban"]["revealed"]
    assert "deck" not in seen["urban"]


def test_s11_drawn_cards_are_private_events() -> None:
    """RULES §11: a drawn card is seen by the drawing player only; other events are public."""
    state = _midgame()
    while state.to_json()["phase"] != "build":
        state = manhattan.apply_move(state, manhattan.legal_moves(state)[0])
    mover = state.to_move
    events = manhattan.play(state, manhattan.legal_moves(state)[0]).events
    drawn = [e for e in events if e.type == "cardDrawn"]
    assert drawn and all(e.visible_to == mover for e in drawn)
    assert all(e.visible_to is None for e in events if e.type != "cardDrawn")
