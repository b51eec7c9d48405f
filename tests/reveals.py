"""What a move may reveal from a hidden part (RULES §10-11), for the no-leak tests: the cards a
player draws (to that player) and the urban rule revealed when a round starts (to everyone). Both
come from hidden decks, so they legitimately differ between re-hidden twins; everything else a
player sees must not."""

from __future__ import annotations

import copy
from typing import Any


def mask_reveals(
    events: list[dict[str, Any]],
    view: dict[str, Any],
    player: int,
    hand_before: list[int],
    played: list[int],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``events`` (JSON, as addressed to ``player``) and ``view`` (JSON, after them) with the
    revealed cards masked, after checking that they are exactly what entered the player's hand
    and the urban rules revealed."""
    drawn = sorted(e["card"] for e in events if e["type"] == "cardDrawn")
    assert all(e["player"] == player for e in events if e["type"] == "cardDrawn")
    rest = list(hand_before)
    for card in played:
        rest.remove(card)
    assert sorted(view["hand"]) == sorted(rest + drawn)
    urban = [e["card"] for e in events if e["type"] == "urbanRevealed"]
    if urban:
        assert view["urban"]["revealed"][-len(urban) :] == urban
    events = copy.deepcopy(events)
    for event in events:
        if event["type"] in ("cardDrawn", "urbanRevealed"):
            event["card"] = "?"
    view = {k: v for k, v in view.items() if k != "hand"}
    if urban:
        view["urban"] = {**view["urban"], "current": "?", "revealed": "?"}
    return events, view
