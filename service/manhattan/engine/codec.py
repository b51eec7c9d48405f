"""State encodings (DESIGN §2) by name: JSON with full validation, canonical msgpack, and
``state_id``. The work is ``State``'s (encoding) and ``decoding``'s (reading and checking)."""

from __future__ import annotations

import hashlib
from typing import Any

from manhattan.engine.decoding import MAX_MSGPACK, read_state_format
from manhattan.engine.formats import STATE_FORMAT, StateFormat
from manhattan.engine.state import State

FORMAT = STATE_FORMAT

__all__ = [
    "FORMAT",
    "MAX_MSGPACK",
    "read_state_format",
    "state_from_format",
    "state_from_json",
    "state_from_msgpack",
    "state_id",
    "state_to_json",
    "state_to_msgpack",
]


def state_to_json(state: State) -> dict[str, Any]:
    return state.to_json()


def state_to_msgpack(state: State) -> bytes:
    """The canonical encoding: msgpack of ``to_json`` (keys sorted at every level)."""
    return state.to_msgpack()


def state_id(state: State) -> str:
    """DESIGN §6: a content hash of the canonical encoding (128 bits of SHA-256, hex)."""
    return hashlib.sha256(state.to_msgpack()).hexdigest()[:32]


def state_from_json(obj: object) -> State:
    """Read and validate a state (DESIGN §2); InvalidStateError names the first fault's path."""
    return State.from_json(obj)


def state_from_format(data: StateFormat) -> State:
    """The checks beyond the format's own bounds, then the engine's ``State``."""
    return State.from_format(data)


def state_from_msgpack(data: object) -> State:
    """A state from msgpack, decoded straight into its format (``formats.StateFormat``)."""
    return State.from_msgpack(data)
