"""The tests' throwaway Redis is its own: a chosen port that a process beside the test took
first (another test's Redis, say) moves it to another port, never onto the other server."""

from __future__ import annotations

import pytest

from tests.conftest import RedisServer
from tests.ports import redis_pid

pytestmark = pytest.mark.redis


def test_a_taken_port_moves_the_first_start_and_an_answer_from_another_redis_is_not_taken() -> None:
    first = RedisServer()
    first.start()
    second = RedisServer()
    second.port = first.port  # as if the other server took the port between choice and start
    try:
        second.start()
        assert second.port != first.port and second.process is not None
        assert redis_pid(second.port) == second.process.pid
        assert first.process is not None and redis_pid(first.port) == first.process.pid
        # a restart keeps the port its URL names
        url = second.url
        second.stop()
        second.start()
        assert second.url == url and redis_pid(second.port) == second.process.pid
    finally:
        second.stop()
        first.stop()
