"""The state JSON Schema says what the decoder reads: an enum of integers is an enum of integers.

``test_codec_format.py`` holds the schema and the decoder to the same verdicts as a property;
these are the cases it found, written out.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

import manhattan
from manhattan.bench.engine import mid_game_state
from manhattan.engine.jsonschema import build_schema
from tests.engine.test_codec_format import VALIDATOR


def test_a_tallest_bonus_written_as_a_float_is_refused_by_the_schema_and_the_decoder() -> None:
    # Found by test_the_schema_and_the_decoder_agree: `tallest` was a bare {"enum": [0, 3]},
    # which JSON Schema matches by value (0.0 == 0), while the decoder refuses a float.
    tree = copy.deepcopy(mid_game_state("fuzz").to_json())
    assert tree["history"], "the example needs a scored round"
    tree["history"][0]["scores"][1]["tallest"] = 0.0
    assert not VALIDATOR.is_valid(tree)
    with pytest.raises(manhattan.InvalidStateError) as caught:
        manhattan.State.from_json(tree)
    assert caught.value.path == "$.history[0].scores[1].tallest"


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for item in node:
            yield from _nodes(item)


def test_every_enum_of_integers_is_typed_integer() -> None:
    enums = [node for node in _nodes(build_schema()) if "enum" in node]
    integers = [node for node in enums if all(type(v) is int for v in node["enum"])]
    assert {"type": "integer", "enum": [0, 3]} in integers
    assert all(node.get("type") == "integer" for node in integers)
