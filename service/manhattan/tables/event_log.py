"""A table's recent events as its record keeps them: each entry packed on its own.

A table is decoded from its record for every change (``records.TableRecords.write``) and the
copy before it freed, so every object in a record costs twice a move. As maps, the 24 entries
were some 140 of a table's 300 objects (a map, its keys, the kind, the data); packed, they are
24, and an entry is unpacked only when read: a change reads the newest (its push), a stream
that resumes or a webhook the few after its cursor.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, overload

import msgpack
import msgspec


def _pack(version: int, kind: str, data: bytes) -> bytes:
    return _encode((version, kind, data))


#: msgpack as ``msgpack.packb`` writes it, by msgspec's encoder (``model._pack``).
_encode = msgspec.msgpack.Encoder().encode


def _packed(entry: dict[str, Any]) -> bytes:
    return _pack(entry["v"], entry["type"], entry["data"])


def _data(data: bytes) -> dict[str, Any]:
    decoded: dict[str, Any] = msgpack.unpackb(data, raw=False, strict_map_key=False)
    return decoded


def _entry(packed: bytes) -> dict[str, Any]:
    version, kind, data = msgpack.unpackb(packed, raw=False)
    return {"v": version, "type": kind, "data": data}


class EventLog:
    """Events oldest first, read as ``{"v", "type", "data"}`` maps (``data``: the event's
    msgpack), which are not to be modified."""

    __slots__ = ("_last", "packed")

    def __init__(self, packed: list[bytes] | None = None) -> None:
        #: The entries as stored: each the msgpack of ``[version, type, data]``.
        self.packed: list[bytes] = [] if packed is None else packed
        #: The newest entry unpacked: (its packed bytes, the entry, its data decoded or None).
        self._last: tuple[bytes, dict[str, Any], dict[str, Any] | None] | None = None

    @classmethod
    def from_wire(cls, stored: list[Any]) -> EventLog:
        """From a record: packed entries, or (a record written before they were) maps."""
        return cls(
            [
                entry
                if isinstance(entry, bytes)
                else _pack(entry["v"], entry["type"], entry["data"])
                for entry in stored
            ]
        )

    def append(
        self, version: int, kind: str, data: bytes, keep: int, decoded: dict[str, Any]
    ) -> None:
        """A new newest entry (``decoded``: what its ``data`` holds, which its pushes then read
        without decoding it again); only the newest ``keep`` stay."""
        packed = _pack(version, kind, data)
        self.packed.append(packed)
        del self.packed[:-keep]
        self._last = (packed, {"v": version, "type": kind, "data": data}, decoded)

    def newest(self) -> dict[str, Any] | None:
        """The newest entry (unpacked once per entry and log), None when empty."""
        if not self.packed:
            return None
        packed = self.packed[-1]
        if self._last is None or self._last[0] is not packed:
            self._last = (packed, _entry(packed), None)
        return self._last[1]

    def data(self, entry: dict[str, Any]) -> dict[str, Any]:
        """An entry's data decoded: for the newest entry, once per log (the receivers of one
        change ask one after the other); not to be modified."""
        last = self._last
        if last is not None and last[1] is entry:
            if last[2] is None:
                last = self._last = (last[0], entry, _data(entry["data"]))
            assert last[2] is not None
            return last[2]
        return _data(entry["data"])

    def __len__(self) -> int:
        return len(self.packed)

    def __bool__(self) -> bool:
        return bool(self.packed)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for index in range(len(self.packed)):
            yield self[index]

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self.packed)))]
        if index == -1 or index == len(self.packed) - 1:
            newest = self.newest()
            if newest is None:
                raise IndexError("the event log is empty")
            return newest
        return _entry(self.packed[index])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EventLog) and other.packed == self.packed

    __hash__ = None  # type: ignore[assignment]  # (mutable, as the list it replaces)

    def __repr__(self) -> str:
        return f"EventLog({len(self.packed)} entries)"
