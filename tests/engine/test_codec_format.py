"""The state's JSON Schema and its decoder agree, as a property.

Both derive from ``engine/formats.py``: the schema is msgspec's rendering of the format classes,
the decoder converts into them. Here the published schema (read by an independent validator,
``jsonschema``) and the decoder's structural pass (``codec.read_state_format``) must give the
same verdict on valid states changed in one to three places; and whatever the whole decoder
accepts, the schema accepts (the engine's own checks only narrow it), while whatever the schema
refuses the decoder refuses as INVALID_STATE with a path.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
from typing import Any, get_args

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import manhattan
from manhattan.engine import codec
from manhattan.engine.errors import InvalidStateError
from manhattan.engine.formats import AnyMove, RulesFormat, VariantsFormat
from manhattan.engine.jsonschema import build_schema
from manhattan.engine.moves import MOVE_TYPES
from manhattan.engine.validation import make_rules
from tests.fuzz.inputs import DELETE, VALID_STATES, mutated_states, paths, replace_at

SCHEMA = build_schema()
# JSON Schema calls 4.0 an integer; the decoder, like msgspec, wants the number written as one.
Strict = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: type(value) is int
    ),
)
VALIDATOR = Strict(SCHEMA)
MOVES = Strict({**SCHEMA, "$ref": "#/$defs/move"})
VIEWS = Strict({**SCHEMA, "$ref": "#/$defs/view"})

# Values next to the bounds and types the formats state, put in place of any node.
NEAR = [-1, 0, 1, 2, 3, 4, 5, 6, 8, 9, 11, 12, 24, 25, 45, 46, 54, 55, 96, 97, 1000, 1001]
NEAR += [1 << 30, (1 << 30) + 1, 2**64, True, False, 1.0, 3.0, None, "1", "", [], {}, [1, 1]]


@st.composite
def section_mutants(draw: st.DrawFn) -> Any:
    """A valid state with one to three nodes anywhere changed."""
    tree = copy.deepcopy(draw(st.sampled_from(VALID_STATES)))
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(sorted(tree)))
        path = draw(st.sampled_from([(key, *p) for p in paths(tree[key])]))
        change = draw(st.sampled_from(["near", "near", "near", "delete", "duplicate"]))
        if change == "near":
            value = draw(st.integers(-2, 10) | st.sampled_from(NEAR))
            tree = replace_at(tree, path, lambda old, v=value: copy.deepcopy(v))
        elif change == "delete":
            tree = replace_at(tree, path, lambda old: DELETE)
        else:
            tree = replace_at(tree, path, lambda old: old * 2 if isinstance(old, list) else old)
    return tree


def _structurally_valid(tree: Any) -> bool:
    try:
        codec.read_state_format(tree)
    except InvalidStateError as exc:
        assert exc.path.startswith("$"), exc.path
        return False
    return True


@settings(max_examples=800, deadline=None)
@given(st.one_of(mutated_states(), section_mutants()))
def test_the_schema_and_the_decoder_agree(tree: Any) -> None:
    schema_ok = VALIDATOR.is_valid(tree)
    assert schema_ok == _structurally_valid(tree), list(VALIDATOR.iter_errors(tree))[:1]
    try:
        manhattan.State.from_json(tree)
    except InvalidStateError:
        return
    assert schema_ok  # the engine's checks only narrow what the schema allows


@pytest.mark.parametrize("index", range(0, len(VALID_STATES), max(1, len(VALID_STATES) // 12)))
def test_states_views_and_moves_the_engine_writes_fit_the_schema(index: int) -> None:
    state = manhattan.State.from_json(VALID_STATES[index])
    VALIDATOR.validate(state.to_json())
    for player in range(state.rules.players):
        VIEWS.validate(manhattan.view(state, player).to_json())
    for move in manhattan.legal_moves(state):
        MOVES.validate(move.to_json())


def test_msgpack_states_are_read_through_the_same_format() -> None:
    state = manhattan.State.from_json(VALID_STATES[0])
    assert manhattan.State.from_msgpack(state.to_msgpack()) == state
    bad = dict(state.to_json(), round=0)
    with pytest.raises(InvalidStateError) as caught:
        manhattan.State.from_msgpack(__import__("msgpack").packb(bad))
    assert caught.value.path == "$.round"
    with pytest.raises(InvalidStateError) as caught:
        manhattan.State.from_msgpack(b"\xc1")
    assert caught.value.path == "$"


def test_structural_errors_name_the_path_and_the_field() -> None:
    tree = copy.deepcopy(VALID_STATES[0])
    tree["board"][2].pop()
    with pytest.raises(InvalidStateError) as caught:
        manhattan.State.from_json(tree)
    assert caught.value.path == "$.board[2]"
    assert "length" in caught.value.reason
    tree = copy.deepcopy(VALID_STATES[0])
    del tree["rules"]["colors"]
    with pytest.raises(InvalidStateError) as caught:
        manhattan.State.from_json(tree)
    assert (caught.value.path, caught.value.reason) == ("$.rules.colors", "missing field")


MOVE_VALUES = st.integers(-1, 26) | st.sampled_from([None, True, 1.0, "1", 2**64, [], [0, 1, 2]])
MOVE_KEYS = ["type", "color", "pieces", "card", "neighborhood", "floors", "player", "block"]


@st.composite
def move_objects(draw: st.DrawFn) -> Any:
    """Moves the engine wrote, with one to three fields changed, dropped or added."""
    state = manhattan.State.from_json(draw(st.sampled_from(VALID_STATES)))
    moves = manhattan.legal_moves(state) or [manhattan.Move.parse("x0f1")]
    obj = draw(st.sampled_from(moves)).to_json()
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from([*MOVE_KEYS, "notation", "extra"]))
        if draw(st.booleans()) and key in obj:
            del obj[key]
        elif key == "type":
            obj[key] = draw(st.sampled_from(["select", "build", "forfeit", "pass"]))
        elif key in ("pieces", "block"):
            obj[key] = draw(st.lists(MOVE_VALUES, min_size=2, max_size=5))
        else:
            obj[key] = draw(MOVE_VALUES | st.text(max_size=3))
    return obj


@settings(max_examples=400, deadline=None)
@given(move_objects())
def test_the_move_schema_and_move_reading_agree(obj: Any) -> None:
    try:
        manhattan.Move.from_json(obj)
    except manhattan.IllegalMoveError as exc:
        assert exc.code == "INVALID_MOVE"
        assert not MOVES.is_valid(obj)
    else:
        assert MOVES.is_valid(obj), list(MOVES.iter_errors(obj))[:1]


def test_the_move_formats_are_the_move_types() -> None:
    tags = [cls.__struct_config__.tag for cls in get_args(AnyMove)]
    assert tags == list(MOVE_TYPES)


def test_the_rules_format_names_make_rules_arguments_and_the_variants_fields() -> None:
    """``decoding`` reads a ruleset by name: each field of ``RulesFormat`` is a keyword of
    ``make_rules``, and ``VariantsFormat``'s fields are ``Variants``' own."""
    keywords = inspect.signature(make_rules).parameters
    assert all(
        keywords[name].kind is inspect.Parameter.KEYWORD_ONLY
        for name in RulesFormat.__struct_fields__
    )
    variants = tuple(f.name for f in dataclasses.fields(manhattan.Variants))
    assert VariantsFormat.__struct_fields__ == variants
