"""The monster (RULES §9 [D11]), written once: where it steps and what it does to the building
there. ``play``, ``preview`` and the bots' ``knowledge`` read it.

``MONSTER_STEP[start][board_block]`` is where the monster goes from ``start`` when the played
card designates ``board_block`` (0-8, board frame): one step toward it from the center, across
neighborhoods on the torus; a center card: it stays (the table is built in ``board``).
"""

from __future__ import annotations

from manhattan.engine.board import MONSTER_STEP, Building

__all__ = ["DESTROYED", "MONSTER_STEP", "REMOVED", "monster_hit"]

DESTROYED = "destroyed"
REMOVED = "removed"


def monster_hit(kind: str, moved: bool, target: Building) -> tuple[Building, str] | None:
    """What the monster does to ``target``, the building on the block it now stands on:
    godzilla destroys a building it enters; the baby removes its top piece, on entering and
    also when a center card keeps it in place. Returns (the building after, the cause), or None
    when the building is untouched."""
    if not target:
        return None
    if kind == "baby":
        return target[:-1], REMOVED
    if moved:
        return (), DESTROYED
    return None
