"""The terminal's words for what the engine and the service say in numbers, the same words the
web page uses: colors by name (with the player who plays them), players by name, blocks by their
one name ("Cairo E2"), a choice of pieces as counts of 1- to 4-floor pieces ("1×1-floor,
2×2-floor (3 pieces)"), and the validator's paths (``$.card``) as sentences about the field."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from manhattan.engine.rules import NEIGHBORHOOD_NAMES

JSON = dict[str, Any]
COLOR_NAMES = ("Red", "Blue", "Green", "Yellow")
COLUMNS = "ABCDEFGHI"


def block_name(n: int, r: int, c: int) -> str:
    """The one name of block (row ``r``, column ``c``) of neighborhood ``n``: ``Sydney E5``."""
    return f"{NEIGHBORHOOD_NAMES[n]} {COLUMNS[(n % 3) * 3 + c]}{(n // 3) * 3 + r + 1}"


@dataclass(frozen=True)
class Names:
    """Who is who at a table: each player's name, the colors each plays, and the reader."""

    players: tuple[str, ...]
    colors: tuple[tuple[int, ...], ...] = ()
    me: int | None = None

    @classmethod
    def of(cls, players: list[str], view: JSON | None, me: int | None) -> Names:
        colors = tuple(tuple(cs) for cs in (view or {}).get("rules", {}).get("colors", ()))
        return cls(tuple(players), colors, me)

    def player(self, player: int | None) -> str:
        if player is None:
            return "someone"
        if player == self.me:
            return "you"
        return self.players[player] if player < len(self.players) else f"seat {player + 1}"

    def color(self, color: int) -> str:
        """``Red``, or ``Red (Ann)`` once the table's colors are known."""
        owner = next((p for p, cs in enumerate(self.colors) if color in cs), None)
        return (
            COLOR_NAMES[color] if owner is None else f"{COLOR_NAMES[color]} ({self.player(owner)})"
        )


def pieces_text(counts: list[int]) -> str:
    """Counts of 1- to 4-floor pieces: ``1×1-floor, 2×2-floor (3 pieces)``."""
    parts = [f"{k}×{floors}-floor" for floors, k in enumerate(counts, 1) if k]
    total = sum(counts)
    return f"{', '.join(parts) or 'nothing'} ({total} piece{'s' if total != 1 else ''})"


def floors_text(floors: int) -> str:
    return f"{floors} floor{'s' if floors != 1 else ''}"


_COLOR = re.compile(r"\bcolor (\d)\b")
_BLOCK = re.compile(r"\[(\d), (\d), (\d)\]")
_HOOD = re.compile(r"\bneighborhood \d \(([^)]+)\)")
_ONE = re.compile(r"\b1 (building|floor|piece|point)s\b")


def humane(text: str, names: Names) -> str:
    """The engine's explanation ("color 0 builds a 1-floor building on [0, 0, 1]; ... 1
    buildings against 0") as people say it ("Red (Ann) builds a 1-floor building on Manhattan
    B1; ... 1 building against 0")."""
    text = _COLOR.sub(lambda m: names.color(int(m[1])), text)
    text = _BLOCK.sub(lambda m: block_name(int(m[1]), int(m[2]), int(m[3])), text)
    text = _HOOD.sub(r"\1", text)
    return _ONE.sub(r"1 \1", text)


_HOODS = ", ".join(f"{n} {name}" for n, name in enumerate(NEIGHBORHOOD_NAMES))
#: What each field of a move is, said when the validator refuses its value.
FIELDS = {
    "card": "a card is numbered 0 to 8: its block from top left to bottom right, as you hold it",
    "neighborhood": f"a neighborhood is numbered 0 to 5 ({_HOODS})",
    "floors": "a piece has 1 to 4 floors",
    "color": "a color is numbered 0 to 3 (0 Red, 1 Blue, 2 Green, 3 Yellow)",
    "pieces": "a choice of pieces is four counts: the 1-, 2-, 3- and 4-floor pieces",
    "type": "a move is a selection (s), a build (b) or a forfeit (x)",
}
_PATH = re.compile(r"at `?\$\.(\w+)")


def move_fault(text: str) -> str:
    """The validator's refusal of a move ("a move (select, build, forfeit): Expected `int` <= 8
    at $.card") as a sentence about the field; other refusals as they came."""
    found = _PATH.search(text)
    if found is None or found[1] not in FIELDS:
        return text
    return FIELDS[found[1]]
