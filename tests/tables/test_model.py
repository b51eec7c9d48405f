"""A table record (``tables/model.py``): written and read back unchanged, and a record written
before a field was added reads with that field's default."""

from __future__ import annotations

import pickle
import zlib
from copy import deepcopy

import msgpack
import pytest

import manhattan
from manhattan.tables.model import (
    ANSWERS_PER_SEAT,
    LOG_SIZE,
    RECORD_FIELDS,
    RECORD_FORMAT,
    Seat,
    Table,
    event_data,
)
from manhattan.tables.projection import Receiver


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
    assert msgpack.unpackb(data, raw=False, strict_map_key=False)[0] == RECORD_FORMAT == 2


def test_a_copy_is_the_decoded_record_and_shares_nothing_a_change_changes() -> None:
    table = a_table()
    table.status = "playing"
    table.set_game(manhattan.new_game(players=2, seed="copy"))
    table.add_move("b1n2f1")
    table.add_event(2, "move", {"player": 0})
    table.chat.append({"player": 0, "text": "hi"})
    data = table.encode()
    copy = table.copy()
    assert copy == Table.decode(data) and copy.encode() == data
    assert copy.game() is table.game()  # (a state is immutable: shared)
    copy.seats[0].away = True
    copy.seats[1].bot["level"] = "random"  # type: ignore[index]
    copy.setup["players"] = 3
    copy.add_move("b2n3f1")
    copy.add_event(3, "chat", {"text": "x"})
    copy.remember(0, "m2", 3)
    copy.chat.append({"player": 1, "text": "yo"})
    copy.chat_times[1].append(7)
    assert table.encode() == data


def test_tables_seats_and_receivers_copy_and_pickle_in_both_builds() -> None:
    """Compiled, a class that writes its own constructor runs it from ``__new__``: copies and
    pickles go through the class's reducer (``engine/pickling.py``)."""
    table = a_table()
    table.set_game(manhattan.new_game(players=2, seed="copy"))
    for again in (deepcopy(table), pickle.loads(pickle.dumps(table))):
        assert again == table and again.encode() == table.encode()
        assert again.seats[1].bot is not table.seats[1].bot
    assert deepcopy(Receiver(3)) == Receiver(3) == pickle.loads(pickle.dumps(Receiver(3)))
    assert Table("t", "n", False, None, {}, "s").seats == [] and Seat(4).kind == "open"


def test_a_record_from_before_owner_and_rated_reads_with_their_defaults() -> None:
    table = a_table()
    raw = msgpack.unpackb(table.encode(), raw=False, strict_map_key=False)
    raw[0] = 1  # (written before format 2, and before these two fields)
    older = msgpack.packb(raw[: RECORD_FIELDS.index("owner") + 1], use_bin_type=True)
    read = Table.decode(older)
    assert read.owner is None and read.rated is False
    assert read.seats == table.seats and read.answers == table.answers


def test_a_remembered_move_reads_back_and_only_the_newest_are_kept() -> None:
    table = a_table()
    table.moves = []  # an older record's list of each move's JSON in msgpack
    for version in range(3, 4 + ANSWERS_PER_SEAT):
        table.moves.append(b"\x80")
        table.remember(1, f"m{version}", version)
    again = Table.decode(table.encode())
    assert again.remembered(1, "m3") is None  # the oldest went (ANSWERS_PER_SEAT)
    newest = 3 + ANSWERS_PER_SEAT
    assert again.remembered(1, f"m{newest}") == (newest, ANSWERS_PER_SEAT + 1)
    assert again.remembered(0, f"m{newest}") is None  # another seat's id is its own
    assert len(table.answers[1]) == ANSWERS_PER_SEAT


def test_an_answer_kept_whole_by_an_older_record_still_answers() -> None:
    table = a_table()
    answer = {"version": 7, "view": {"board": [[7] * 9] * 6}, "events": []}
    table.answers[0] = [
        ["old", msgpack.packb({"version": 7, "events": []})],
        ["zipped", zlib.compress(msgpack.packb(answer), 1)],
    ]
    again = Table.decode(table.encode())
    assert again.remembered(0, "old") == {"version": 7, "events": []}
    assert again.remembered(0, "zipped") == answer


