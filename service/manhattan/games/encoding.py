"""The JSON the game service writes itself: the legal moves body (``{"moves": [...]}``), which it
caches as bytes, and the compact encoder REST renders every body with."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import orjson

from manhattan import Move
from manhattan.engine.moves import moves_text


def moves_json(moves: Sequence[Move]) -> bytes:
    """``{"moves": [...]}`` as JSON bytes (the stateless answers cache it per state).

    Not memoized per move: ``legal_moves`` makes new instances on every call, so a memo by
    instance never hit and kept 20,000 of them alive (some 80 MiB) before it was cleared; and
    a move's value (``Move.__eq__``: type, card, neighborhood, floors, color) leaves out what
    its JSON also says (the player, the block). Written by the compiled engine
    (``moves_text``), without a map per move."""
    return b'{"moves":' + moves_text(list(moves)) + b"}"


def dump_json(payload: Any) -> bytes:
    """Compact UTF-8 JSON. orjson is several times faster than the standard library on response
    bodies; what it refuses (integers beyond 64 bits, non-string keys, lone surrogates) goes
    through ``json.dumps`` as before. The one difference: orjson writes a non-finite float as
    ``null`` where ``json.dumps`` wrote ``NaN``, which is not JSON."""
    try:
        return orjson.dumps(payload)
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
