"""A table's writes (``tables/records.py``): a change starts from a table of its own (decoded
from this process's last write), never from the kept table itself, so what is kept for pushes
and the next change stays what was written: through a game with its chat, a retried move id, a
refused move and a person leaving, and when a change modifies its table and then refuses."""

from __future__ import annotations

import msgpack
import pytest

from manhattan.live.runtime import TableRuntime
from manhattan.sealing import Sealer, SealingKey
from manhattan.store.cas import MemoryVersionedStore
from manhattan.tables import TableError
from manhattan.tables.model import Table
from manhattan.tables.records import TableSettings, table_key
from tests.tables.conftest import seated_table

pytestmark = pytest.mark.anyio


def assert_kept_as_written(rt: TableRuntime, tid: str) -> int:
    version, data, table = rt.tables.records._recent[tid]
    assert table == Table.decode(data)
    assert table.encode() == data
    return version


async def test_the_kept_table_is_what_was_written_through_a_whole_game() -> None:
    rt = TableRuntime(MemoryVersionedStore(), Sealer(SealingKey.generate()))
    tid, bearers = await seated_table(rt)
    await rt.tables.chat(tid, bearers[1], "good luck")
    assert_kept_as_written(rt, tid)
    played = 0
    while True:
        table = await rt.tables.get(tid, bearers[0])
        if table["status"] != "playing":
            break
        mover = bearers[table["toMove"]]
        mine = await rt.tables.get(tid, mover)
        asked = {"move": mine["moves"][0], "version": mine["version"], "moveId": f"m{played}"}
        answer = await rt.tables.move_request(tid, mover, asked)
        version = assert_kept_as_written(rt, tid)
        assert answer["version"] == version
        if played == 3:
            assert await rt.tables.move_request(tid, mover, asked) == answer  # a retry
            with pytest.raises(TableError):  # stale: refused on the kept copy, then the store's
                await rt.tables.move_request(tid, mover, {**asked, "moveId": "late"})
            assert assert_kept_as_written(rt, tid) == version
        played += 1
        if played == 8:
            break
    await rt.tables.leave(tid, bearers[1])  # a bot plays that seat from now on
    assert_kept_as_written(rt, tid)
    assert rt.tables.records._recent[tid][2].move_count() == 8


async def test_a_change_refused_after_it_modified_its_table_leaves_the_kept_one_alone() -> None:
    rt = TableRuntime(MemoryVersionedStore(), Sealer(SealingKey.generate()))
    tid, _ = await seated_table(rt)
    version, data, kept = rt.tables.records._recent[tid]

    def meddle(table: Table, new_version: int) -> None:
        table.seats[0].name = "mallory"
        table.chat.append({"player": 0, "name": "mallory", "text": "x", "at": 1})
        table.add_event(new_version, "chat", {"text": "x"})
        table.setup["rounds"] = 1
        raise TableError("INVALID_REQUEST", "refused after all")

    with pytest.raises(TableError):
        await rt.tables.write(tid, meddle)
    assert rt.tables.records._recent[tid] == (version, data, kept)
    assert kept == Table.decode(data)


async def test_a_runtime_told_format_1_writes_format_1() -> None:
    store = MemoryVersionedStore()
    rt = TableRuntime(store, Sealer(SealingKey.generate()), TableSettings(record_format=1))
    tid, _ = await seated_table(rt)
    record = await store.read(table_key(tid))
    assert record is not None
    assert msgpack.unpackb(record.data, raw=False, strict_map_key=False)[0] == 1
    table, version = await rt.tables.load(tid)
    assert table.status == "playing" and version > 1
