"""The JSON the game service writes itself: the legal moves body (``{"moves": [...]}``), which it
caches as bytes, and the compact encoder REST renders every body with."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import orjson

from manhattan import Move

_MOVE_JSON_SIZE = 20_000
_move_json: dict[int, tuple[Move, bytes]] = {}


def moves_json(moves: Sequence[Move]) -> bytes:
    """``{"moves": [...]}`` as JSON bytes."""
    return b'{"moves":' + moves_array_json(moves) + b"}"


def moves_array_json(moves: Sequence[Move]) -> bytes:
    """``[...]``, the moves as a JSON array, each move's JSON encoded once per instance and
    reused (moves are immutable, and ``legal_moves`` hands out shared instances). The memo
    holds each move it keys by ``id``, so an id cannot be reused while it is cached."""
    memo = _move_json
    parts = []
    for move in moves:
        entry = memo.get(id(move))
        if entry is None or entry[0] is not move:
            if len(memo) >= _MOVE_JSON_SIZE:
                memo.clear()
            entry = memo[id(move)] = (move, dump_json(move.to_json()))
        parts.append(entry[1])
    return b"[" + b",".join(parts) + b"]"


def dump_json(payload: Any) -> bytes:
    """Compact UTF-8 JSON. orjson is several times faster than the standard library on response
    bodies; what it refuses (integers beyond 64 bits, non-string keys, lone surrogates) goes
    through ``json.dumps`` as before. The one difference: orjson writes a non-finite float as
    ``null`` where ``json.dumps`` wrote ``NaN``, which is not JSON."""
    try:
        return orjson.dumps(payload)
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
