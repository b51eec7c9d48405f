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
    """``{"moves": [...]}`` as JSON bytes (the stateless answers cache it per state), each
    move's text from the compiled engine (``moves_text``: kept by the move's fields, its player
    and block included; not by instance, as ``legal_moves`` makes new ones on every call)."""
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
