"""A table record (``tables/model.py``): written and read back unchanged, and a record written
before a field was added reads with that field's default."""

from __future__ import annotations

import msgpack

from manhattan.tables.model import ANSWERS_PER_SEAT, RECORD_FIELDS, Seat, Table


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


def test_a_remembered_answer_reads_back_and_only_the_newest_are_kept() -> None:
    table = a_table()
    answers = [{"version": v, "view": {"board": [[v] * 9] * 6}, "events": []} for v in (3, 4, 5)]
    for number, answer in enumerate(answers):
        table.remember(1, f"m{number}", answer)
    again = Table.decode(table.encode())
    assert again.answer_for(1, "m0") is None  # the oldest went (ANSWERS_PER_SEAT)
    assert [again.answer_for(1, f"m{n}") for n in (1, 2)] == answers[1:]
    assert len(table.answers[1]) == ANSWERS_PER_SEAT
    # Kept compressed: an answer's view is most of it, and the record is rewritten per move.
    assert all(len(blob) < len(msgpack.packb(answers[2])) for _, blob in table.answers[1])


def test_an_answer_remembered_before_compression_still_answers() -> None:
    table = a_table()
    table.answers[0] = [["old", msgpack.packb({"version": 7, "events": []})]]
    assert Table.decode(table.encode()).answer_for(0, "old") == {"version": 7, "events": []}
