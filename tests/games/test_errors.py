"""The games' own errors: a ``GameError`` is a ``CodedError`` (``wire.codes``), the base the
API's ``ApiError`` shares, so the API renders it as it is; ``BotBudget`` caps a choice within the
wire's bounds."""

from __future__ import annotations

import pytest

from manhattan.api.errors import ApiError, to_api_error
from manhattan.bots import BotChoice
from manhattan.bots.choice import SERVICE_MAX_ITERATIONS, SERVICE_MAX_TIME_MS
from manhattan.games import BotBudget, Caller, GameError, StateRef
from manhattan.wire.codes import HTTP_STATUS, CodedError


def test_a_game_error_is_rendered_as_it_is() -> None:
    error = GameError("STALE_TOKEN", "move from the latest token", path="$.state", index=2)
    assert isinstance(error, CodedError) and not isinstance(error, ApiError)
    assert issubclass(ApiError, CodedError)
    assert to_api_error(error) is error
    assert error.status == HTTP_STATUS["STALE_TOKEN"] == 409
    assert error.to_json() == {
        "code": "STALE_TOKEN",
        "message": "move from the latest token",
        "path": "$.state",
        "index": 2,
    }


def test_references_fail_with_game_errors() -> None:
    with pytest.raises(GameError) as caught:
        Caller.from_headers({"manhattan-player": "7"})
    assert caught.value.code == "INVALID_PLAYER"
    with pytest.raises(GameError) as caught:
        StateRef.from_wire({"id": 3})
    assert (caught.value.code, caught.value.path) == ("INVALID_REQUEST", "$.state.id")


def test_the_budget_defaults_to_the_wire_bounds_and_caps_lower() -> None:
    most = BotChoice("ismcts", iterations=SERVICE_MAX_ITERATIONS, time_ms=SERVICE_MAX_TIME_MS)
    assert BotBudget().admit(most) is most  # no cap set: the wire's bounds
    choice = BotChoice("ismcts", seed=3, iterations=500, time_ms=100)
    assert BotBudget().admit(choice) is choice
    with pytest.raises(GameError) as caught:
        BotBudget(max_iterations=499).admit(choice)
    assert (caught.value.code, caught.value.message) == (
        "INVALID_BOT",
        "iterations is 1 to 499 here",
    )
    with pytest.raises(GameError) as caught:
        BotBudget(max_time_ms=99).admit(choice)
    assert caught.value.message == "timeMs is 1 to 99 here"
