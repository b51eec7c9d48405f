"""Moves as small values, their JSON form (DESIGN §2) and a text notation that round-trips.

Notation, one grammar for every move type::

    move     = select | build | forfeit
    select   = "s" color ( ":" | space ) count "," count "," count "," count
    build    = "b" card "n" neighborhood "f" floors [ "c" color ]
    forfeit  = "x" card "f" floors [ "c" color ]
    color, count, card, neighborhood, floors = digit { digit }      (ASCII 0-9)

Letters are read in either case. Spaces (ASCII whitespace) may stand before, after and between
any two tokens, never inside a number; between a select's color and its first count a ``:`` or
a space separates them. ``Move.notation`` writes the canonical form: lower case, no spaces
(``s0:2,2,1,1``, ``b4n3f2c0``, ``x4f2c0``), and ``Move.parse`` reads every form back to the same
move. Examples:

    select   ``s0:2,2,1,1`` = ``S0 2,2,1,1`` = ``s0 : 2, 2, 1, 1``   color 0 takes 2 one-floor,
             2 two-floor, 1 three- and 1 four-floor piece
    build    ``b4n3f2c0`` = ``B4N3F2C0`` = ``b4 n3 f2 c0``   card 4, neighborhood 3, a 2-floor
             piece of color 0 (``c`` optional when the player has one color)
    forfeit  ``x4f2c0`` = ``X4 F2 C0``   discard card 4 and forfeit a 2-floor piece of color 0 [D5]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Final

from manhattan.engine.errors import IllegalMoveError, malformed
from manhattan.engine.formats import (
    AnyMove,
    BuildFormat,
    ForfeitFormat,
    FormatError,
    SelectFormat,
    convert,
)

MOVE_TYPES: Final[tuple[str, ...]] = ("select", "build", "forfeit")
#: Each move type's own format (``Move.from_json``).
_MOVE_FORMATS: dict[str, Any] = {
    "select": SelectFormat,
    "build": BuildFormat,
    "forfeit": ForfeitFormat,
}

_FLAGS = re.ASCII | re.IGNORECASE  # \d is 0-9 and \s ASCII whitespace only
_SELECT = re.compile(
    r"\s*s\s*(\d+)(?:\s*:\s*|\s+)(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*", _FLAGS
)
_BUILD = re.compile(r"\s*b\s*(\d+)\s*n\s*(\d+)\s*f\s*(\d+)\s*(?:c\s*(\d+)\s*)?", _FLAGS)
_FORFEIT = re.compile(r"\s*x\s*(\d+)\s*f\s*(\d+)\s*(?:c\s*(\d+)\s*)?", _FLAGS)
_MAX_NOTATION = 64


@dataclass(frozen=True, slots=True)
class Move:
    """One move. ``player`` and ``block`` are derived from the state and not part of equality."""

    type: str
    card: int | None = None
    neighborhood: int | None = None
    floors: int | None = None
    color: int | None = None
    pieces: tuple[int, int, int, int] | None = None
    player: int | None = field(default=None, compare=False)
    block: tuple[int, int, int] | None = field(default=None, compare=False)

    def __init__(
        self,
        type: str,
        card: int | None = None,
        neighborhood: int | None = None,
        floors: int | None = None,
        color: int | None = None,
        pieces: tuple[int, int, int, int] | None = None,
        player: int | None = None,
        block: tuple[int, int, int] | None = None,
    ) -> None:
        # Written out, as every frozen value of the engine's (``records``): a native constructor.
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "neighborhood", neighborhood)
        object.__setattr__(self, "floors", floors)
        object.__setattr__(self, "color", color)
        object.__setattr__(self, "pieces", pieces)
        object.__setattr__(self, "player", player)
        object.__setattr__(self, "block", block)

    # Equality and hashing written out for the same reason (a search keys its tree by moves);
    # they are what ``dataclass`` would generate: the fields but ``player`` and ``block``.
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return (
            self.type == other.type
            and self.card == other.card
            and self.neighborhood == other.neighborhood
            and self.floors == other.floors
            and self.color == other.color
            and self.pieces == other.pieces
        )

    def __hash__(self) -> int:
        return hash((self.type, self.card, self.neighborhood, self.floors, self.color, self.pieces))

    # The constructors below make a ``Move``, whatever class they are called on: called through
    # ``cls`` the call would be a generic one under mypyc.
    @classmethod
    def select(cls, color: int, pieces: tuple[int, int, int, int]) -> Move:
        return Move("select", color=color, pieces=tuple(pieces))  # type: ignore[arg-type]

    @classmethod
    def build(cls, card: int, neighborhood: int, floors: int, color: int | None = None) -> Move:
        return Move("build", card=card, neighborhood=neighborhood, floors=floors, color=color)

    @classmethod
    def forfeit(cls, card: int, floors: int, color: int | None = None) -> Move:
        return Move("forfeit", card=card, floors=floors, color=color)

    def with_context(self, player: int | None, block: tuple[int, int, int] | None) -> Move:
        """This move with ``player`` and ``block`` (which equality ignores) replaced."""
        m = self
        return Move(m.type, m.card, m.neighborhood, m.floors, m.color, m.pieces, player, block)

    # -- notation --------------------------------------------------------------------------
    def __str__(self) -> str:
        return self.notation

    @property
    def notation(self) -> str:
        if self.type == "select":
            assert self.pieces is not None
            return f"s{self.color}:" + ",".join(str(k) for k in self.pieces)
        suffix = "" if self.color is None else f"c{self.color}"
        if self.type == "build":
            return f"b{self.card}n{self.neighborhood}f{self.floors}{suffix}"
        return f"x{self.card}f{self.floors}{suffix}"

    @classmethod
    def parse(cls, text: object) -> Move:
        """Read the notation above (any case and spacing it allows); raises IllegalMoveError
        with code INVALID_MOVE."""
        if not isinstance(text, str) or len(text) > _MAX_NOTATION:
            raise malformed("a move in notation is a short string such as 'b4n3f2'")
        if m := _SELECT.fullmatch(text):
            color, *pieces = (int(g) for g in m.groups())
            obj: dict[str, Any] = {"type": "select", "color": color, "pieces": pieces}
        elif m := _BUILD.fullmatch(text):
            g = m.groups()
            obj = {"type": "build", "card": int(g[0]), "neighborhood": int(g[1])}
            obj.update(floors=int(g[2]), color=_opt_int(g[3]))
        elif m := _FORFEIT.fullmatch(text):
            g = m.groups()
            obj = {"type": "forfeit", "card": int(g[0]), "floors": int(g[1])}
            obj["color"] = _opt_int(g[2])
        else:
            raise malformed(
                f"cannot read move {text!r}: expected 's0:2,2,1,1', 'b4n3f2[c0]' or 'x4f2[c0]' "
                "(any case; spaces between tokens)"
            )
        return cls.from_json(obj)  # the bounds are the format's

    # -- JSON ------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.type == "select":
            out["color"] = self.color
            out["pieces"] = list(self.pieces or ())
        else:
            out["card"] = self.card
            if self.type == "build":
                out["neighborhood"] = self.neighborhood
            out["floors"] = self.floors
            if self.color is not None:
                out["color"] = self.color
        if self.player is not None:
            out["player"] = self.player
        if self.block is not None:
            out["block"] = list(self.block)
        out["notation"] = self.notation
        return out

    def json_text(self) -> str:
        """``to_json`` as compact JSON text, the same bytes a JSON encoder makes of it, made
        here without the map: a push lists the next mover's legal moves (``moves_text``)."""
        if self.type == "select":
            pieces = ",".join([str(k) for k in self.pieces or ()])
            text = f'{{"type":"select","color":{_number(self.color)},"pieces":[{pieces}]'
        else:
            text = f'{{"type":"{self.type}","card":{_number(self.card)}'
            if self.type == "build":
                text += f',"neighborhood":{_number(self.neighborhood)}'
            text += f',"floors":{_number(self.floors)}'
            if self.color is not None:
                text += f',"color":{self.color}'
        if self.player is not None:
            text += f',"player":{self.player}'
        block = self.block
        if block is not None:
            text += f',"block":[{block[0]},{block[1]},{block[2]}]'
        return f'{text},"notation":"{self.notation}"}}'

    @classmethod
    def from_wire(cls, obj: object) -> Move:
        """A move in any form a caller may send it: DESIGN §2's object, notation text, or
        ``{"notation": ...}``; raises IllegalMoveError with code INVALID_MOVE."""
        if isinstance(obj, str):
            return cls.parse(obj)
        if isinstance(obj, dict) and set(obj) == {"notation"}:
            return cls.parse(obj["notation"])
        return cls.from_json(obj)

    @classmethod
    def from_json(cls, obj: object) -> Move:
        """Read DESIGN §2's move (``formats.AnyMove``: its fields and bounds); ``player``,
        ``block`` and ``notation`` may be echoed back."""
        named = obj.get("type") if isinstance(obj, dict) else None
        kind = _MOVE_FORMATS.get(named) if isinstance(named, str) else None
        if kind is not None:  # msgspec keeps what it learns of a struct's type, not of a union
            try:
                return cls.from_format(convert(obj, kind))
            except FormatError:
                pass  # the union names the fault, as it always did
        try:
            data = convert(obj, AnyMove)
        except FormatError as exc:
            raise malformed(
                f"a move ({', '.join(MOVE_TYPES)}): {exc.message} at {exc.path}"
            ) from None
        return cls.from_format(data)

    @classmethod
    def from_format(cls, data: SelectFormat | BuildFormat | ForfeitFormat) -> Move:
        if isinstance(data, SelectFormat):
            move = cls.select(data.color, data.pieces)
        elif isinstance(data, BuildFormat):
            move = cls.build(data.card, data.neighborhood, data.floors, data.color)
        else:
            move = cls.forfeit(data.card, data.floors, data.color)
        block = getattr(data, "block", None)
        if data.player is not None or block is not None:
            move = move.with_context(data.player, block)
        return move


