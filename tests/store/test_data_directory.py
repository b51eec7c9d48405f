"""The data directory at start (``store/data_directory.py``), on real files: private (0700, every
file 0600, tightened with a warning), whole (each database passes its integrity check; the token
key and the tables' database are not found one without the other), refused with what to do, and
set aside, never deleted, with ``reset``. The store's health once open: a damaged database is
reported, not served as ready."""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from manhattan.platforms.outbox import Delivery
from manhattan.platforms.outbox_sqlite import DATABASE_FILE as WEBHOOKS_FILE
from manhattan.platforms.outbox_sqlite import SqliteOutbox
from manhattan.sealing import KEY_FILE, stored_key
from manhattan.store.cache import StoreUnavailable
from manhattan.store.data_directory import (
    LOCK_FILE,
    Contents,
    DataDirectoryError,
    DataDirectoryInUse,
    HeldDirectory,
    open_data_directory,
)
from manhattan.store.sqlite_cas import DATABASE_FILE as TABLES_FILE
from manhattan.store.sqlite_cas import SqliteVersionedStore

pytestmark = pytest.mark.anyio

CONTENTS = Contents(tables=TABLES_FILE, others=(WEBHOOKS_FILE,), key=KEY_FILE)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def used(directory: Path, *, records: int = 3, reset: bool = False) -> None:
    """A start as the service makes it: the directory opened and checked, the tables' store,
    the key, the webhooks' outbox; some records and a delivery written; all closed again."""
    held = open_data_directory(directory, CONTENTS, reset=reset)
    store = SqliteVersionedStore(directory, held=held)
    stored_key(directory)
    outbox = SqliteOutbox(directory)
    try:
        for n in range(records):
            await store.swap(f"table:{n}", 0, os.urandom(3000), ttl=600)
        await outbox.put_hook("t", b"hook")
        await outbox.add(Delivery("msg_t_1", "t", "http://x/", "whsec_AAAA", b"{}", key="k"))
    finally:
        await outbox.close()
        await store.close()


def refusal(directory: Path, contents: Contents = CONTENTS) -> str:
    with pytest.raises(DataDirectoryError) as caught:
        open_data_directory(directory, contents)
    return str(caught.value)


async def test_a_new_directory_and_every_file_in_it_are_private(tmp_path: Path) -> None:
    directory = tmp_path / "data"
    held = open_data_directory(directory, CONTENTS)
    store = SqliteVersionedStore(directory, held=held)
    outbox = SqliteOutbox(directory)
    try:
        await store.swap("table:1", 0, b"x", ttl=600)
        await outbox.put_hook("t", b"hook")  # the secrets' file and its log
        stored_key(directory)
        names = {p.name for p in directory.iterdir()}
        for expected in (TABLES_FILE, WEBHOOKS_FILE, KEY_FILE, LOCK_FILE):
            assert expected in names
        assert {TABLES_FILE + "-wal", WEBHOOKS_FILE + "-wal"} <= names
        assert mode(directory) == 0o700
        assert {p.name: mode(p) for p in directory.iterdir()} == dict.fromkeys(names, 0o600)
    finally:
        await outbox.close()
        await store.close()


async def test_an_open_directory_and_its_files_are_made_private_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    directory = tmp_path / "data"
    await used(directory)
    directory.chmod(0o755)
    for name in (TABLES_FILE, WEBHOOKS_FILE, LOCK_FILE):
        (directory / name).chmod(0o644)
    (directory / KEY_FILE).chmod(0o644)
    with caplog.at_level(logging.WARNING, logger="manhattan.store.data"):
        open_data_directory(directory, CONTENTS).release()
    assert mode(directory) == 0o700
    for name in (TABLES_FILE, WEBHOOKS_FILE, LOCK_FILE):
        assert mode(directory / name) == 0o600, name
    assert mode(directory / KEY_FILE) == 0o644  # its reader refuses it: it seals tokens
    warned = " ".join(str(getattr(r, "files", "")) for r in caplog.records)
    assert TABLES_FILE in warned and WEBHOOKS_FILE in warned
    assert any("open to others" in r.getMessage() for r in caplog.records)


def test_a_directory_of_others_files_is_neither_changed_nor_used(tmp_path: Path) -> None:
    """A home directory named by mistake: its files are not the service's to change."""
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    tmp_path.chmod(0o755)
    said = refusal(tmp_path)
    assert "holds files that are not the service's (run.sh)" in said
    assert mode(tmp_path) == 0o755 and mode(script) == 0o755
    tmp_path.chmod(0o700)  # private already: used, and only the service's files are changed
    open_data_directory(tmp_path, CONTENTS).release()
    assert mode(script) == 0o755


