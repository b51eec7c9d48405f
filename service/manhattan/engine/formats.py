"""The state, view and move wire formats (DESIGN §2), once: ``msgspec`` structs with their bounds.

Two things derive from these classes and nothing else: the structural check of a state or move
on the way in (``codec.read_format`` converts a decoded JSON value into ``StateFormat``; msgspec
refuses a wrong type, a missing or unknown field, a value or a length outside its bound, with
the path of the fault), and the JSON Schema (``jsonschema.build_schema`` is
``msgspec.json.schema_components`` of these classes). What a schema cannot say (each card five
times, a color's pieces, turn and history consistent, bounds that depend on the rules such as
colors below ``k``) stays in ``codec``.

A class's docstring is its schema's description: they are written for readers of the format.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from manhattan.engine.board import BLOCKS
from manhattan.engine.records import PHASES
from manhattan.engine.rules import EDITIONS, MONSTERS, PIECES_PER_COLOR, PIECES_TOTAL
from manhattan.engine.urban import URBAN_CARDS
from manhattan.engine.validation import MAX_SEED

STATE_FORMAT = "manhattan/state@1"
VIEW_FORMAT = "manhattan/view@1"
#: Scores and shuffle counts: far beyond any game, small enough for every JSON reader.
MAX_COUNT = 1 << 30
MAX_URBAN_POINTS = 1000
MAX_CARDS = 45  # 9 positions x 5 copies

# Literal[tuple] is Literal of its items: the closed sets are the engine's own constants.
Edition = Literal[EDITIONS]  # type: ignore[valid-type]
MonsterKind = Literal[MONSTERS]  # type: ignore[valid-type]
Phase = Literal[PHASES]  # type: ignore[valid-type]
UrbanRule = Literal[URBAN_CARDS]  # type: ignore[valid-type]

Player = Annotated[int, Meta(ge=0, le=3)]
Color = Annotated[int, Meta(ge=0, le=3)]
Floors = Annotated[int, Meta(ge=1, le=4)]
Count = Annotated[int, Meta(ge=0, le=MAX_COUNT)]
Card = Annotated[int, Meta(ge=0, le=8, description="position r*3+c in the holder's frame")]
Cards = Annotated[tuple[Card, ...], Meta(max_length=MAX_CARDS)]
Block = Annotated[
    tuple[
        Annotated[int, Meta(ge=0, le=5)],
        Annotated[int, Meta(ge=0, le=2)],
        Annotated[int, Meta(ge=0, le=2)],
    ],
    Meta(description="[neighborhood 0-5, row 0-2, column 0-2]"),
]
Counts = Annotated[
    tuple[
        Annotated[int, Meta(ge=0, le=PIECES_PER_COLOR[0])],
        Annotated[int, Meta(ge=0, le=PIECES_PER_COLOR[1])],
        Annotated[int, Meta(ge=0, le=PIECES_PER_COLOR[2])],
        Annotated[int, Meta(ge=0, le=PIECES_PER_COLOR[3])],
    ],
    Meta(description="pieces by size: 1, 2, 3 and 4 floors"),
]
PerColor = Annotated[tuple[Counts, ...], Meta(min_length=2, max_length=4)]
Piece = tuple[Color, Floors]
Building = Annotated[tuple[Piece, ...], Meta(max_length=PIECES_TOTAL * 4)]
Board = Annotated[
    tuple[Annotated[tuple[Building, ...], Meta(min_length=9, max_length=9)], ...],
    Meta(
        min_length=6,
        max_length=6,
        description="board[n][r*3+c]: pieces bottom to top as [color, floors]",
    ),
]
Round = Annotated[int, Meta(ge=1, le=PIECES_TOTAL)]
Seed = Annotated[str, Meta(min_length=1, max_length=MAX_SEED)]
UrbanRules = Annotated[tuple[UrbanRule, ...], Meta(max_length=len(URBAN_CARDS))]


class Format(msgspec.Struct, forbid_unknown_fields=True, rename="camel", frozen=True):
    """Every object of the formats: camelCase names, every field required, no other field."""


class VariantsFormat(Format, frozen=True):
    anti_trust: bool
    slow_growth: bool
    urban_rules: bool
    reshuffle_each_round: bool
    monster: MonsterKind | None


class RulesFormat(Format, frozen=True):
    """The ruleset (RULES §2-3, §9-10). Also checked: colors 0..k-1 each once, seats distinct,
    rounds × piecesPerRound at most 24, urban rules only in the modern edition."""

    edition: Edition
    players: Annotated[int, Meta(ge=2, le=4)]
    rounds: Annotated[int, Meta(ge=1, le=PIECES_TOTAL)]
    pieces_per_round: Annotated[int, Meta(ge=1, le=PIECES_TOTAL)]
    colors: Annotated[
        tuple[Annotated[tuple[Color, ...], Meta(min_length=1, max_length=2)], ...],
        Meta(min_length=2, max_length=4),
    ]
    seats: Annotated[tuple[Annotated[int, Meta(ge=0, le=3)], ...], Meta(min_length=2, max_length=4)]
    variants: VariantsFormat


class BreakdownFormat(Format, frozen=True):
    """One color's points in one round. Also checked: majorities distinct and increasing, total
    the sum of the parts."""

    buildings: Annotated[int, Meta(ge=0, le=BLOCKS)]
    majorities: Annotated[tuple[Annotated[int, Meta(ge=0, le=5)], ...], Meta(max_length=6)]
    tallest: Literal[0, 3]
    urban: Annotated[int, Meta(ge=0, le=MAX_URBAN_POINTS)]
    total: Annotated[int, Meta(ge=0, le=BLOCKS + 2 * 6 + 3 + MAX_URBAN_POINTS)]


class RoundFormat(Format, frozen=True):
    round: Round
    scores: Annotated[tuple[BreakdownFormat, ...], Meta(min_length=2, max_length=4)]


History = Annotated[
    tuple[RoundFormat, ...],
    Meta(
        max_length=PIECES_TOTAL,
        description=(
            "Every scored round, in order (round 1 first). Empty in a later round: a "
            "position set up without a record (a real table's board and score track); "
            "the scores then stand as given and no record is kept."
        ),
    ),
]


class UrbanFormat(Format, frozen=True):
    deck: UrbanRules
    revealed: UrbanRules
    current: UrbanRule | None


class ViewUrbanFormat(Format, frozen=True):
    revealed: UrbanRules
    deck_size: Annotated[int, Meta(ge=0, le=len(URBAN_CARDS))]
    current: UrbanRule | None


class PublicFormat(Format, frozen=True):
    """The fields a state and a view share (their order is the order of the schema)."""

    rules: RulesFormat
    round: Round
    phase: Phase
    first_player: Player
    to_move: Player | None
    board: Board
    supply: PerColor
    selected: PerColor
    discard: Cards
    scores: Annotated[tuple[Count, ...], Meta(min_length=2, max_length=4)]
    history: History
    monster: Block | None
    shuffles: Count


class StateFormat(PublicFormat, frozen=True):
    """A Manhattan game state (manhattan/state@1). The engine also checks what a schema cannot:
    hands + deck + discard hold 5 cards of each position; board + supply + selected never exceed
    a color's 24 pieces; phase, turn, history and scores agree."""

    format: Literal[STATE_FORMAT]  # type: ignore[valid-type]
    hands: Annotated[
        tuple[Annotated[tuple[Card, ...], Meta(min_length=4, max_length=4)], ...],
        Meta(min_length=2, max_length=4),
    ]
    deck: Annotated[Cards, Meta(description="index 0 is the top card")]
    urban: UrbanFormat | None
    seed: Seed


