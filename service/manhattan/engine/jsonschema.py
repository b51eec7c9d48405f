"""``schema/state.schema.json``: the JSON Schema of the state, view and move formats (DESIGN §2),
built from the engine's own constants so that it cannot drift from the code.

JSON Schema cannot say everything ``State.from_json`` checks (card and piece conservation, turn
consistency); the descriptions say where the engine checks more.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .codec import FORMAT
from .events import EVENT_TYPES
from .moves import MOVE_TYPES
from .rules import EDITIONS, MONSTERS, PIECES_PER_COLOR, PIECES_TOTAL
from .state import PHASES
from .urban import URBAN_CARDS
from .validation import MAX_SEED, VARIANT_KEYS
from .view import VIEW_FORMAT

SCHEMA_FILE = "state.schema.json"


def _int(low: int, high: int | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "integer", "minimum": low}
    if high is not None:
        out["maximum"] = high
    return out


def _array(
    items: dict[str, Any], low: int | None = None, high: int | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "array", "items": items}
    if low is not None:
        out["minItems"] = low
    if high is not None:
        out["maxItems"] = high
    return out


def _object(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": sorted(props) if required is None else required,
        "additionalProperties": False,
    }


BLOCK = {**_array(_int(0), 3, 3), "description": "[neighborhood 0-5, row 0-2, column 0-2]"}
COUNTS = {
    **_array(_int(0, max(PIECES_PER_COLOR)), 4, 4),
    "description": "pieces by size: 1, 2, 3 and 4 floors",
}
CARD = {**_int(0, 8), "description": "position r*3+c in the holder's frame"}
BOARD = {
    **_array(_array(_array(_array(_int(0, 3), 2, 2)), 9, 9), 6, 6),
    "description": "board[n][r*3+c]: pieces bottom to top as [color, floors]",
}


def _rules() -> dict[str, Any]:
    variants = _object(
        {
            "antiTrust": {"type": "boolean"},
            "slowGrowth": {"type": "boolean"},
            "urbanRules": {"type": "boolean"},
            "reshuffleEachRound": {"type": "boolean"},
            "monster": {"enum": [None, *MONSTERS]},
        }
    )
    assert sorted(variants["properties"]) == sorted(VARIANT_KEYS)
    return _object(
        {
            "edition": {"enum": list(EDITIONS)},
            "players": _int(2, 4),
            "rounds": _int(1, PIECES_TOTAL),
            "piecesPerRound": _int(1, PIECES_TOTAL),
            "colors": _array(_array(_int(0, 3), 1, 2), 2, 4),
            "seats": _array(_int(0, 3), 2, 4),
            "variants": variants,
        }
    )


def _breakdown() -> dict[str, Any]:
    return _object(
        {
            "buildings": _int(0),
            "majorities": _array(_int(0, 5), 0, 6),
            "tallest": {"enum": [0, 3]},
            "urban": _int(0),
            "total": _int(0),
        }
    )


def _public() -> dict[str, Any]:
    """Fields that a state and a view share."""
    return {
        "rules": {"$ref": "#/$defs/rules"},
        "round": _int(1),
        "phase": {"enum": list(PHASES)},
        "firstPlayer": _int(0, 3),
        "toMove": {"oneOf": [_int(0, 3), {"type": "null"}]},
        "board": BOARD,
        "supply": _array(COUNTS, 2, 4),
        "selected": _array(COUNTS, 2, 4),
        "discard": _array(CARD),
        "scores": _array(_int(0), 2, 4),
        "history": _array(
            _object(
                {
                    "round": _int(1),
                    "scores": _array({"$ref": "#/$defs/breakdown"}),
                }
            )
        )
        | {
            "description": (
                "Every scored round, in order (round 1 first). Empty in a later round: a "
                "position set up without a record (a real table's board and score track); "
                "the scores then stand as given and no record is kept."
            )
        },
        "monster": {"oneOf": [BLOCK, {"type": "null"}]},
        "shuffles": _int(0),
    }


def _move() -> dict[str, Any]:
    common = {"player": _int(0, 3), "notation": {"type": "string"}}
    return {
        "oneOf": [
            _object(
                {"type": {"const": "select"}, "color": _int(0, 3), "pieces": COUNTS, **common},
                ["type", "color", "pieces"],
            ),
            _object(
                {
                    "type": {"const": "build"},
                    "card": CARD,
                    "neighborhood": _int(0, 5),
                    "floors": _int(1, 4),
                    "color": _int(0, 3),
                    "block": BLOCK,
                    **common,
                },
                ["type", "card", "neighborhood", "floors"],
            ),
            _object(
                {
                    "type": {"const": "forfeit"},
                    "card": CARD,
                    "floors": _int(1, 4),
                    "color": _int(0, 3),
                    **common,
                },
                ["type", "card", "floors"],
            ),
        ]
    }


def build_schema() -> dict[str, Any]:
    urban_name = {"enum": list(URBAN_CARDS)}
    state = _object(
        {
            "format": {"const": FORMAT},
            **_public(),
            "hands": _array(_array(CARD, 4, 4), 2, 4),
            "deck": {**_array(CARD), "description": "index 0 is the top card"},
            "urban": {
                "oneOf": [
                    {"type": "null"},
                    _object(
                        {
                            "deck": _array(urban_name),
                            "revealed": _array(urban_name),
                            "current": {"oneOf": [urban_name, {"type": "null"}]},
                        }
                    ),
                ]
            },
            "seed": {"type": "string", "minLength": 1, "maxLength": MAX_SEED},
        }
    )
    state["description"] = (
        "A Manhattan game state (manhattan/state@1). The engine also checks what a schema cannot: "
        "hands + deck + discard hold 5 cards of each position; board + supply + selected never "
        "exceed a color's 24 pieces; phase, turn, history and scores agree."
    )
    view = _object(
        {
            "format": {"const": VIEW_FORMAT},
            "player": _int(0, 3),
            **_public(),
            "hand": _array(CARD, 0, 4),
            "handSizes": _array(_int(0, 4), 2, 4),
            "deckSize": _int(0),
            "urban": {
                "oneOf": [
                    {"type": "null"},
                    _object(
                        {
                            "revealed": _array(urban_name),
                            "deckSize": _int(0),
                            "current": {"oneOf": [urban_name, {"type": "null"}]},
                        }
                    ),
                ]
            },
        }
    )
    view["description"] = "What one player may know (RULES §11): no other hand, deck or seed."
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://manhattan-rules.example/schema/state.schema.json",
        "title": "Manhattan state, view and move formats",
        "$ref": "#/$defs/state",
        "$defs": {
            "rules": _rules(),
            "breakdown": _breakdown(),
            "state": state,
            "view": view,
            "move": _move(),
            "moveType": {"enum": list(MOVE_TYPES)},
            "eventType": {"enum": list(EVENT_TYPES)},
            "urbanRule": urban_name,
        },
    }


def render() -> str:
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"


def write_state_schema(directory: Path) -> Path:
    path = directory / SCHEMA_FILE
    path.write_text(render(), encoding="utf-8")
    return path