def test_the_event_log_keeps_the_newest_entries_and_reads_them_back() -> None:
    table = a_table()
    for version in range(1, LOG_SIZE + 6):
        table.add_event(version, "chat", {"text": f"#{version}"})
    again = Table.decode(table.encode())
    assert again == table and len(again.log) == LOG_SIZE
    versions = [entry["v"] for entry in again.log]
    assert versions == list(range(6, LOG_SIZE + 6))
    assert again.log[-1] is again.log.newest()  # the newest unpacked once
    assert event_data(again.log[-1]) == {"text": f"#{LOG_SIZE + 5}"}
    assert [e["v"] for e in again.log[-3:]] == versions[-3:] and again.log[0]["type"] == "chat"
    assert again.has_event("chat") and not again.has_event("over")


def test_the_newest_entrys_data_is_read_without_decoding_it_again() -> None:
    """The data a change logged is what its pushes read (``EventLog.data``): the very object
    for the newest entry of the log it was added to, decoded from the entry otherwise (a
    copy's log, a record read back, an older entry)."""
    table = a_table()
    table.add_event(1, "chat", {"text": "older"})
    logged = {"text": "newest", "at": 5}
    table.add_event(2, "chat", logged)
    newest = table.log[-1]
    assert table.log.data(newest) is logged
    assert event_data(newest) == logged  # (what the entry holds)
    assert table.log.data(table.log[0]) == {"text": "older"}
    for other in (table.copy(), Table.decode(table.encode())):
        read = other.log.data(other.log[-1])
        assert read == logged and read is not logged
        assert other.log.data(other.log[-1]) is read  # decoded once for its receivers


def test_a_record_whose_log_holds_maps_reads_as_the_same_events() -> None:
    """Records written before the entries were packed hold each as a map."""
    table = a_table()
    for version in (1, 2):
        table.add_event(version, "joined", {"player": version})
    raw = msgpack.unpackb(table.encode(), raw=False, strict_map_key=False)
    at = 1 + RECORD_FIELDS.index("log")
    raw[at] = [{"v": e["v"], "type": e["type"], "data": e["data"]} for e in table.log]
    raw[0] = 1
    read = Table.decode(msgpack.packb(raw, use_bin_type=True))
    assert read.log == table.log and list(read.log) == list(table.log)
    assert read.encode() == table.encode()


def test_the_moves_are_one_text_and_an_older_records_list_still_reads() -> None:
    state = manhattan.new_game(players=2, seed="moves")
    table, older = a_table(), a_table()
    older.moves = []
    for _ in range(5):
        move = manhattan.legal_moves(state)[0]
        state = manhattan.play(state, move).state
        table.add_move(move.notation)
        older.add_move(move.notation)
    for kept in (table, older):
        again = Table.decode(kept.encode())
        assert again.moves == table.moves  # an older record's notations read as one text
        assert again.move_count() == 5 and again.played() == older.played()
    assert isinstance(table.moves, str) and table.moves.count("\n") == 4
    assert a_table().move_count() == 0 and a_table().played() == []


def test_a_record_of_another_format_is_refused() -> None:
    raw = msgpack.unpackb(a_table().encode(), raw=False, strict_map_key=False)
    raw[0] = 3
    with pytest.raises(ValueError, match="format"):
        Table.decode(msgpack.packb(raw, use_bin_type=True))


def test_format_1_is_written_as_a_version_before_format_2_reads_it() -> None:
    """For a rolling upgrade (``MANHATTAN_TABLE_RECORD_FORMAT=1``): the log's entries as
    maps and the moves as a list of notations, which this version reads back the same."""
    table = a_table()
    state = manhattan.new_game(players=2, seed="one")
    for version in (1, 2, 3):
        move = manhattan.legal_moves(state)[0]
        state = manhattan.play(state, move).state
        table.add_move(move.notation)
        table.add_event(version, "move", {"player": 0})
    raw = msgpack.unpackb(table.encode(1), raw=False, strict_map_key=False)
    assert raw[0] == 1
    log = raw[1 + RECORD_FIELDS.index("log")]
    assert [sorted(entry) for entry in log] == [["data", "type", "v"]] * 3
    assert [entry["v"] for entry in log] == [1, 2, 3]
    moves = raw[1 + RECORD_FIELDS.index("moves")]
    assert moves == table.moves.split("\n") and len(moves) == 3
    again = Table.decode(table.encode(1))
    assert again.log == table.log and again.played() == table.played()
    assert again.encode() == table.encode()  # and on to format 2 with the next write
