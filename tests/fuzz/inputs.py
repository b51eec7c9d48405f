"""Hostile inputs for the decoders: arbitrary JSON-like values, valid states with one part
replaced, msgpack that is truncated, flipped or forged, and hand-made size and depth bombs.

Mutating valid states reaches the deep validation code (conservation, turn order, history) that a
purely random value never gets past the first missing field to exercise.
"""

from __future__ import annotations

import copy
import struct
from typing import Any

import msgpack
from hypothesis import strategies as st

import manhattan
from manhattan.bench.engine import mid_game_state

#: Below Python's 4300-digit int <-> str limit: hypothesis's reports and json.dumps in the wire
#: tests would fail on larger ones; test_huge_int_beyond_the_str_conversion_limit covers those.
LARGEST_GENERATED_INT = 10**4000


def valid_states() -> list[dict[str, Any]]:
    """A few reachable states in different phases, variants and player counts."""
    states = [
        manhattan.new_game(players=4, seed="fuzz"),
        manhattan.new_game(players=2, seed="fuzz2", variants={"monster": "godzilla"}),
        manhattan.new_game(
            players=3,
            seed="fuzz3",
            edition="modern",
            variants={"urbanRules": True, "antiTrust": True},
        ),
        mid_game_state("fuzz"),
    ]
    return [s.to_json() for s in states]


VALID_STATES = valid_states()

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([-1, 0, 1, 2, 3, 4, 5, 8, 9, 24, 45, 2**31, 2**63 - 1, 2**64, -(2**63)]),
    st.sampled_from([10**19, -(10**100), 10**1000, LARGEST_GENERATED_INT]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(
        [
            "select",
            "build",
            "over",
            "classic",
            "modern",
            "godzilla",
            "baby",
            "manhattan/state@1",
            "",
            "\x00",
            "\ud800",
        ]
    ),
)

json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=8),
        st.dictionaries(st.text(max_size=12), children, max_size=8),
    ),
    max_leaves=40,
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a node in a JSON-like tree (keys and indexes)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += paths(child, (*prefix, index))
    return found


def replace_at(tree: Any, path: tuple[Any, ...], make: Any) -> Any:
    """``tree`` with the node at ``path`` replaced by ``make(old)``, or deleted when
    ``make`` returns the ``DELETE`` marker (only under an object or a list)."""
    if not path:
        return make(tree)
    parent = tree
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    new = make(parent[last])
    if new is DELETE:
        del parent[last]
    else:
        parent[last] = new
    return tree


DELETE = object()


@st.composite
def mutated_states(draw: st.DrawFn) -> Any:
    """A valid state with one to three nodes replaced, deleted, wrapped, grown or retyped."""
    tree = copy.deepcopy(draw(st.sampled_from(VALID_STATES)))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths(tree)))
        kind = draw(
            st.sampled_from(
                ["replace", "delete", "wrap", "duplicate", "extra_key", "increment", "to_float"]
            )
        )
        if kind == "replace":
            value = draw(json_values)
            tree = replace_at(tree, path, lambda old, v=value: v)
        elif kind == "delete" and path:
            tree = replace_at(tree, path, lambda old: DELETE)
        elif kind == "wrap":
            tree = replace_at(tree, path, lambda old: [old])
        elif kind == "duplicate":
            tree = replace_at(tree, path, lambda old: old * 2 if isinstance(old, list) else old)
        elif kind == "extra_key":
            key = draw(st.text(max_size=10))
            tree = replace_at(
                tree, path, lambda old, k=key: {**old, k: 0} if isinstance(old, dict) else old
            )
        elif kind == "increment":
            delta = draw(st.sampled_from([-1, 1, 24, -(2**63)]))
            tree = replace_at(
                tree,
                path,
                lambda old, d=delta: (
                    old + d if isinstance(old, int) and not isinstance(old, bool) else old
                ),
            )
        elif kind == "to_float":
            tree = replace_at(
                tree,
                path,
                lambda old: (
                    float(old)
                    if isinstance(old, int) and not isinstance(old, bool) and abs(old) < 2**1000
                    else old
                ),
            )
    return tree


