"""Warnings during an outage (``manhattan.store.outage``): one line per kind with a count."""

from __future__ import annotations

import logging

import pytest

from manhattan.store.outage import OutageLog


def test_an_outage_is_one_line_per_kind_and_a_summary(caplog: pytest.LogCaptureFixture) -> None:
    now = [0.0]
    outage = OutageLog(logging.getLogger("test.outage"), "thing", every=30, clock=lambda: now[0])
    caplog.set_level(logging.WARNING, "test.outage")
    for _ in range(500):
        outage.failed(ConnectionError("refused"))
    for _ in range(20):
        outage.failed(TimeoutError("slow"))
    assert [r.getMessage() for r in caplog.records] == [
        "thing unavailable (ConnectionError)",
        "thing unavailable (TimeoutError)",
    ]
    now[0] = 31.0
    outage.failed(ConnectionError("refused"))  # a periodic report while it lasts
    now[0] = 40.0
    outage.recovered()
    outage.recovered()  # nothing more: it is over
    assert [r.getMessage() for r in caplog.records][2:] == [
        "thing still unavailable after 31 s",
        "thing unavailable (ConnectionError): 500 more failures",
        "thing unavailable (TimeoutError): 19 more failures",
        "thing is back after 40.0 s",
        "thing was unavailable: 501 failures (ConnectionError)",
        "thing was unavailable: 20 failures (TimeoutError)",
    ]
    assert not outage.active