class ViewFormat(PublicFormat, frozen=True):
    """What one player may know (RULES §11): no other hand, deck or seed."""

    format: Literal[VIEW_FORMAT]  # type: ignore[valid-type]
    player: Player
    hand: Annotated[tuple[Card, ...], Meta(max_length=4)]
    hand_sizes: Annotated[
        tuple[Annotated[int, Meta(ge=0, le=4)], ...], Meta(min_length=2, max_length=4)
    ]
    deck_size: Annotated[int, Meta(ge=0, le=MAX_CARDS)]
    urban: ViewUrbanFormat | None


# -- moves ---------------------------------------------------------------------------------------
AskedCount = Annotated[int, Meta(ge=0, le=PIECES_TOTAL)]
Notation = Annotated[str, Meta(max_length=64, description="the move's notation, echoed back")]


class MoveFormat(Format, frozen=True, tag_field="type", omit_defaults=True):
    """A move (DESIGN §2); ``player``, ``block`` and ``notation`` may be echoed back."""


# A select asks for up to 24 pieces of a size: more than a color has is against the rules
# (ILLEGAL_MOVE, with the supply's numbers), not a malformed move.
Asked = Annotated[
    tuple[AskedCount, AskedCount, AskedCount, AskedCount],
    Meta(description="pieces by size: 1, 2, 3 and 4 floors"),
]


