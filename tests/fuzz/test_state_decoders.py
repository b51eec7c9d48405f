"""Fuzzing ``State.from_json`` and ``State.from_msgpack``: whatever comes in, the only exception
is ``manhattan.InvalidStateError``, every call returns within a time bound, and a state that is
accepted re-encodes to itself."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import manhattan
from tests.fuzz.inputs import (
    VALID_STATES,
    json_bombs,
    json_values,
    msgpack_bombs,
    msgpack_inputs,
    mutated_states,
)

#: Seconds one decode may take on a loaded 2-core machine; a real state decodes in ~0.1 ms.
TIME_LIMIT = 2.0
FUZZ = settings(
    max_examples=300,
    deadline=None,  # timing is asserted explicitly, with a bound that tolerates a busy machine
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FUZZ_LONG = settings(FUZZ, max_examples=20_000)


def decode_within_limit(decode: Callable[[Any], manhattan.State], value: Any) -> None:
    started = time.perf_counter()
    try:
        state = decode(value)
    except manhattan.InvalidStateError as error:
        assert error.code == "INVALID_STATE"
        assert error.path.startswith("$"), error.path
    else:
        # Accepted: the state is valid, so its own encoding reads back to the same value.
        assert manhattan.State.from_json(state.to_json()) == state
        assert manhattan.State.from_msgpack(state.to_msgpack()) == state
    elapsed = time.perf_counter() - started
    assert elapsed < TIME_LIMIT, f"decoding took {elapsed:.2f} s"


@pytest.mark.parametrize("state", VALID_STATES, ids=range(len(VALID_STATES)))
def test_the_seed_states_are_valid(state: dict[str, Any]) -> None:
    assert manhattan.State.from_json(state).to_json() == state


@settings(FUZZ, max_examples=120)  # random trees rarely get past the first field: few suffice
@given(json_values)
def test_from_json_on_arbitrary_values(value: Any) -> None:
    decode_within_limit(manhattan.State.from_json, value)


@FUZZ
@given(mutated_states())
def test_from_json_on_mutated_states(value: Any) -> None:
    decode_within_limit(manhattan.State.from_json, value)


@FUZZ
@given(msgpack_inputs())
def test_from_msgpack_on_forged_bytes(data: bytes) -> None:
    decode_within_limit(manhattan.State.from_msgpack, data)


@pytest.mark.parametrize("name", sorted(msgpack_bombs()))
def test_from_msgpack_on_bombs(name: str) -> None:
    decode_within_limit(manhattan.State.from_msgpack, msgpack_bombs()[name])


@pytest.mark.parametrize("name", sorted(json_bombs()))
def test_from_json_on_bombs(name: str) -> None:
    decode_within_limit(manhattan.State.from_json, json_bombs()[name])


@pytest.mark.parametrize("value", [b"\xc0", bytearray(b"\x80"), memoryview(b"\x90"), "text", None])
def test_from_msgpack_on_other_buffer_types(value: Any) -> None:
    decode_within_limit(manhattan.State.from_msgpack, value)


@pytest.mark.parametrize("field", ["round", "firstPlayer", "shuffles"])
def test_huge_int_beyond_the_str_conversion_limit(field: str) -> None:
    decode_within_limit(manhattan.State.from_json, {**VALID_STATES[0], field: 10**5000})


@pytest.mark.slow
@FUZZ_LONG
@given(mutated_states())
def test_from_json_on_mutated_states_long(value: Any) -> None:
    decode_within_limit(manhattan.State.from_json, value)


@pytest.mark.slow
@FUZZ_LONG
@given(msgpack_inputs())
def test_from_msgpack_on_forged_bytes_long(data: bytes) -> None:
    decode_within_limit(manhattan.State.from_msgpack, data)
