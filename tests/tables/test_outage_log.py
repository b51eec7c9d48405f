"""During a Redis outage a table's change notices cannot be published: the log says so once per
kind of failure, with counts, not once per change, and says when Redis is back."""

from __future__ import annotations

import logging

import pytest

from manhattan.sealing import Sealer
from manhattan.store.versioned import make_versioned_store
from manhattan.tables.records import TableRecords, TableSettings
from tests.conftest import RedisServer

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


class Heard:
    """The records' listener: the changes this process heard of."""

    def __init__(self) -> None:
        self.versions: list[int] = []

    def table_changed(self, table_id: str, version: int) -> None:
        self.versions.append(version)


async def test_publishing_during_an_outage_logs_one_line_per_kind(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    store = make_versioned_store(redis_server.url, timeout=0.5, pool_timeout=0.5)
    heard = Heard()
    records = TableRecords(store, Sealer.from_settings("", ()), TableSettings(), heard)
    try:
        await records.changed("0" * 32, 1)  # Redis up: published, nothing logged
        redis_server.stop()
        with caplog.at_level(logging.WARNING, logger="manhattan.tables"):
            for version in range(2, 52):
                await records.changed("0" * 32, version)  # never raises: a change is kept
        assert heard.versions == list(range(1, 52))  # this process hears of each all the same
        notices = [r for r in caplog.records if "table notices (publish)" in r.getMessage()]
        assert len(notices) <= 2, [r.getMessage() for r in notices]  # not 50
        redis_server.start()
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="manhattan.tables"):
            for _ in range(20):  # the pool reconnects within a few tries
                await records.changed("0" * 32, 60)
                if any("is back" in r.getMessage() for r in caplog.records):
                    break
        assert any("table notices (publish) is back" in r.getMessage() for r in caplog.records)
    finally:
        await store.close()
