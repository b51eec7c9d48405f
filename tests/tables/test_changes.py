"""The tables' one announcer (``tables/changes.py``): every listener hears each change and each
end, in the order given; one listener's failure at an end is logged and the others still hear;
and listeners are given while the parts are put together, never once changes flow."""

from __future__ import annotations

import logging

import pytest

from manhattan.tables.changes import Announcer, TableChanges
from manhattan.tables.model import Seat, Table

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Heard:
    def __init__(self, name: str, log: list[tuple[str, str, object]], *, fail: bool = False):
        self.name, self.log, self.fail = name, log, fail

    def table_changed(self, table_id: str, version: int) -> None:
        self.log.append((self.name, table_id, version))

    async def table_over(self, table: Table) -> None:
        self.log.append((self.name, table.id, "over"))
        if self.fail:
            raise RuntimeError("this listener is broken")


def _table() -> Table:
    return Table(
        id="t-changes",
        name="changes",
        public=True,
        turn_seconds=None,
        setup={},
        seed="changes",
        status="over",
        seats=[Seat(sid=0, kind="bot"), Seat(sid=1, kind="bot")],
    )


def test_each_change_is_told_to_every_listener_in_order() -> None:
    log: list[tuple[str, str, object]] = []
    announcer = Announcer()
    first, second = Heard("first", log), Heard("second", log)
    announcer.hear(first)
    announcer.hear(second)
    listeners: tuple[TableChanges, ...] = announcer.listeners
    assert listeners == (first, second)
    announcer.table_changed("t1", 3)
    assert log == [("first", "t1", 3), ("second", "t1", 3)]


async def test_a_failing_listener_of_ends_is_logged_and_the_rest_still_hear(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log: list[tuple[str, str, object]] = []
    announcer = Announcer()
    announcer.hear(Heard("broken", log, fail=True), Heard("after", log))
    table = _table()
    with caplog.at_level(logging.WARNING, logger="manhattan.tables"):
        await announcer.table_over(table)
    assert log == [("broken", table.id, "over"), ("after", table.id, "over")]
    assert "a listener of ends failed" in caplog.text


def test_listeners_are_given_before_anything_is_told() -> None:
    announcer = Announcer()
    announcer.table_changed("t1", 1)
    with pytest.raises(RuntimeError, match="before the tables announce"):
        announcer.hear(Heard("late", []))
