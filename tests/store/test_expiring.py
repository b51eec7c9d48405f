"""The one in-memory expiring map (``manhattan.store.expiring``) behind the cache's LRU and the
memory versioned store."""

from __future__ import annotations

from manhattan.store.expiring import ExpiringMap


def test_evictable_entries_are_a_bounded_lru() -> None:
    entries: ExpiringMap[bytes] = ExpiringMap(2, clock=lambda: 0.0)
    entries.set("a", b"1", 60)
    entries.set("b", b"2", 60)
    assert entries.get("a") == b"1"  # now the most recently used
    entries.set("c", b"3", 60)
    assert entries.get("b") is None  # the least recently used went
    assert (entries.get("a"), entries.get("c"), len(entries)) == (b"1", b"3", 2)


def test_pinned_entries_are_never_evicted_by_other_writes() -> None:
    entries: ExpiringMap[bytes] = ExpiringMap(3, clock=lambda: 0.0)
    entries.set("table", b"live", 60, pinned=True)
    for i in range(1_000):
        entries.set(f"ticket:{i}", b"x", 60)
    assert entries.get("table") == b"live"
    assert len(entries) == 1 + 3
    entries.set("table", b"unpinned now", 60)  # a plain write makes it evictable again
    for i in range(3):
        entries.set(f"more:{i}", b"x", 60)
    assert entries.get("table") is None


def test_entries_expire_on_access_and_in_the_sweep() -> None:
    now = [0.0]
    entries: ExpiringMap[bytes] = ExpiringMap(100, clock=lambda: now[0], sweep_every=30)
    entries.set("short", b"1", 5, pinned=True)
    entries.set("long", b"2", 100)
    entries.set("never-read", b"3", 5)
    now[0] = 6.0
    assert entries.get("short") is None
    assert len(entries) == 2  # "never-read" waits for the sweep
    entries.expire("long", 100)  # from now: until 106
    now[0] = 31.0
    entries.set("trigger", b"4", 100)  # a write past sweep_every sweeps
    assert len(entries) == 2 and entries.get("long") == b"2"
    now[0] = 107.0
    assert entries.get("long") is None
    assert entries.pop("trigger") == b"4" and entries.pop("trigger") is None