def moves_text(moves: list[Move]) -> bytes:
    """``moves`` as the JSON array of their ``to_json`` objects (``Move.json_text``), each
    move's text made once per process and reused: the legal moves are the same few thousand
    from game to game. Kept by the move object where the engine shares it from game to game
    (a build's or a forfeit's), else by a number packed from its fields (``_text_key``)."""
    parts: list[bytes] = []
    for move in moves:
        # A build or forfeit move is one shared object from game to game (``legality``): its
        # text is found by the object, kept alive beside it so that its id names only it.
        shared = _SHARED_TEXTS.get(id(move)) if move.type != "select" else None
        if shared is not None:
            parts.append(shared[1])
            continue
        key = _text_key(move)
        part = _TEXTS.get(key) if key >= 0 else None
        if part is None:
            part = move.json_text().encode()
            if key >= 0:
                if len(_TEXTS) >= MOVE_TEXTS:
                    _TEXTS.clear()
                _TEXTS[key] = part
        if move.type != "select":
            if len(_SHARED_TEXTS) >= MOVE_TEXTS:
                _SHARED_TEXTS.clear()
            _SHARED_TEXTS[id(move)] = (move, part)
        parts.append(part)
    return b"[" + b",".join(parts) + b"]"


#: Moves' JSON texts kept (some 100 bytes each); all forgotten at once when full.
MOVE_TEXTS: Final = 4096
_TEXTS: Final[dict[int, bytes]] = {}
#: The texts of build and forfeit moves by the move object's id, with the object.
_SHARED_TEXTS: Final[dict[int, tuple[Move, bytes]]] = {}


