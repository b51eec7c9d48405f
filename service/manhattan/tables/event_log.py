"""A table's recent events as its record keeps them: each entry packed on its own, all of them
kept as the record writes them.

A table is decoded from its record for every change (``records.TableRecords.write``) and the
copy before it freed, so every object in a record costs twice a move. As maps, the 24 entries
were some 140 of a table's 300 objects (a map, its keys, the kind, the data); packed, they were
24, and each was still counted in and out by every copy of the table and written one by one by
every record. Here the log is the record's own bytes, one msgpack array of the entries as bins:
a copy of the table shares them, a record embeds them whole (``encoded``), and an entry is
unpacked only when read: a change reads the newest (its push), a stream that resumes or a
webhook the few after its cursor.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, overload

import msgpack
import msgspec

#: msgpack as ``msgpack.packb`` writes it (``use_bin_type``: bytes as bin), byte for byte, by
#: msgspec's encoder, which builds no packer per call: the tables' records, events and notices.
pack = msgspec.msgpack.Encoder().encode
#: An empty log: a msgpack array of no items.
_EMPTY = pack([])


def _pack(version: int, kind: str, data: bytes) -> bytes:
    return pack((version, kind, data))


def _data(data: bytes) -> dict[str, Any]:
    decoded: dict[str, Any] = msgpack.unpackb(data, raw=False, strict_map_key=False)
    return decoded


def _entry(packed: bytes) -> dict[str, Any]:
    version, kind, data = msgpack.unpackb(packed, raw=False)
    return {"v": version, "type": kind, "data": data}


def _array_head(encoded: bytes) -> int:
    """The length of a msgpack array's header (fixarray, array 16 or array 32)."""
    first = encoded[0]
    return 1 if first < 0xDC else 3 if first == 0xDC else 5


def _encode_head(count: int) -> bytes:
    """A msgpack array's header for ``count`` items."""
    if count < 16:
        return bytes((0x90 | count,))
    if count < 1 << 16:
        return b"\xdc" + count.to_bytes(2, "big")
    return b"\xdd" + count.to_bytes(4, "big")


def _bin_span(encoded: bytes, at: int) -> tuple[int, int]:
    """Where the bin item at ``at`` holds its bytes: (start, end)."""
    kind = encoded[at]
    if kind == 0xC4:
        return at + 2, at + 2 + encoded[at + 1]
    if kind == 0xC5:
        return at + 3, at + 3 + int.from_bytes(encoded[at + 1 : at + 3], "big")
    if kind == 0xC6:
        return at + 5, at + 5 + int.from_bytes(encoded[at + 1 : at + 5], "big")
    raise ValueError(f"not a log entry: msgpack type byte {kind:#x}")


def _spans(encoded: bytes) -> list[tuple[int, int]]:
    """Each entry's bytes in ``encoded`` (start, end), oldest first."""
    spans, at = [], _array_head(encoded)
    while at < len(encoded):
        span = _bin_span(encoded, at)
        spans.append(span)
        at = span[1]
    return spans


class EventLog:
    """Events oldest first, read as ``{"v", "type", "data"}`` maps (``data``: the event's
    msgpack), which are not to be modified."""

    __slots__ = ("_count", "_last", "encoded")

    def __init__(self, packed: list[bytes] | None = None) -> None:
        #: The entries as the record writes them: the msgpack array of each entry's bytes (the
        #: msgpack of ``[version, type, data]``) as a bin. Replaced, never changed: copies of
        #: a table share it.
        self.encoded: bytes = _EMPTY if not packed else pack(packed)
        self._count = 0 if packed is None else len(packed)
        #: The newest entry unpacked: (the entry, its data decoded or None).
        self._last: tuple[dict[str, Any], dict[str, Any] | None] | None = None

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

    def copy(self) -> EventLog:
        """The same entries, for a copy of the table (their bytes shared; the newest decoded
        again when read, so that the copy holds none of the objects this log was given)."""
        log = EventLog()
        log.encoded, log._count = self.encoded, self._count
        return log

    @property
    def packed(self) -> list[bytes]:
        """Each entry's bytes, oldest first."""
        encoded = self.encoded
        return [encoded[start:end] for start, end in _spans(encoded)]

    def append(
        self, version: int, kind: str, data: bytes, keep: int, decoded: dict[str, Any]
    ) -> None:
        """A new newest entry (``decoded``: what its ``data`` holds, which its pushes then read
        without decoding it again); only the newest ``keep`` stay."""
        packed = _pack(version, kind, data)
        encoded = self.encoded
        at = _array_head(encoded)
        count = self._count
        while count >= keep and count > 0:  # the oldest out (one a change, once the log is full)
            at = _bin_span(encoded, at)[1]
            count -= 1
        entry = pack(packed)  # the entry as a bin
        self.encoded = b"".join((_encode_head(count + 1), encoded[at:], entry))
        self._count = count + 1
        self._last = ({"v": version, "type": kind, "data": data}, decoded)

    def newest(self) -> dict[str, Any] | None:
        """The newest entry (unpacked once per entry and log), None when empty."""
        if not self._count:
            return None
        if self._last is None:
            start, end = _spans(self.encoded)[-1]
            self._last = (_entry(self.encoded[start:end]), None)
        return self._last[0]

    def data(self, entry: dict[str, Any]) -> dict[str, Any]:
        """An entry's data decoded: for the newest entry, once per log (the receivers of one
        change ask one after the other); not to be modified."""
        last = self._last
        if last is not None and last[0] is entry:
            if last[1] is None:
                last = self._last = (entry, _data(entry["data"]))
            assert last[1] is not None
            return last[1]
        return _data(entry["data"])

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self._entries(0, self._count))

    def since(self, version: int) -> list[dict[str, Any]]:
        """The entries after ``version``, oldest first; only those are unpacked (a stream that
        follows the table asks for the newest one or two)."""
        spans = _spans(self.encoded)
        out: list[dict[str, Any]] = []
        for index in range(len(spans) - 1, -1, -1):
            entry = self._at(spans, index)
            if entry["v"] <= version:
                break
            out.append(entry)
        out.reverse()
        return out

    def _entries(self, first: int, stop: int) -> list[dict[str, Any]]:
        """Entries ``first`` to ``stop`` (excluded)."""
        spans = _spans(self.encoded)
        return [self._at(spans, index) for index in range(first, stop)]

    def _at(self, spans: list[tuple[int, int]], index: int) -> dict[str, Any]:
        """Entry ``index`` (>= 0) of ``spans``: the newest as ``newest`` gives it (unpacked
        once), any other unpacked now."""
        if index == len(spans) - 1:
            newest = self.newest()
            assert newest is not None
            return newest
        start, end = spans[index]
        return _entry(self.encoded[start:end])

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            first, stop, step = index.indices(self._count)
            if step == 1:
                return self._entries(first, max(first, stop))
            return [self[i] for i in range(first, stop, step)]
        if index == -1 or index == self._count - 1:
            newest = self.newest()
            if newest is None:
                raise IndexError("the event log is empty")
            return newest
        if not -self._count <= index < self._count:
            raise IndexError("event log index out of range")
        return self._at(_spans(self.encoded), index % self._count)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EventLog) and other.encoded == self.encoded

    __hash__ = None  # type: ignore[assignment]  # (mutable, as the list it replaces)

    def __repr__(self) -> str:
        return f"EventLog({self._count} entries)"
