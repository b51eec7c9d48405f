"""The lobby as an index: public waiting tables by latest activity, newest
first, so a lobby page costs the page, never a scan of every table.

Each entry is the table's lobby summary (``lobby_entry``: name, host, setup, seats), encoded
once when the table changes (the one write path, ``records.TableRecords.write``, keeps the
index), with the table's activity time (its last change) as the order. A page starts after a
cursor ``(activity, tableId)``. An entry lives as long as its table (the same TTL, renewed by
each change) and leaves when the table starts or turns private.

- Memory (``:memory:``): a sorted list and a dict, shared by every runtime on one store object.
- SQLite (the embedded default): the same in memory, written through to a ``lobby`` table of
  the data directory's database and read back from it on the first use after a start.
- Redis: a sorted set scored by activity, each entry in a key of its own with the table's TTL
  (one hash slot: ``{tables}``); an entry whose key expired is dropped from the set when a
  page meets it.
"""

from __future__ import annotations

import asyncio
import bisect
import time
import weakref
from typing import Any, Protocol

from manhattan.store.cas import VersionedStore
from manhattan.store.redis_cas import RedisVersionedStore
from manhattan.store.sqlite_cas import SqliteVersionedStore
from manhattan.tables.model import Table

PREFIX = "manhattan:1"
#: The sorted set of listed tables, by activity (epoch ms), and each one's entry.
LOBBY_SET = f"{PREFIX}:{{tables}}:lobby:index"

#: An entry as a page gets it: (activity ms, table id, encoded summary).
Entry = tuple[int, str, bytes]


def lobby_entry_key(table_id: str) -> str:
    return f"{PREFIX}:{{tables}}:lobby:entry:{table_id}"


def listed(table: Table) -> bool:
    """Whether the lobby lists ``table``: public and waiting (full or not: a filter says)."""
    return table.public and table.status == "waiting"


class LobbyIndex(Protocol):
    async def put(self, table_id: str, activity: int, entry: bytes, ttl: int) -> None: ...

    async def remove(self, table_id: str) -> None: ...

    async def after(self, cursor: tuple[int, str] | None, count: int) -> list[Entry]:
        """Up to ``count`` entries after ``cursor`` (None: from the newest), newest first."""
        ...


class MemoryLobby:
    """Entries in memory, ordered by ``(-activity, -id)`` (newest first)."""

    def __init__(self) -> None:
        self._order: list[tuple[int, int]] = []  # (-activity, -id as a number) ascending
        self._entries: dict[str, tuple[int, bytes, float]] = {}  # id -> activity, entry, until

    @staticmethod
    def _key(activity: int, table_id: str) -> tuple[int, int]:
        # Newest first, and within one millisecond the greater id first (as Redis does);
        # table ids are 32 hex digits.
        return (-activity, -int(table_id, 16))

    async def put(self, table_id: str, activity: int, entry: bytes, ttl: int) -> None:
        self._drop(table_id)
        bisect.insort(self._order, self._key(activity, table_id))
        self._entries[table_id] = (activity, entry, time.time() + ttl)

    async def remove(self, table_id: str) -> None:
        self._drop(table_id)

    def _drop(self, table_id: str) -> None:
        old = self._entries.pop(table_id, None)
        if old is not None:
            key = self._key(old[0], table_id)
            at = bisect.bisect_left(self._order, key)
            if at < len(self._order) and self._order[at] == key:
                del self._order[at]

    async def after(self, cursor: tuple[int, str] | None, count: int) -> list[Entry]:
        start = 0 if cursor is None else bisect.bisect_right(self._order, self._key(*cursor))
        now = time.time()
        out: list[Entry] = []
        expired: list[str] = []
        for _, number in self._order[start:]:
            table_id = format(-number, "032x")
            activity, entry, until = self._entries[table_id]
            if until <= now:
                expired.append(table_id)
                continue
            out.append((activity, table_id, entry))
            if len(out) == count:
                break
        for table_id in expired:
            self._drop(table_id)
        return out

    def __len__(self) -> int:
        return len(self._entries)


_SQL_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS lobby (id TEXT PRIMARY KEY, activity INTEGER NOT NULL, "
    "entry BLOB NOT NULL, expires REAL NOT NULL)"
)


