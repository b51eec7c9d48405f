"""Engine values pickle and copy alike in both builds: a ``Move`` crosses the bot
pool's pipe in a pickle, and the compiled build's frozen classes refused ``setattr``."""

from __future__ import annotations

import copy
import copyreg
import pickle
import random
import sys

import manhattan
from manhattan.engine.pickling import frozen_dataclasses


def _values() -> list[object]:
    rng = random.Random(3)
    state = manhattan.new_game(players=3, seed="pickle", variants={"monster": "godzilla"})
    while state.round < 2 or state.phase != "build":
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
    move = manhattan.legal_moves(state)[0]
    step = manhattan.play(state, move)
    return [
        state,
        state.rules,
        state.rules.variants,
        move,
        step,
        *step.events,
        *state.history,
        manhattan.view(state, 1),
        manhattan.score_round(state),
        manhattan.check_move(state, manhattan.Move.parse(move.notation)),
    ]


def test_engine_values_survive_pickle_and_copy() -> None:
    for value in _values():
        assert pickle.loads(pickle.dumps(value)) == value, type(value)
        assert copy.deepcopy(value) == value and copy.copy(value) == value


def test_every_frozen_engine_value_has_its_reducer() -> None:
    engine = [m for name, m in sys.modules.items() if name.startswith("manhattan.engine.")]
    classes = frozen_dataclasses(engine)
    assert manhattan.State in classes and manhattan.Move in classes
    assert all(cls in copyreg.dispatch_table for cls in classes)