async def test_a_missing_key_beside_stored_tables_is_refused_then_set_aside(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "data"
    await used(directory)
    (directory / KEY_FILE).unlink()
    said = refusal(directory)
    assert "token key (token-key) is missing beside tables.sqlite3" in said
    assert "holds 3 records" in said and "MANHATTAN_DATA_RESET=1" in said
    assert (directory / TABLES_FILE).exists()  # nothing touched
    # With MANHATTAN_TOKEN_KEY the key is not kept here: nothing is missing.
    elsewhere = Contents(TABLES_FILE, (WEBHOOKS_FILE,), KEY_FILE, key_kept=False)
    open_data_directory(directory, elsewhere).release()
    # reset: the tables and the webhooks (of those tables) set aside, and a fresh start
    open_data_directory(directory, CONTENTS, reset=True).release()
    (aside,) = directory.glob("set-aside-*")
    assert mode(aside) == 0o700
    assert (aside / TABLES_FILE).exists() and (aside / WEBHOOKS_FILE).exists()
    assert not (directory / TABLES_FILE).exists()
    await used(directory, records=1)  # starts afresh; the next start is a plain one
    open_data_directory(directory, CONTENTS).release()


@pytest.mark.parametrize("fault", ["empty", "missing"])
async def test_a_tables_database_empty_or_missing_beside_a_key_is_refused(
    tmp_path: Path, fault: str
) -> None:
    directory = tmp_path / "data"
    await used(directory)
    for suffix in ("-wal", "-shm"):
        (directory / (TABLES_FILE + suffix)).unlink(missing_ok=True)
    if fault == "empty":
        (directory / TABLES_FILE).write_bytes(b"")
    else:
        (directory / TABLES_FILE).unlink()
    said = refusal(directory)
    assert f"tables.sqlite3 is {fault} beside the token key" in said
    assert "from your backup" in said and "MANHATTAN_DATA_RESET=1" in said
    open_data_directory(directory, CONTENTS, reset=True).release()
    assert (directory / KEY_FILE).exists()  # the key stays: it seals nothing lost


def scribble(path: Path) -> None:
    """Random bytes over the middle of a database file (its pages, not its header)."""
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        handle.seek(size // 2)
        handle.write(os.urandom(min(8192, size // 4)))


@pytest.mark.parametrize("name", [TABLES_FILE, WEBHOOKS_FILE])
async def test_a_damaged_database_is_refused_and_reset_sets_it_aside(
    tmp_path: Path, name: str
) -> None:
    directory = tmp_path / "data"
    await used(directory, records=60)  # some pages to damage (closed: the log checkpointed)
    scribble(directory / name)
    said = refusal(directory)
    assert f"{name} is damaged" in said and "MANHATTAN_DATA_RESET=1" in said
    open_data_directory(directory, CONTENTS, reset=True).release()
    (aside,) = directory.glob("set-aside-*")
    assert [p.name for p in aside.iterdir()] == [name]


async def test_a_file_that_is_no_database_is_refused(tmp_path: Path) -> None:
    directory = tmp_path / "data"
    await used(directory)
    (directory / WEBHOOKS_FILE).write_bytes(b"not a database at all, " * 100)
    assert "webhooks.sqlite3 is damaged (file is not a database)" in refusal(directory)


async def test_a_held_directory_is_refused_and_its_lock_handed_over_once(tmp_path: Path) -> None:
    held = open_data_directory(tmp_path, CONTENTS)
    try:
        with pytest.raises(DataDirectoryInUse, match="in use by another manhattan process"):
            open_data_directory(tmp_path, CONTENTS)
        store = SqliteVersionedStore(tmp_path, held=held)
        with pytest.raises(DataDirectoryInUse):
            SqliteVersionedStore(tmp_path, held=held)
        await store.close()
    finally:
        held.release()
    open_data_directory(tmp_path, CONTENTS).release()  # freed with the store


async def test_health_reports_a_damaged_database_and_a_store_that_fails(tmp_path: Path) -> None:
    """Opened without the checks (as before them): the damage shows when a read reaches it,
    and the store says so from then on."""
    directory = tmp_path / "data"
    await used(directory, records=2)
    store = SqliteVersionedStore(directory)
    try:
        assert await store.health() is None
        other = sqlite3.connect(directory / TABLES_FILE, isolation_level=None)
        other.execute("PRAGMA writable_schema=ON")
        version = other.execute("PRAGMA schema_version").fetchone()[0]
        other.execute("UPDATE sqlite_master SET rootpage = 1 WHERE name = 'records'")
        other.execute(f"PRAGMA schema_version = {version + 1}")
        other.close()
        with pytest.raises(StoreUnavailable):
            await store.read("table:0")
        said = await store.health()
        assert said is not None and "damaged" in said and "restore it from a backup" in said
    finally:
        await store.close()


def test_release_frees_a_directory_no_store_took(tmp_path: Path) -> None:
    held: HeldDirectory = open_data_directory(tmp_path, CONTENTS)
    held.release()
    held.release()  # once is enough; twice is harmless
    open_data_directory(tmp_path, CONTENTS).release()
