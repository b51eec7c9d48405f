"""Encodings kept by the identity of the immutable value they encode.

A game's rules and its scored rounds last while it is played, and every move encodes them again:
for the table's record (``State.to_msgpack``) and for each push's view (``tables.view_text``).
Kept here by an object the encoded value holds or is, each encoding is made once while it is
among the last asked for, and written as it is (``msgspec.Raw``, which msgspec's JSON and
MessagePack encoders both copy in place).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec


class KeptEncodings:
    """``make(value)`` kept by ``key`` (an immutable object ``value`` holds or is), for the last
    ``limit`` keys asked for; each entry holds its key, so an id is not reused while kept."""

    __slots__ = ("_kept", "_limit")

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._kept: dict[int, tuple[object, Any, msgspec.Raw]] = {}

    def get(self, key: object, value: Any, make: Callable[[Any], bytes]) -> msgspec.Raw:
        """The encoding of ``value``: the kept one when ``key`` is kept with a value equal to
        this one (compared by identity first: a move's new tuple of the same records)."""
        found = self._kept.get(id(key))
        if found is not None and found[0] is key and (found[1] is value or found[1] == value):
            return found[2]
        encoded = msgspec.Raw(make(value))
        if len(self._kept) >= self._limit:
            self._kept.pop(next(iter(self._kept)))
        self._kept[id(key)] = (key, value, encoded)
        return encoded