class SqliteLobby(MemoryLobby):
    """The memory index, written through to the data directory's database (one process owns
    it, so the memory copy is the truth while it runs) and loaded from it after a start."""

    def __init__(self, store: SqliteVersionedStore) -> None:
        super().__init__()
        self.store = store
        self._loaded = False
        self._loading = asyncio.Lock()

    async def _load(self) -> None:
        async with self._loading:
            if not self._loaded:
                rows = await self.store._run(self._read_rows)
                for table_id, activity, entry, expires in rows:
                    ttl = int(expires - time.time())
                    await MemoryLobby.put(self, table_id, activity, entry, ttl)
                self._loaded = True

    def _read_rows(self) -> list[tuple[str, int, bytes, float]]:
        db = self.store._db
        db.execute(_SQL_SCHEMA)
        db.execute("DELETE FROM lobby WHERE expires <= ?", (time.time(),))
        rows = db.execute("SELECT id, activity, entry, expires FROM lobby").fetchall()
        return [(str(i), int(a), bytes(e), float(x)) for i, a, e, x in rows]

    def _write(self, table_id: str, activity: int, entry: bytes | None, expires: float) -> None:
        with self.store._db as db:  # one transaction
            if entry is None:
                db.execute("DELETE FROM lobby WHERE id = ?", (table_id,))
            else:
                db.execute(
                    "INSERT OR REPLACE INTO lobby (id, activity, entry, expires) "
                    "VALUES (?, ?, ?, ?)",
                    (table_id, activity, entry, expires),
                )

    async def put(self, table_id: str, activity: int, entry: bytes, ttl: int) -> None:
        await self._load()
        await MemoryLobby.put(self, table_id, activity, entry, ttl)
        await self.store._run(self._write, table_id, activity, entry, time.time() + ttl)

    async def remove(self, table_id: str) -> None:
        await self._load()
        if table_id in self._entries:
            await MemoryLobby.remove(self, table_id)
            await self.store._run(self._write, table_id, 0, None, 0.0)

    async def after(self, cursor: tuple[int, str] | None, count: int) -> list[Entry]:
        await self._load()
        return await MemoryLobby.after(self, cursor, count)


class RedisLobby:
    """A sorted set by activity and one key per entry (see the module docstring)."""

    def __init__(self, store: RedisVersionedStore) -> None:
        self.store = store
        self._client: Any = store._client

    async def put(self, table_id: str, activity: int, entry: bytes, ttl: int) -> None:
        def write() -> Any:
            pipe = self._client.pipeline(transaction=False)
            pipe.set(lobby_entry_key(table_id), entry, ex=ttl)
            pipe.zadd(LOBBY_SET, {table_id: activity})
            return pipe.execute()

        await self.store._call(write)

    async def remove(self, table_id: str) -> None:
        def write() -> Any:
            pipe = self._client.pipeline(transaction=False)
            pipe.zrem(LOBBY_SET, table_id)
            pipe.delete(lobby_entry_key(table_id))
            return pipe.execute()

        await self.store._call(write)

    async def after(self, cursor: tuple[int, str] | None, count: int) -> list[Entry]:
        top: int | str = "+inf" if cursor is None else cursor[0]
        out: list[Entry] = []
        offset = 0
        while len(out) < count:
            batch = count - len(out) + 8

            def scores(start: int = offset, num: int = batch) -> Any:
                return self._client.zrevrangebyscore(
                    LOBBY_SET, top, "-inf", start=start, num=num, withscores=True
                )

            found = await self.store._call(scores)
            offset += len(found)
            members = [(m.decode() if isinstance(m, bytes) else str(m), int(s)) for m, s in found]
            if cursor is not None:  # ties at the cursor's time: only ids after the cursor's
                members = [(m, s) for m, s in members if s < cursor[0] or m < cursor[1]]
            if members:
                keys = [lobby_entry_key(m) for m, _ in members]

                def entries(names: list[str] = keys) -> Any:
                    return self._client.mget(names)

                blobs = await self.store._call(entries)
                gone = [m for (m, _), blob in zip(members, blobs, strict=True) if blob is None]
                out += [(s, m, b) for (m, s), b in zip(members, blobs, strict=True) if b]
                if gone:

                    def forget(names: list[str] = gone) -> Any:
                        return self._client.zrem(LOBBY_SET, *names)

                    await self.store._call(forget)
                    offset -= len(gone)
            if len(found) < batch:
                break
        return out[:count]


_shared: weakref.WeakKeyDictionary[Any, LobbyIndex] = weakref.WeakKeyDictionary()


def make_lobby_index(store: VersionedStore) -> LobbyIndex:
    """The index that goes with ``store`` (one per in-process store object, shared by the
    runtimes on it, as replicas share Redis)."""
    if isinstance(store, RedisVersionedStore):
        return RedisLobby(store)
    found = _shared.get(store)
    if found is None:
        made = SqliteLobby(store) if isinstance(store, SqliteVersionedStore) else MemoryLobby()
        found = _shared[store] = made
    return found


__all__ = ["LOBBY_SET", "LobbyIndex", "MemoryLobby", "RedisLobby", "SqliteLobby", "listed"]
