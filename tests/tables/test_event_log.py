"""The event log kept as the record writes it (one msgpack array of the entries as bins) reads
and encodes as the list of entries it replaces, whatever is appended, kept or copied."""

from __future__ import annotations

import copy
import pickle

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from manhattan.tables.event_log import EventLog

KINDS = st.sampled_from(["move", "chat", "joined", "left", "started", "over"])
#: Entry data of every bin size (bin 8, 16 and 32 headers).
DATA = st.one_of(
    st.binary(max_size=40),
    st.integers(250, 300).map(lambda n: b"d" * n),
    st.sampled_from([b"e" * 70_000]),
)
APPENDS = st.lists(st.tuples(KINDS, DATA), max_size=40)


def _as_list(appends: list[tuple[str, bytes]], keep: int) -> list[bytes]:
    entries = [msgpack.packb([v, kind, data]) for v, (kind, data) in enumerate(appends, 1)]
    return entries[-keep:]


@settings(max_examples=60, deadline=None)
@given(APPENDS, st.integers(1, 30))
def test_a_log_reads_and_encodes_as_its_list_of_entries(appends, keep) -> None:  # type: ignore[no-untyped-def]
    log = EventLog()
    for version, (kind, data) in enumerate(appends, 1):
        log.append(version, kind, data, keep, {"n": version})
    expected = _as_list(appends, keep)
    assert log.packed == expected and len(log) == len(expected) and bool(log) == bool(expected)
    assert log.encoded == msgpack.packb(expected)  # what the record embeds
    read = [msgpack.unpackb(e) for e in expected]
    assert [[e["v"], e["type"], e["data"]] for e in log] == read
    assert [[e["v"], e["type"], e["data"]] for e in log[1:-1]] == read[1:-1]
    assert [[e["v"], e["type"], e["data"]] for e in log[::2]] == read[::2]
    for after in (0, len(appends) - 2, len(appends)):  # what a stream that follows asks
        assert log.since(after) == [e for e in log if e["v"] > after]
    if expected:
        assert log[0]["v"] == read[0][0] and log[-len(expected)]["v"] == read[0][0]
        assert log.newest() is log[-1]
        assert log.data(log[-1]) == {"n": len(appends)}  # the data it was given
    else:
        assert log.newest() is None
    again = EventLog.from_wire(msgpack.unpackb(msgpack.packb(expected)))
    assert again == log and again.packed == expected
    with pytest.raises(IndexError):
        log[len(expected)]


def test_a_copy_shares_the_entries_and_goes_its_own_way() -> None:
    log = EventLog()
    for version in range(1, 6):
        log.append(version, "chat", msgpack.packb({"text": str(version)}), 24, {})
    twin = log.copy()
    assert twin == log and twin.encoded is log.encoded
    twin.append(6, "chat", msgpack.packb({"text": "6"}), 24, {"text": "6"})
    assert len(log) == 5 and len(twin) == 6 and log[-1]["v"] == 5 and twin[-1]["v"] == 6
    assert copy.deepcopy(log) == log and pickle.loads(pickle.dumps(log)) == log


def test_a_damaged_log_is_refused_when_read() -> None:
    log = EventLog()
    log.encoded = msgpack.packb(["not bytes"])
    with pytest.raises(ValueError, match="not a log entry"):
        log.packed  # noqa: B018
