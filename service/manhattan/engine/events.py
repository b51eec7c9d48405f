"""What happened when a move was applied, for the API to return (DESIGN §4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Every event type ``play`` can produce, in the order they can occur within one move.
EVENT_TYPES = (
    "piecesSelected",
    "cardPlayed",
    "piecePlaced",
    "takeover",
    "pieceForfeited",
    "monsterMoved",
    "buildingDestroyed",
    "pieceRemoved",
    "deckReshuffled",
    "cardDrawn",
    "roundScored",
    "urbanRevealed",
    "roundStarted",
    "gameOver",
)


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. ``visible_to`` is None for public events, else the one player
    who may see it (a drawn card: RULES §11)."""

    type: str
    data: dict[str, Any]
    visible_to: int | None = None

    def __init__(self, type: str, data: dict[str, Any], visible_to: int | None = None) -> None:
        # Written out, as every frozen value of the engine's (``records``): a native constructor.
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "visible_to", visible_to)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, **self.data}

    def visible_for(self, player: int | None) -> bool:
        return self.visible_to is None or self.visible_to == player
