"""A table record (``tables/model.py``): written and read back unchanged, and a record written
before a field was added reads with that field's default."""

from __future__ import annotations

import msgpack

from manhattan.tables.model import RECORD_FIELDS, Seat, Table


def a_table() -> Table:
    return Table(
        id="t" * 32,
        name="Friday",
        public=True,
        turn_seconds=60,
        setup={"players": 2},
        seed="s1",
        status="waiting",
        seats=[Seat(0, "human", "ann", epoch=2), Seat(1, "bot", bot={"level": "greedy"})],
        answers={0: [["m1", b"\x80"]]},
        chat_times={1: [5, 6]},
        owner="club",
        rated=True,
    )


def test_a_record_reads_back_as_written() -> None:
    table = a_table()
    data = table.encode()
    again = Table.decode(data)
    assert again == table and again.encode() == data
    assert msgpack.unpackb(data, raw=False, strict_map_key=False)[0] == 1


def test_a_record_from_before_owner_and_rated_reads_with_their_defaults() -> None:
    table = a_table()
    raw = msgpack.unpackb(table.encode(), raw=False, strict_map_key=False)
    older = msgpack.packb(raw[: RECORD_FIELDS.index("owner") + 1], use_bin_type=True)
    read = Table.decode(older)
    assert read.owner is None and read.rated is False
    assert read.seats == table.seats and read.answers == table.answers
