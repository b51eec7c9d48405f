"""The embedded default's store (``manhattan.store.sqlite_cas``) beyond the shared contract of
test_cas.py: what survives a reopen, what is swept, who may open a data directory, and that no
flood of other writes pushes a table out. Real SQLite files in a temporary directory."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import stat
from pathlib import Path

import pytest

from manhattan.store.cas import MemoryVersionedStore, Record, VersionedStore
from manhattan.store.sqlite_cas import (
    CHECKPOINT_WRITES,
    DATABASE_FILE,
    PAGE_SIZE,
    DataDirectoryError,
    DataDirectoryInUse,
    SqliteVersionedStore,
)
from tests.conftest import MakeApp
from tests.service_client import connect

pytestmark = pytest.mark.anyio


async def test_records_survive_closing_and_reopening(tmp_path: Path) -> None:
    store = SqliteVersionedStore(tmp_path)
    await store.swap("table", 0, b"v1", ttl=600)
    await store.swap("table", 1, b"v2", ttl=600)
    await store.put("ticket", b"seat 1", ttl=600)
    await store.close()
    again = SqliteVersionedStore(tmp_path)
    try:
        assert await again.read("table") == Record(2, b"v2")
        assert await again.take("ticket") == b"seat 1"
        assert await again.swap("table", 2, b"v3", ttl=600) == (True, Record(3, b"v3"))
    finally:
        await again.close()
    mode = stat.S_IMODE((tmp_path / DATABASE_FILE).stat().st_mode)
    assert mode == 0o600


def _page_size(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(path)) as db:
        size: int = db.execute("PRAGMA page_size").fetchone()[0]
    return size


async def test_a_late_games_record_is_one_page_of_a_new_database(tmp_path: Path) -> None:
    """A new database has pages of PAGE_SIZE, so a table's record (a late game's some 10 KB)
    is written as one page of the log a move, not a leaf and two overflow pages."""
    store = SqliteVersionedStore(tmp_path)
    try:
        await store.swap("t", 0, bytes(11_000), ttl=600)
    finally:
        await store.close()
    assert _page_size(tmp_path / DATABASE_FILE) == PAGE_SIZE == 16384
    with contextlib.closing(sqlite3.connect(tmp_path / DATABASE_FILE)) as db:
        pages = db.execute("PRAGMA page_count").fetchone()[0]
    assert pages <= 4  # the schema's, its indexes', and the record's own (no overflow)


async def test_a_database_made_with_smaller_pages_keeps_them_and_works(tmp_path: Path) -> None:
    """A data directory from before PAGE_SIZE: its pages stay as they are (SQLite changes a
    WAL database's page size only by a rewrite), and its records read and swap as before."""
    with contextlib.closing(sqlite3.connect(tmp_path / DATABASE_FILE)) as db:
        db.execute("PRAGMA page_size=4096")
        db.execute("PRAGMA journal_mode=WAL")
    store = SqliteVersionedStore(tmp_path)
    try:
        assert await store.swap("t", 0, bytes(11_000), ttl=600) == (True, Record(1, bytes(11_000)))
        assert await store.read("t") == Record(1, bytes(11_000))
    finally:
        await store.close()
    assert _page_size(tmp_path / DATABASE_FILE) == 4096


async def test_a_second_opener_of_a_data_directory_is_refused(tmp_path: Path) -> None:
    store = SqliteVersionedStore(tmp_path)
    try:
        with pytest.raises(DataDirectoryInUse, match="in use by another manhattan process"):
            SqliteVersionedStore(tmp_path)
    finally:
        await store.close()
    await SqliteVersionedStore(tmp_path).close()  # released on close: a new owner may open it


async def test_an_unusable_data_directory_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(DataDirectoryError, match="data directory"):
        SqliteVersionedStore(blocker / "data")


async def test_expired_rows_are_invisible_then_swept(tmp_path: Path) -> None:
    now = [1_000.0]
    store = SqliteVersionedStore(tmp_path, clock=lambda: now[0], sweep_every=10)
    try:
        for i in range(50):
            await store.put(f"ticket:{i}", b"x", ttl=5)
        await store.swap("table", 0, b"t", ttl=600)
        now[0] += 6
        assert await store.get("ticket:0") is None
        assert await store.count() == 51  # not yet swept
        now[0] += 10
        await store.put("one more", b"y", ttl=5)  # a write after sweep_every sweeps
        assert await store.count() == 2
        assert await store.read("table") == Record(1, b"t")
    finally:
        await store.close()


async def test_a_record_lives_its_ttl_after_its_last_swap_and_the_expiry_moves_rarely(
    tmp_path: Path,
) -> None:
    """A swap moves a record's expiry a hundredth of its TTL past the TTL, so the swaps after
    it leave the expiry (and its index) alone until it is less than a TTL away; a record still
    lives at least its TTL after its last swap, and at most a hundredth longer."""
    now = [1_000.0]
    store = SqliteVersionedStore(tmp_path, clock=lambda: now[0])

    def expires() -> float:
        row = store._db.execute("SELECT expires FROM records WHERE key = 't'").fetchone()
        return float(row[0])

    try:
        await store.swap("t", 0, b"1", ttl=1_000)
        assert expires() == 1_000 + 1_000 + 10
        for version in range(1, 6):  # 2 s apart: the expiry stays a TTL away or more
            now[0] += 2
            done = await store.swap("t", version, b"%d" % version, ttl=1_000)
            assert done == (True, Record(version + 1, b"%d" % version))
        assert expires() == 2_010
        now[0] += 2  # 1,012: the expiry would be less than a TTL away: moved
        assert (await store.swap("t", 6, b"7", ttl=1_000))[0]
        assert expires() == 1_012 + 1_000 + 10
        now[0] += 1_000 - 0.5  # a TTL after the last swap, less half a second: alive
        store._records.clear()
        assert await store.read("t") == Record(7, b"7")
        now[0] += 11  # a hundredth of the TTL later: gone
        store._records.clear()
        assert await store.read("t") is None
    finally:
        await store.close()


async def test_a_lease_is_taken_once_until_it_expires(tmp_path: Path) -> None:
    now = [0.0]
    store = SqliteVersionedStore(tmp_path, clock=lambda: now[0])
    try:
        assert await store.claim("lease", "a", 1_000)
        assert not await store.claim("lease", "b", 1_000)
        now[0] = 1.5
        assert await store.claim("lease", "b", 1_000)
        assert await store.get("lease") == b"b"
    finally:
        await store.close()


async def test_racing_swaps_from_many_tasks_count_every_write(tmp_path: Path) -> None:
    """Concurrent writers, each yielding between its read and its swap: every swap is a
    transaction, so the version counts exactly the swaps that reported success."""
    store = SqliteVersionedStore(tmp_path)
    await store.swap("k", 0, b"", ttl=600)

    async def writer(name: bytes) -> None:
        while True:
            record = await store.read("k")
            assert record is not None
            await asyncio.sleep(0)  # the others read the same version meanwhile
            done, _ = await store.swap("k", record.version, record.data + name, ttl=600)
            if done:
                return

    names = [bytes([65 + i]) for i in range(26)]
    await asyncio.gather(*(writer(name) for name in names))
    record = await store.read("k")
    await store.close()
    assert record is not None and sorted(record.data) == sorted(b"".join(names))
    assert record.version == 27
    with sqlite3.connect(tmp_path / DATABASE_FILE) as db:  # committed, seen by another reader
        assert db.execute("SELECT version FROM records WHERE key = 'k'").fetchone() == (27,)


async def test_the_log_reaches_the_database_and_starts_again(tmp_path: Path) -> None:
    """Automatic checkpoints are off on the loop's connection (they wait for the disk); every
    CHECKPOINT_WRITES writes the store checkpoints on its thread, so the database file takes
    the records while the service runs, and the log starts again from its beginning (its
    header's salt changes) instead of growing for as long as writes go on."""
    store = SqliteVersionedStore(tmp_path)
    database, wal = tmp_path / DATABASE_FILE, tmp_path / (DATABASE_FILE + "-wal")
    try:
        empty = database.stat().st_size
        await store.swap("t", 0, bytes(8_000), ttl=600)
        salt = wal.read_bytes()[16:24]
        for n in range(1, 3 * CHECKPOINT_WRITES):
            assert (await store.swap("t", n, bytes(8_000), ttl=600))[0]
            await asyncio.sleep(0)  # as between a service's requests: the checkpoint's turn
        start = 3 * CHECKPOINT_WRITES
        for version in range(start, start + 5_000):  # writes go on until the log restarts
            if wal.read_bytes()[16:24] != salt:
                break
            await store.swap("t", version - 1, bytes(8_000), ttl=600)
            await asyncio.sleep(0)
        assert wal.read_bytes()[16:24] != salt
        assert database.stat().st_size > empty + 8_000
    finally:
        await store.close()


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_a_flood_of_tickets_and_presence_never_evicts_a_table(
    kind: str, tmp_path: Path
) -> None:
    """A flood of 105,000 tickets, scaled down: far more plain values than the memory store's
    bound (and thousands of presence swaps) leave every table readable and writable."""
    store: VersionedStore = (
        MemoryVersionedStore(max_entries=100)
        if kind == "memory"
        else SqliteVersionedStore(tmp_path)
    )
    try:
        for table in range(5):
            await store.swap(f"table:{table}", 0, b"game", ttl=600)
        for i in range(3_000):
            await store.put(f"ticket:{i}", b"seat", ttl=60)
            await store.swap(f"presence:{i}", 0, b"here", ttl=600)
        for table in range(5):
            assert await store.read(f"table:{table}") == Record(1, b"game")
            assert (await store.swap(f"table:{table}", 1, b"moved", ttl=600))[0]
    finally:
        await store.close()


async def test_a_ticket_flood_through_the_service_leaves_the_game_playable(
    tmp_path: Path, make_app: MakeApp
) -> None:
    """The ticket flood through the API, on the embedded default: a seat asks for tickets
    again and again; the table is still there, and still takes its people's moves."""
    # The store, not the quotas, is what this tests: the ticket quota is off here (its own test
    # is tests/api/test_quotas.py).
    app = make_app(data_dir=str(tmp_path / "data"), table_stand_in_level="random", quota_tickets=0)
    async with connect(app) as client:
        made = (
            await client.post(
                "/v1/tables", json={"setup": {"edition": "classic"}, "seats": ["open", "open"]}
            )
        ).json()
        table = made["tableId"]
        seats = [
            (await client.post(f"/v1/tables/{table}/join", json={"name": n})).json()["seatToken"]
            for n in ("ann", "bob")
        ]
        auth = [{"authorization": f"Bearer {token}"} for token in seats]
        for _ in range(600):
            answer = await client.post(f"/v1/tables/{table}/ticket", headers=auth[0])
            assert answer.status_code == 200
        host = {"authorization": f"Bearer {made['hostToken']}"}
        assert (await client.post(f"/v1/tables/{table}/start", headers=host)).status_code == 200
        views = [(await client.get(f"/v1/tables/{table}", headers=a)).json() for a in auth]
        mover = next(i for i, view in enumerate(views) if view.get("moves"))
        view = views[mover]
        moved = await client.post(
            f"/v1/tables/{table}/moves",
            headers=auth[mover],
            json={"move": view["moves"][0], "version": view["version"]},
        )
        assert moved.status_code == 200, moved.text
    await app.state.tables.close()


async def test_the_memory_copy_follows_every_write(tmp_path: Path) -> None:
    """Reads come from the records kept in memory (absent keys too): every write through the
    store keeps that copy true, whatever kind of value the key holds next."""
    store = SqliteVersionedStore(tmp_path, memory_records=2)
    try:
        assert await store.read("k") is None  # remembered as absent
        assert await store.swap("k", 0, b"a", ttl=60) == (True, Record(1, b"a"))
        assert await store.read("k") == Record(1, b"a")
        await store.put("k", b"plain", ttl=60)
        assert await store.read("k") is None
        assert await store.take("k") == b"plain"
        assert await store.claim("k", "lease", 60_000)
        assert await store.read("k") is None
        await store.delete("k")
        assert await store.swap("k", 0, b"b", ttl=60) == (True, Record(1, b"b"))
        for other in ("x", "y", "z"):  # pushed out of the small memory copy: read from disk
            await store.swap(other, 0, b"o", ttl=60)
        assert await store.read("k") == Record(1, b"b")
    finally:
        await store.close()