class SelectFormat(MoveFormat, frozen=True, tag="select"):
    color: Color
    pieces: Asked
    player: Player | None = None
    notation: Notation | None = None


class BuildFormat(MoveFormat, frozen=True, tag="build"):
    card: Card
    neighborhood: Annotated[int, Meta(ge=0, le=5)]
    floors: Floors
    color: Color | None = None
    player: Player | None = None
    block: Block | None = None
    notation: Notation | None = None


class ForfeitFormat(MoveFormat, frozen=True, tag="forfeit"):
    card: Card
    floors: Floors
    color: Color | None = None
    player: Player | None = None
    notation: Notation | None = None


AnyMove = SelectFormat | BuildFormat | ForfeitFormat

#: The formats by the name the schema (and OpenAPI) gives them.
NAMED: dict[str, Any] = {
    "state": StateFormat,
    "view": ViewFormat,
    "move": AnyMove,
    "rules": RulesFormat,
    "breakdown": BreakdownFormat,
}


_LOCATED = re.compile(r"(?P<message>.*?)(?: - at `(?P<path>[^`]*)`)?", re.DOTALL)
_FIELD = re.compile(r"Object (?:missing required|contains unknown) field `(?P<name>[^`]*)`")


class FormatError(ValueError):
    """A value that does not fit its format: ``path`` (``$.board[2]``) and ``message``."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


def convert(obj: object, kind: Any) -> Any:
    """``obj`` (decoded JSON or msgpack) as ``kind``, one of the formats here; FormatError names
    the fault's path. Strict: no bool or float for an integer, no string for a number."""
    try:
        return msgspec.convert(obj, kind)
    except msgspec.ValidationError as exc:
        raise FormatError(*located(exc)) from None
    except UnicodeEncodeError:  # msgspec reads strings as UTF-8: a lone surrogate ("\ud800")
        raise FormatError(_surrogate_path(obj, "$") or "$", "not valid Unicode") from None


def located(exc: msgspec.ValidationError) -> tuple[str, str]:
    """msgspec's "Expected `int` <= 3 - at `$.board[2][0][0][0]`" as ``(path, message)``; a
    missing or unknown field is located at the field itself ("$.rules.colors", "missing field")."""
    match = _LOCATED.fullmatch(str(exc))
    assert match is not None  # the pattern matches any text
    message, path = match["message"], match["path"] or "$"
    field = _FIELD.fullmatch(message)
    if field is not None:
        path = f"{path}.{field['name']}"
        message = "missing field" if "missing" in message else "unknown field"
    return path, message


def _surrogate_path(value: object, path: str) -> str | None:
    """The path of the first string (or key) in ``value`` that is not valid Unicode."""
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError:
            return path
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = _surrogate_path(key, path) or _surrogate_path(item, f"{path}.{key}")
            if found is not None:
                return found
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = _surrogate_path(item, f"{path}[{i}]")
            if found is not None:
                return found
    return None
