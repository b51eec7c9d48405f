"""The parsed-state memo for inline states: keyed by the exact format (or the exact bytes of a
body that is nothing but the state), no memoized failures."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from typing import Any

import pytest

import manhattan
from manhattan.engine.codec import read_state_format
from manhattan.games import GameError, Operations, StateRef, StateText
from manhattan.games.memo import KEPT_TEXT_BYTES, DerivedResults
from manhattan.sealing import Sealer
from manhattan.store.cache import MemoryBackend, StateCache

pytestmark = pytest.mark.anyio


def _moves_body(moves: Sequence[manhattan.Move]) -> bytes:
    return json.dumps({"moves": [m.to_json() for m in moves]}).encode()


def _operations() -> Operations:
    cache = StateCache(MemoryBackend(), rules_version=manhattan.RULES_VERSION)
    return Operations(cache, Sealer.from_settings("", ()))


async def test_the_memo_tells_apart_what_json_dumps_would_not(mid_json: dict[str, Any]) -> None:
    """The memo is keyed by the state's format (strict: 1.0 and true are not integers), so a
    value that differs only in its type is refused, never answered from the memo."""
    ops = _operations()
    await ops.resolve(StateRef(json=mid_json))
    for value in (float(mid_json["shuffles"]), bool(mid_json["shuffles"])):
        with pytest.raises(manhattan.InvalidStateError) as caught:
            await ops.resolve(StateRef(json=dict(mid_json, shuffles=value)))
        assert caught.value.path == "$.shuffles"


async def test_the_same_object_parses_once_and_a_changed_one_again(
    mid_json: dict[str, Any],
) -> None:
    ops = _operations()
    first = (await ops.resolve(StateRef(json=mid_json))).state
    again = (await ops.resolve(StateRef(json=copy.deepcopy(mid_json)))).state
    assert again is first
    changed = copy.deepcopy(mid_json)
    changed["deck"] = list(reversed(changed["deck"]))  # a different (valid) draw order
    other = (await ops.resolve(StateRef(json=changed))).state
    assert other is not first
    assert other == manhattan.State.from_json(changed) != first


async def test_invalid_states_are_not_memoized(mid_json: dict[str, Any]) -> None:
    ops = _operations()
    broken = copy.deepcopy(mid_json)
    broken["round"] = "two"
    for _ in range(2):
        with pytest.raises((GameError, manhattan.InvalidStateError)):
            await ops.resolve(StateRef(json=broken))


async def test_legal_moves_are_kept_by_the_parsed_state_and_always_right(
    mid_json: dict[str, Any],
) -> None:
    ops = _operations()
    expected = manhattan.legal_moves(manhattan.State.from_json(mid_json))
    first = await ops.legal_moves(StateRef(json=mid_json))
    first.clear()  # a caller's list is its own: clearing it changes nothing kept
    again = await ops.legal_moves(StateRef(json=copy.deepcopy(mid_json)))
    assert again == expected
    body = await ops.legal_moves_encoded(StateRef(json=mid_json), "legal", _moves_body)
    again_body = await ops.legal_moves_encoded(
        StateRef(json=copy.deepcopy(mid_json)), "legal", _moves_body
    )
    assert again_body is body  # kept by the parsed state, not encoded again
    assert json.loads(body) == {"moves": [m.to_json() for m in expected]}
    changed = copy.deepcopy(mid_json)
    changed["toMove"] = (changed["toMove"] + 1) % changed["rules"]["players"]
    changed["hands"] = [changed["hands"][-1], *changed["hands"][:-1]]
    other = manhattan.State.from_json(changed)
    assert await ops.legal_moves(StateRef(json=changed)) == manhattan.legal_moves(other)


def test_derived_results_need_the_very_state_and_stay_bounded(mid_json: dict[str, Any]) -> None:
    memo = DerivedResults(2)
    calls: list[manhattan.State] = []

    def compute(state: manhattan.State) -> int:
        calls.append(state)
        return len(calls)

    states = [manhattan.State.from_json(copy.deepcopy(mid_json)) for _ in range(3)]
    assert states[0] == states[1] and states[0] is not states[1]
    assert memo.get("n", states[0], compute) == 1
    assert memo.get("n", states[0], compute) == 1  # the same object: kept
    assert memo.get("n", states[1], compute) == 2  # an equal state parsed apart: computed
    assert memo.get("m", states[1], compute) == 3  # another kind of result
    assert memo.get("n", states[0], compute) == 4  # dropped: only 2 are kept
    assert len(calls) == 4


def _text_ref(state_json: dict[str, Any], text: bytes | None = None) -> StateRef:
    """A reference as REST makes one of a body that is nothing but the state."""
    body = text if text is not None else json.dumps({"state": state_json}).encode()
    return StateRef(json=StateText(read_state_format(state_json), body))


async def test_a_body_sent_again_is_found_by_its_bytes(mid_json: dict[str, Any]) -> None:
    ops = _operations()
    body = json.dumps({"state": mid_json}).encode()
    assert ops.parsed_text(body) is None
    state = (await ops.resolve(_text_ref(mid_json, body))).state
    assert state == manhattan.State.from_json(mid_json)
    assert ops.parsed_text(bytes(body)) is state  # the same bytes, another object
    assert (await ops.resolve(StateRef(json=state))).state is state
    # Other bytes of the same state are not the same body: parsed again, to an equal state.
    spaced = json.dumps({"state": mid_json}, indent=1).encode()
    assert ops.parsed_text(spaced) is None
    again = (await ops.resolve(_text_ref(mid_json, spaced))).state
    assert again == state and again is not state


async def test_a_refused_body_is_not_kept(mid_json: dict[str, Any]) -> None:
    ops = _operations()
    broken = dict(mid_json, scores=[0] * len(mid_json["scores"]))  # the history says otherwise
    body = json.dumps({"state": broken}).encode()
    for _ in range(2):
        with pytest.raises(manhattan.InvalidStateError):
            await ops.resolve(_text_ref(broken, body))
        assert ops.parsed_text(body) is None


async def test_bodies_kept_are_bounded(mid_json: dict[str, Any]) -> None:
    cache = StateCache(MemoryBackend(), rules_version=manhattan.RULES_VERSION)
    ops = Operations(cache, Sealer.from_settings("", ()), parsed_states=2)
    bodies = [json.dumps({"state": mid_json}, indent=i).encode() for i in range(3)]
    for body in bodies:
        await ops.resolve(_text_ref(mid_json, body))
    assert [ops.parsed_text(b) is not None for b in bodies] == [False, True, True]


async def test_strict_mode_refuses_a_body_before_reading_it(mid_json: dict[str, Any]) -> None:
    cache = StateCache(MemoryBackend(), rules_version=manhattan.RULES_VERSION)
    ops = Operations(cache, Sealer.from_settings("", ()), strict_states=True)
    body = json.dumps({"state": mid_json}).encode()
    with pytest.raises(GameError) as refused:
        await ops.resolve(_text_ref(mid_json, body))
    assert refused.value.code == "STATE_JSON_REFUSED"
    assert ops.parsed_text(body) is None


async def test_a_long_body_is_parsed_and_not_kept(mid_json: dict[str, Any]) -> None:
    """A valid state padded to any length the body limit allows is not held by the memo."""
    ops = _operations()
    padded = json.dumps({"state": mid_json}).encode() + b" " * KEPT_TEXT_BYTES
    state = (await ops.resolve(_text_ref(mid_json, padded))).state
    assert state == manhattan.State.from_json(mid_json)
    assert ops.parsed_text(padded) is None
