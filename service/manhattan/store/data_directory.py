"""The embedded default's data directory, opened at start: held, private, and whole.

The directory holds the tables' SQLite database, the webhooks' outbox (their ``whsec_`` secrets)
and the token key that seals every seat and host token. Opening it, before anything reads or
makes one of them:

- **holds** it: an exclusive ``flock`` on ``manhattan.lock`` for the process's life (the kernel
  frees it when the process dies, ``kill -9`` included); a second process is refused;
- makes it **private**: the directory 0700 and each of the service's files in it 0600 (tightened,
  with a warning that names them: they may have been read). A directory this process cannot
  tighten, or that holds files of others (a home directory named by mistake: its files are not
  the service's to change), is refused. The token key is left to its reader, which refuses a key
  others could read (it seals tokens);
- checks it is **whole**: each database passes ``PRAGMA quick_check``; the tables' database is
  neither empty nor missing beside a token key that was kept here (the key sealed tokens for
  tables that are gone), and the key is not missing beside stored tables (a new key would
  orphan every stored table's tokens). Before these checks a start could silently begin anew.

A check that fails refuses the start with ``DataDirectoryError``, which says what to do:
``manhattan serve`` prints ``DATA_DIR_UNAVAILABLE`` and exits. With ``reset`` (the setting
``MANHATTAN_DATA_RESET``) the files at fault are set aside in a folder of the directory
(``set-aside-<UTC time>``, never deleted) and the start goes on afresh; a directory that passes
every check is opened as it is, whatever ``reset`` says.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import logging
import os
import sqlite3
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

log = logging.getLogger("manhattan.store.data")

LOCK_FILE = "manhattan.lock"
#: The folders that ``reset`` makes start so.
SET_ASIDE = "set-aside-"
DIRECTORY_MODE = 0o700
FILE_MODE = 0o600
#: The files SQLite keeps beside a database.
COMPANIONS = ("-wal", "-shm", "-journal")
#: What to do, said by every refusal.
RESET_HINT = (
    "or set MANHATTAN_DATA_RESET=1 once to set the files at fault aside (kept in a folder of "
    "the directory) and start afresh"
)


class DataDirectoryError(RuntimeError):
    """The data directory cannot be used as it is; the message says why and what to do."""


class DataDirectoryInUse(DataDirectoryError):
    """Another process holds the data directory."""


@dataclass(frozen=True, slots=True)
class Contents:
    """The files of a data directory that its start-up checks know by name."""

    #: The tables' database: its records are what the token key's tokens open.
    tables: str
    #: Other databases (the webhooks' outbox): each must pass its integrity check.
    others: tuple[str, ...] = ()
    #: The token key's file name.
    key: str = "token-key"
    #: Whether the key is kept here (False: configured elsewhere, the file unused if present).
    key_kept: bool = True


@dataclass(frozen=True, slots=True)
class Fault:
    """What a check found: the sentence for the operator and the files a reset sets aside."""

    reason: str
    files: tuple[str, ...] = field(default=())


class HeldDirectory:
    """A data directory this process holds (its lock) and has checked."""

    def __init__(self, path: Path, lock: IO[str]) -> None:
        self.path = path
        self._lock: IO[str] | None = lock

    def take_lock(self) -> IO[str]:
        """The held lock, handed to the one store that keeps it open (and closes it)."""
        if self._lock is None:
            raise DataDirectoryInUse(f"the data directory {self.path} was handed over already")
        lock, self._lock = self._lock, None
        return lock

    def release(self) -> None:
        """Frees the directory if no store took its lock (a start that failed later)."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None


def open_data_directory(
    path: Path,
    contents: Contents,
    *,
    reset: bool = False,
    clock: Callable[[], float] | None = None,
) -> HeldDirectory:
    """Holds, tightens and checks the directory at ``path`` (made 0700 if absent), as the
    module says; with ``reset`` the files at fault are set aside instead of refusing."""
    try:
        path.mkdir(mode=DIRECTORY_MODE, parents=True, exist_ok=True)
        tighten_directory(path, contents)
        lock = lock_directory(path)
    except DataDirectoryError:
        raise
    except OSError as exc:
        raise DataDirectoryError(f"the data directory {path}: {exc}") from exc
    try:
        tighten_files(path, contents)
        faults = find_faults(path, contents)
        if faults and not reset:
            raise DataDirectoryError(_refusal(path, faults))
        if faults:
            _set_aside(path, faults, clock)
    except BaseException:
        lock.close()
        raise
    return HeldDirectory(path, lock)