def _text_key(move: Move) -> int:
    """The move's fields, its player and block packed into one number (6 bits each, a field's
    value plus one, 0 for none, after a leading 1 and the type); -1 when one does not fit (its
    text is then not kept). Native integers under mypyc: a tuple of the fields, hashed, cost
    as much as making the text."""
    if move.type == "select":
        pieces = move.pieces
        if pieces is None:
            return -1
        key = _put(_put(4, move.color), pieces[0])
        key = _put(_put(_put(key, pieces[1]), pieces[2]), pieces[3])
    else:
        key = _put(_put(5 if move.type == "build" else 6, move.card), move.neighborhood)
        key = _put(_put(key, move.floors), move.color)
    key = _put(key, move.player)
    block = move.block
    if block is None:
        return _put(key, None)
    return _put(_put(_put(key, block[0]), block[1]), block[2])


def _put(key: int, value: int | None) -> int:
    if key < 0:
        return -1
    if value is None:
        return key << 6
    if 0 <= value < 63:
        return (key << 6) | (value + 1)
    return -1


def _number(value: int | None) -> str:
    return "null" if value is None else str(value)


def _opt_int(text: str | None) -> int | None:
    return None if text is None else int(text)


__all__ = ["MOVE_TYPES", "IllegalMoveError", "Move", "moves_text"]
