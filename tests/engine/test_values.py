"""The engine's frozen values: they write their own ``__init__`` so that mypyc
compiles a native constructor, and must still behave as the frozen dataclasses they are, in
both builds: assigning or deleting an attribute raises, equality, hashing, ``repr`` and
``dataclasses.replace`` work as ``dataclass`` defines them. And the canonical msgpack, now
written by msgspec from the state's tuples, is byte for byte ``msgpack.packb(to_json())``."""

from __future__ import annotations

import dataclasses
import random
import types

import msgpack
import pytest

import manhattan
from manhattan.engine import Breakdown, Move, RoundRecord, Rules, State, Urban, Variants, View
from manhattan.engine.build import is_compiled
from manhattan.engine.decoding import StateFields
from manhattan.engine.events import Event
from manhattan.engine.play import Transition

#: The values every move and every decoded state builds: their constructors must be native.
#: (Not ``Rules`` and its ``Variants``: built once per ruleset, they keep ``dataclass``'s.)
HOT = (
    Breakdown,
    Event,
    Move,
    RoundRecord,
    State,
    StateFields,
    Transition,
    Urban,
    View,
)


def _game(seed: int, *, variants: dict[str, object] | None = None, moves: int = 10_000) -> State:
    state = manhattan.new_game(
        players=3, seed=f"values-{seed}", edition="modern", variants=variants or {}
    )
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_over:
            break
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
    return state


def _values() -> list[object]:
    state = _game(1, variants={"urbanRules": True}, moves=40)
    step = manhattan.play(state, manhattan.legal_moves(state)[0])
    return [
        state,
        state.rules,
        state.rules.variants,
        state.urban,
        state.history[0],
        state.history[0].scores[0],
        manhattan.legal_moves(state)[0],
        step,
        step.events[0],
        manhattan.view(state, 0),
    ]


@pytest.mark.parametrize("cls", HOT, ids=lambda cls: cls.__name__)
def test_the_constructor_is_written_in_the_source(cls: type) -> None:
    """Compiled, ``__init__`` is mypyc's (not a Python function); interpreted, it is the one
    written in the module (``dataclass``'s own would be compiled from a string)."""
    init = cls.__init__  # type: ignore[misc]
    if is_compiled(cls.__module__):
        assert not isinstance(init, types.FunctionType)
    else:
        assert init.__code__.co_filename.endswith(".py"), init.__code__.co_filename


def test_values_are_frozen() -> None:
    for value in _values():
        name = dataclasses.fields(value)[0].name  # type: ignore[arg-type]
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, name, None)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(value, name)
        assert getattr(value, name) is not None or name == "to_move"


def test_equality_hashing_repr_and_replace_are_the_dataclass_ones() -> None:
    for value in _values():
        fields = dataclasses.fields(value)  # type: ignore[arg-type]
        copy = dataclasses.replace(value)  # type: ignore[type-var]
        assert copy == value and (copy != value) is False and copy is not value
        if not isinstance(value, Event | Transition):  # they hold a dict, a list
            assert hash(copy) == hash(value)
        shown = ", ".join(f"{f.name}={getattr(value, f.name)!r}" for f in fields if f.repr)
        assert repr(value) == f"{type(value).__name__}({shown})"


def test_move_equality_ignores_player_and_block() -> None:
    move = Move.build(4, 3, 2, 0)
    placed = move.with_context(1, (3, 1, 1))
    assert placed == move and hash(placed) == hash(move) and placed.player == 1
    assert {move: 1}[placed] == 1
    assert Move.build(4, 3, 2, 1) != move and Move.forfeit(4, 2, 0) != move
    assert move != "b4n3f2c0" and move.__eq__("b4n3f2c0") is NotImplemented
    assert hash(move) == hash(("build", 4, 3, 2, 0, None))  # what ``dataclass`` hashes


def test_rules_lookups_are_derived_again_by_replace() -> None:
    rules = Rules("classic", 3, 6, 4, ((0,), (1,), (2,)), (0, 1, 2))
    assert rules.variants == Variants() and rules.order == (0, 1, 2)
    seated = dataclasses.replace(rules, seats=(2, 0, 1))
    assert seated.order == (1, 2, 0) and seated.next_player(0) == 1 and seated != rules


@pytest.mark.parametrize(
    "variants",
    [{}, {"monster": "godzilla"}, {"monster": "baby", "urbanRules": True}, {"antiTrust": True}],
    ids=["plain", "godzilla", "baby-urban", "anti-trust"],
)
def test_msgpack_is_packb_of_to_json_in_every_state_of_a_game(variants: dict[str, object]) -> None:
    state = manhattan.new_game(players=4, seed="canonical", edition="modern", variants=variants)
    rng = random.Random(7)
    while True:
        blob = manhattan.engine.codec.state_to_msgpack(state)
        assert blob == msgpack.packb(state.to_json())
        assert manhattan.engine.codec.state_from_msgpack(blob) == state
        if state.is_over:
            break
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
    assert state.history and state.scores