def lock_directory(directory: Path) -> IO[str]:
    """An exclusive lock on ``directory`` for this process (the open lock file: keep it open).
    Creates the directory (0700) when absent."""
    directory.mkdir(mode=DIRECTORY_MODE, parents=True, exist_ok=True)
    descriptor = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT, FILE_MODE)
    handle = os.fdopen(descriptor, "r+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "unknown"
        handle.close()
        raise DataDirectoryInUse(
            f"the data directory {directory} is in use by another manhattan process (pid "
            f"{holder}); one process owns a data directory: stop that one, or set "
            "MANHATTAN_DATA_DIR to another directory (or REDIS_URL to share tables)"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def service_files(contents: Contents) -> frozenset[str]:
    """The names of the files the service keeps in its directory."""
    databases = (contents.tables, *contents.others)
    names = {LOCK_FILE, contents.key}
    names.update(name + suffix for name in databases for suffix in ("", *COMPANIONS))
    return frozenset(names)


def _is_service_file(name: str, contents: Contents) -> bool:
    # (and the key's spare, written aside before it is linked into place)
    return name in service_files(contents) or name.startswith(f".{contents.key}.")


def tighten_directory(directory: Path, contents: Contents) -> None:
    """The directory 0700, when it holds nothing but the service's files (and folders it set
    aside); refused otherwise, or when this process may not change it."""
    mode = stat.S_IMODE(directory.stat().st_mode)
    if not mode & 0o077:
        return
    foreign = sorted(
        entry.name
        for entry in directory.iterdir()
        if not _is_service_file(entry.name, contents)
        and not (entry.is_dir() and entry.name.startswith(SET_ASIDE))
    )
    if foreign:
        shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
        raise DataDirectoryError(
            f"the data directory {directory} is open to others (mode {mode:o}) and holds files "
            f"that are not the service's ({shown}): give MANHATTAN_DATA_DIR a directory of its "
            "own, or chmod 700 this one yourself"
        )
    try:
        directory.chmod(DIRECTORY_MODE)
    except OSError as exc:
        raise DataDirectoryError(
            f"the data directory {directory} is open to others (mode {mode:o}) and this process "
            f"cannot make it private ({exc.strerror}): chmod 700 it, as its owner"
        ) from None
    log.warning(
        "the data directory was open to others: made private (0700)",
        extra={"directory": str(directory), "was": f"{mode:o}"},
    )


def tighten_files(directory: Path, contents: Contents) -> None:
    """Each of the service's files 0600 (the key aside: its reader judges it), warning with
    the names of those that were not (their contents may have been read)."""
    opened: list[str] = []
    for entry in directory.iterdir():
        if entry.name == contents.key or not _is_service_file(entry.name, contents):
            continue
        if not entry.is_file() or entry.is_symlink():
            continue
        mode = stat.S_IMODE(entry.stat().st_mode)
        if mode & 0o077:
            try:
                entry.chmod(FILE_MODE)
            except OSError as exc:
                raise DataDirectoryError(
                    f"{entry} is readable by others (mode {mode:o}) and this process cannot "
                    f"make it private ({exc.strerror}): chmod 600 it, as its owner"
                ) from None
            opened.append(f"{entry.name} ({mode:o})")
    if opened:
        log.warning(
            "files of the data directory were readable by others: made private (0600)",
            extra={"directory": str(directory), "files": ", ".join(sorted(opened))},
        )


def find_faults(directory: Path, contents: Contents) -> list[Fault]:
    """Why the directory may not be opened as it is (nothing: it may)."""
    faults: list[Fault] = []
    tables = _inspect(directory / contents.tables)
    for name in contents.others:
        other = _inspect(directory / name)
        if other.damage:
            faults.append(Fault(f"{name} is damaged ({other.damage})", _with_companions(name)))
    if tables.damage:
        faults.append(
            Fault(f"{contents.tables} is damaged ({tables.damage})", _with_companions(tables.name))
        )
        return faults
    key_kept = contents.key_kept and (directory / contents.key).exists()
    if contents.key_kept and not key_kept and tables.records:
        files = _with_companions(contents.tables) + sum(map(_with_companions, contents.others), ())
        faults.append(
            Fault(
                f"the token key ({contents.key}) is missing beside {contents.tables}, which holds "
                f"{tables.records} records: a new key would orphan every stored table (each seat "
                "and host token refused). Put the key back from your backup (or set "
                "MANHATTAN_TOKEN_KEY to it)",
                files,
            )
        )
    elif key_kept and not tables.exists:
        faults.append(
            Fault(
                f"{contents.tables} is missing beside the token key ({contents.key}): the tables "
                "it held are gone. Put the database back from your backup (with its key)",
            )
        )
    elif key_kept and tables.records is None:
        faults.append(
            Fault(
                f"{contents.tables} is empty beside the token key ({contents.key}): the tables "
                "it held are gone. Put the database back from your backup (with its key)",
                _with_companions(contents.tables),
            )
        )
    return faults


@dataclass(frozen=True, slots=True)
class _Inspected:
    name: str
    exists: bool
    #: Rows of its ``records`` table; None when it has none (an empty file, another schema).
    records: int | None = None
    damage: str = ""


def _inspect(path: Path) -> _Inspected:
    """A database file as found: absent, damaged (why), or its records counted. Opened read
    and write without creating (a read-only opening could not recover a log left by a crash)."""
    if not path.exists():
        return _Inspected(path.name, False)
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True)
    except sqlite3.Error as exc:
        return _Inspected(path.name, True, damage=str(exc))
    try:
        found = [str(row[0]) for row in db.execute("PRAGMA quick_check(5)")]
        if found != ["ok"]:
            return _Inspected(path.name, True, damage="; ".join(found))
        has = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'records'")
        if has.fetchone() is None:
            return _Inspected(path.name, True)
        (count,) = db.execute("SELECT count(*) FROM records").fetchone()
        return _Inspected(path.name, True, records=int(count))
    except sqlite3.Error as exc:
        return _Inspected(path.name, True, damage=str(exc))
    finally:
        db.close()


def _with_companions(name: str) -> tuple[str, ...]:
    return (name, *(name + suffix for suffix in COMPANIONS))


def _refusal(path: Path, faults: list[Fault]) -> str:
    reasons = "; ".join(fault.reason for fault in faults)
    return f"the data directory {path} cannot be used as it is: {reasons}; {RESET_HINT}"


def _set_aside(path: Path, faults: list[Fault], clock: Callable[[], float] | None) -> None:
    moment = datetime.datetime.fromtimestamp(
        clock() if clock is not None else datetime.datetime.now().timestamp(), datetime.UTC
    )
    aside = path / f"{SET_ASIDE}{moment:%Y%m%dT%H%M%SZ}"
    aside.mkdir(mode=DIRECTORY_MODE, exist_ok=True)
    moved: list[str] = []
    for fault in faults:
        for name in fault.files:
            with contextlib.suppress(FileNotFoundError):
                (path / name).rename(aside / name)
                moved.append(name)
    log.warning(
        "MANHATTAN_DATA_RESET: the data directory starts afresh; the files at fault are set "
        "aside (unset MANHATTAN_DATA_RESET once started)",
        extra={
            "directory": str(path),
            "setAside": str(aside),
            "files": ", ".join(moved),
            "reasons": "; ".join(fault.reason for fault in faults),
        },
    )


__all__ = [
    "LOCK_FILE",
    "Contents",
    "DataDirectoryError",
    "DataDirectoryInUse",
    "HeldDirectory",
    "lock_directory",
    "open_data_directory",
]
