"""Playthrough goldens (after OpenSpiel's): seeded games move by move with legal move
counts, events, every player's view (RULES §11) and the state id, in
``golden/playthroughs/*.txt``; regenerate with ``python -m tests.engine.regen_playthroughs``.
Games with 2, 3 and 4 players, both editions, the monster (godzilla and baby), antiTrust,
slowGrowth, reshuffleEachRound, urban rules with fakeNews (RULES §9-10) and chosen seats [D1]."""

from __future__ import annotations

import difflib

import pytest

from tests.engine.regen_playthroughs import GAMES, path, playthrough


@pytest.mark.parametrize("name", sorted(GAMES))
def test_playthrough_is_unchanged(name: str) -> None:
    """RULES §4-11: the game plays, scores and shows exactly as recorded."""
    expected = path(name).read_text(encoding="utf-8")
    actual = playthrough(name)
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), actual.splitlines(), "golden", "now", lineterm="", n=1
        )
        pytest.fail(f"{name} differs from its golden file:\n" + "\n".join(list(diff)[:60]))


def test_the_playthroughs_cover_the_variants() -> None:
    """The recorded games reach every part they are meant to pin: the game's end, a monster's
    destruction and removal, a takeover, a reshuffle and fakeNews's reveal at scoring."""
    text = "".join(path(name).read_text(encoding="utf-8") for name in GAMES)
    for needle in (
        '"type":"gameOver"',
        '"type":"buildingDestroyed"',
        '"type":"pieceRemoved"',
        '"type":"takeover"',
        '"type":"deckReshuffled"',
        '"current":"fakeNews"',
        '"type":"urbanRevealed"',
        "event [p",  # a drawn card, seen by its drawer only
    ):
        assert needle in text, needle
    assert {GAMES[n][0]["players"] for n in GAMES} == {2, 3, 4}