def packable(value: Any) -> bool:
    try:
        msgpack.packb(value)
    except (OverflowError, TypeError, ValueError):
        return False
    return True


@st.composite
def msgpack_inputs(draw: st.DrawFn) -> bytes:
    """Bytes for ``State.from_msgpack``: forged, truncated, flipped, extended or random."""
    kind = draw(st.sampled_from(["state", "mutated", "truncated", "flipped", "extended", "random"]))
    base: bytes = msgpack.packb(draw(st.sampled_from(VALID_STATES)))
    if kind == "random":
        return draw(st.binary(max_size=2048))
    if kind == "mutated":
        tree = draw(mutated_states())
        return msgpack.packb(tree, use_bin_type=True) if packable(tree) else base[:-1]
    if kind == "truncated":
        return base[: draw(st.integers(0, len(base) - 1))]
    if kind == "flipped":
        data = bytearray(base)
        for _ in range(draw(st.integers(1, 8))):
            index = draw(st.integers(0, len(data) - 1))
            data[index] = draw(st.integers(0, 255))
        return bytes(data)
    if kind == "extended":
        return base + draw(st.binary(min_size=1, max_size=64))
    return base


def msgpack_bombs() -> dict[str, bytes]:
    """Headers that promise far more than they deliver, and nesting far past any real state."""
    return {
        "array32 of 2^32-1 elements": b"\xdd" + struct.pack(">I", 2**32 - 1),
        "map32 of 2^32-1 pairs": b"\xdf" + struct.pack(">I", 2**32 - 1),
        "str32 of 4 GiB": b"\xdb" + struct.pack(">I", 2**32 - 1) + b"a" * 16,
        "bin32 of 4 GiB": b"\xc6" + struct.pack(">I", 2**32 - 1),
        "ext32 of 4 GiB": b"\xc9" + struct.pack(">I", 2**32 - 1) + b"\x01",
        "array nested 100k deep": b"\x91" * 100_000 + b"\xc0",
        "map nested 100k deep": b"\x81\xa1k" * 100_000 + b"\xc0",
        "4096-element array of 4096-element arrays header": b"\xdc\x10\x00" + b"\xdc\x10\x00" * 4,
        "one MiB of nil": b"\xdc\xff\xff" + b"\xc0" * 65_535,
        "over the size limit": b"\xc0" * ((1 << 20) + 1),
        "uint64 max": b"\xcf" + b"\xff" * 8,
        "int64 min": b"\xd3\x80" + b"\x00" * 7,
        "float nan": b"\xcb\x7f\xf8" + b"\x00" * 6,
        "timestamp ext": b"\xd6\xff\x00\x00\x00\x00",
        "empty": b"",
        "non-str map key": b"\x81\x01\x02",
        "bytes map key": b"\x81\xc4\x01k\xc0",
    }


def json_bombs() -> dict[str, Any]:
    """Python values as a JSON decoder would hand them over, but enormous or deep."""
    deep: Any = None
    for _ in range(50_000):
        deep = [deep]
    deep_map: Any = None
    for _ in range(50_000):
        deep_map = {"board": deep_map}
    wide_state = copy.deepcopy(VALID_STATES[0])
    wide_state["deck"] = list(range(1_000_000))
    wide_hands = copy.deepcopy(VALID_STATES[0])
    wide_hands["hands"] = [[0] * 100_000] * 4
    many_keys = {str(i): i for i in range(200_000)}
    return {
        "list nested 50k deep": deep,
        "object nested 50k deep": deep_map,
        "deep board": {**VALID_STATES[0], "board": deep},
        "deep rules": {**VALID_STATES[0], "rules": deep_map},
        "a million-card deck": wide_state,
        "hands of 100k cards": wide_hands,
        "200k unknown keys": many_keys,
        "200k keys with the state's": {**VALID_STATES[0], **many_keys},
        "seed of 10 MB": {**VALID_STATES[0], "seed": "f" * 10_000_000},
        "history of 1e5 rounds": {**VALID_STATES[0], "history": [{}] * 100_000},
    }
