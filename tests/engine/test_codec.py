"""DESIGN §2 state format: validation on the way in (INVALID_STATE with the JSON path of the
first fault), the example states, JSON and msgpack round trips, state ids, move notation."""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import manhattan
from manhattan.engine.decoding import StateFields, read_fields, read_state_format
from tests.engine.positions import position_json

EXAMPLES = sorted((Path(__file__).parent / "golden" / "examples").glob("*.json"))
Json = dict[str, Any]


def _midgame(players: int = 4, steps: int = 30, **setup: Any) -> manhattan.State:
    state = manhattan.new_game(players=players, seed="codec", **setup)
    rng = random.Random(7)
    for _ in range(steps):
        state = manhattan.apply_move(state, rng.choice(manhattan.legal_moves(state)))
    return state


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_design_s2_example_states_load(path: Path) -> None:
    """DESIGN §2: the shared example states are valid; to_json gives them back (hands sorted:
    a hand is a multiset) and legal moves exist."""
    obj = json.loads(path.read_text())
    state = manhattan.State.from_json(obj)
    again = state.to_json()
    assert [sorted(h) for h in obj["hands"]] == [sorted(h) for h in again["hands"]]
    assert {k: v for k, v in obj.items() if k != "hands"} == {
        k: v for k, v in again.items() if k != "hands"
    }
    assert manhattan.legal_moves(state)


def _set(path: list[Any], value: Any) -> Callable[[Json], None]:
    def mutate(obj: Json) -> None:
        target = obj
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def _delete(key: str) -> Callable[[Json], None]:
    return lambda obj: obj.pop(key)


def _add(key: str) -> Callable[[Json], None]:
    return _set([key], 1)


CORRUPTIONS: list[tuple[str, Callable[[Json], None], str]] = [
    ("format", _set(["format"], "manhattan/state@2"), "$.format"),
    ("unknown top-level field", _add("extra"), "$.extra"),
    ("missing field", _delete("deck"), "$.deck"),
    ("round as a string", _set(["round"], "1"), "$.round"),
    ("round as a boolean", _set(["round"], True), "$.round"),
    ("round zero", _set(["round"], 0), "$.round"),
    ("round beyond the rules", _set(["round"], 99), "$.round"),
    ("unknown phase", _set(["phase"], "scoring"), "$.phase"),
    ("first player out of range", _set(["firstPlayer"], 4), "$.firstPlayer"),
    ("toMove out of range", _set(["toMove"], -1), "$.toMove"),
    ("edition", _set(["rules", "edition"], "deluxe"), "$.rules.edition"),
    ("players", _set(["rules", "players"], 5), "$.rules.players"),
    ("unknown variant", _set(["rules", "variants", "turbo"], True), "$.rules.variants.turbo"),
    (
        "variant not boolean",
        _set(["rules", "variants", "antiTrust"], 1),
        "$.rules.variants.antiTrust",
    ),
    ("unknown monster", _set(["rules", "variants", "monster"], "kong"), "$.rules.variants.monster"),
    ("duplicate seats [D1]", _set(["rules", "seats"], [0, 0, 1, 2]), "$.rules.seats"),
    ("missing rules field", lambda o: o["rules"].pop("colors"), "$.rules.colors"),
    ("board not 6 neighborhoods", lambda o: o["board"].pop(), "$.board"),
    ("neighborhood not 9 blocks", lambda o: o["board"][2].pop(), "$.board[2]"),
    ("piece of an unknown color", _set(["board", 1, 4], [[7, 1]]), "$.board[1][4][0][0]"),
    ("piece of 5 floors", _set(["board", 1, 4], [[0, 5]]), "$.board[1][4][0][1]"),
    ("piece not a pair", _set(["board", 1, 4], [[0]]), "$.board[1][4][0]"),
    ("supply count negative", _set(["supply", 2, 1], -1), "$.supply[2][1]"),
    ("supply count as float", _set(["supply", 2, 1], 1.0), "$.supply[2][1]"),
    ("supply for 5 colors", lambda o: o["supply"].append([0, 0, 0, 0]), "$.supply"),
    ("hand of 3 cards", lambda o: o["hands"][1].pop(), "$.hands[1]"),
    ("card position 9", _set(["hands", 0, 0], 9), "$.hands[0][0]"),
    ("discard card out of range", lambda o: o["discard"].append(-2), "$.discard"),
    ("scores not matching history", _set(["scores", 0], 1000), "$.scores[0]"),
    ("monster without the variant", _set(["monster"], [0, 1, 1]), "$.monster"),
    (
        "urban without urbanRules",
        _set(["urban"], {"deck": [], "revealed": [], "current": None}),
        "$.urban",
    ),
    ("seed empty", _set(["seed"], ""), "$.seed"),
    ("shuffles negative", _set(["shuffles"], -1), "$.shuffles"),
    (
        "history entry for an unplayed round",
        lambda o: o["history"].append(
            {
                "round": 99,
                "scores": [{"buildings": 0, "majorities": [], "tallest": 0, "urban": 0, "total": 0}]
                * 4,
            }
        ),
        "$.history",
    ),
]


def test_design_s2_a_piece_of_a_color_the_game_lacks_is_refused_at_its_path() -> None:
    """DESIGN §2: a 3-player game has colors 0 to 2; a piece of color 3 (a color the format
    allows) is refused where it stands, before the pieces are counted."""
    obj = copy.deepcopy(_midgame(players=3).to_json())
    n, b = next((n, b) for n in range(6) for b in range(9) if obj["board"][n][b])
    obj["board"][n][b].append([3, 1])
    depth = len(obj["board"][n][b]) - 1
    with pytest.raises(manhattan.InvalidStateError) as err:
        manhattan.State.from_json(obj)
    assert err.value.path == f"$.board[{n}][{b}][{depth}][0]"
    assert err.value.message.endswith("a color is 0 to 2")


def test_design_s2_a_hand_is_read_as_a_sorted_multiset() -> None:
    """A hand sent in any order reads as the same state as the sorted hand (the same id), and a
    sorted hand is read as it was sent."""
    state = _midgame()
    obj = state.to_json()
    assert all(h == sorted(h) for h in obj["hands"])
    shuffled = copy.deepcopy(obj)
    shuffled["hands"] = [list(reversed(h)) for h in obj["hands"]]
    assert shuffled["hands"] != obj["hands"]
    read = manhattan.State.from_json(shuffled)
    assert read.hands == state.hands == tuple(tuple(h) for h in obj["hands"])
    assert manhattan.state_id(read) == manhattan.state_id(state)


@pytest.mark.parametrize(
    ("mutate", "path"),
    [(m, p) for _, m, p in CORRUPTIONS],
    ids=[name for name, _, _ in CORRUPTIONS],
)
def test_design_s2_invalid_state_is_rejected_with_the_path_of_the_fault(
    mutate: Callable[[Json], None], path: str
) -> None:
    """DESIGN §2: shapes, types, ranges, unknown and missing fields: INVALID_STATE and the JSON
    path of the first fault."""
    obj = copy.deepcopy(_midgame().to_json())
    mutate(obj)
    with pytest.raises(manhattan.InvalidStateError) as err:
        manhattan.State.from_json(obj)
    assert err.value.code == "INVALID_STATE"
    assert err.value.path.startswith(path), (err.value.path, path)


def test_s1_card_conservation_broken_is_invalid() -> None:
    """RULES §1 / DESIGN §2: hands + deck + discard hold exactly 5 cards of each position."""
    obj = _midgame().to_json()
    obj["deck"][0] = (obj["deck"][0] + 1) % 9
    with pytest.raises(manhattan.InvalidStateError) as err:
        manhattan.State.from_json(obj)
    assert err.value.code == "INVALID_STATE"
    assert err.value.path.split("[")[0] in ("$.deck", "$.discard", "$.hands")
    obj = _midgame().to_json()
    obj["discard"].append(obj["deck"].pop())
    obj["deck"].pop()
    with pytest.raises(manhattan.InvalidStateError):
        manhattan.State.from_json(obj)


def test_s1_too_many_pieces_of_a_size_is_invalid() -> None:
    """RULES §1 / DESIGN §2: board + supply + selected never exceed 11/6/4/3 pieces per size."""
    obj = position_json()
    obj["board"][0] = [[[1, 4]] for _ in range(9)]  # color 1 has only 3 four-floor pieces
    with pytest.raises(manhattan.InvalidStateError) as err:
        manhattan.State.from_json(obj)
    assert err.value.code == "INVALID_STATE"
    assert err.value.path.startswith(("$.supply[1]", "$.board", "$.selected[1]"))


def test_s5_phase_and_turn_inconsistent_are_invalid() -> None:
    """RULES §5 / DESIGN §2: phase and turn are consistent: the player to move in the build phase
    has pieces left; nobody moves once the game is over; select turns follow [D4]."""
    obj = position_json(selected={0: (1, 0, 0, 0)})
    obj["toMove"] = 2  # color 2 has no piece selected
    with pytest.raises(manhattan.InvalidStateError) as err:
        manhattan.State.from_json(obj)
    assert err.value.path == "$.toMove"
    obj = position_json()
    obj["toMove"] = None
    with pytest.raises(manhattan.InvalidStateError) as err:
        manhattan.State.from_json(obj)
    assert err.value.path == "$.toMove"
    obj = manhattan.new_game(seed="t").to_json()
    obj["toMove"] = 2  # in round 1 selection, player 0 chooses first
    with pytest.raises(manhattan.InvalidStateError) as err:
        manhattan.State.from_json(obj)
    assert err.value.path == "$.toMove"
    obj = position_json()
    obj["phase"] = "over"
    with pytest.raises(manhattan.InvalidStateError) as err:
        manhattan.State.from_json(obj)
    assert err.value.code == "INVALID_STATE"


def test_design_s2_not_an_object_and_bad_msgpack_are_invalid() -> None:
    """DESIGN §2: a state is an object; msgpack carries the same structure."""
    for bad in ([], "state", None, 3):
        with pytest.raises(manhattan.InvalidStateError) as err:
            manhattan.State.from_json(bad)
        assert err.value.path == "$"
    with pytest.raises(manhattan.InvalidStateError) as err:
        manhattan.State.from_msgpack(b"\xc1 not msgpack")
    assert err.value.code == "INVALID_STATE"


def test_design_s2_monster_and_urban_required_by_their_variants() -> None:
    """DESIGN §2: "monster" is [n, r, c] when the variant is on; "urban" with urbanRules."""
    obj = _midgame(variants={"monster": "baby"}).to_json()
    obj["monster"] = None
    with pytest.raises(manhattan.InvalidStateError) as err:
        manhattan.State.from_json(obj)
    assert err.value.path == "$.monster"
    obj = _midgame(variants={"monster": "baby"}).to_json()
    obj["monster"] = [6, 0, 0]
    with pytest.raises(manhattan.InvalidStateError) as err:
        manhattan.State.from_json(obj)
    assert err.value.path.startswith("$.monster")
    obj = _midgame(edition="modern", variants={"urbanRules": True}).to_json()
    obj["urban"]["deck"][0] = "skyline"
    with pytest.raises(manhattan.InvalidStateError) as err:
        manhattan.State.from_json(obj)
    assert err.value.path.startswith("$.urban")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_design_s3_round_trips_and_state_id(players: int) -> None:
    """DESIGN §3: from_json(to_json(s)) == s, msgpack likewise, and state_id is a content hash:
    equal for equal states, different after a move."""
    state = _midgame(players=players, variants={"monster": "godzilla", "antiTrust": True})
    assert manhattan.State.from_json(json.loads(json.dumps(state.to_json()))) == state
    assert manhattan.State.from_msgpack(state.to_msgpack()) == state
    assert manhattan.state_id(state) == manhattan.state_id(
        manhattan.State.from_json(state.to_json())
    )
    after = manhattan.apply_move(state, manhattan.legal_moves(state)[0])
    assert manhattan.state_id(after) != manhattan.state_id(state)


def test_design_s2_move_notation_and_json_round_trip() -> None:
    """DESIGN §2: moves as JSON and as notation; Move.parse reads str(move) back."""
    for text, obj in [
        ("s0:2,2,1,1", {"type": "select", "color": 0, "pieces": [2, 2, 1, 1]}),
        ("b4n3f2", {"type": "build", "card": 4, "neighborhood": 3, "floors": 2}),
        ("b4n3f2c0", {"type": "build", "card": 4, "neighborhood": 3, "floors": 2, "color": 0}),
        ("x4f2c2", {"type": "forfeit", "card": 4, "floors": 2, "color": 2}),
    ]:
        move = manhattan.Move.parse(text)
        assert move == manhattan.Move.from_json(obj)
        assert str(move) == text
        assert manhattan.Move.parse(str(move)) == move


@pytest.mark.parametrize(
    "obj",
    [
        {"type": "teleport"},
        {"type": "build", "card": 4, "neighborhood": 3},
        {"type": "build", "card": 9, "neighborhood": 3, "floors": 1},
        {"type": "build", "card": 4, "neighborhood": 6, "floors": 1},
        {"type": "build", "card": 4, "neighborhood": 3, "floors": 5},
        {"type": "build", "card": "4", "neighborhood": 3, "floors": 1},
        {"type": "build", "card": 4, "neighborhood": 3, "floors": 1, "wings": 2},
        {"type": "select", "color": 0, "pieces": [1, 2, 3]},
        {"type": "forfeit", "card": True, "floors": 1},
        [],
    ],
)
def test_design_s5_malformed_move_is_invalid_move(obj: Any) -> None:
    """DESIGN §5: a malformed move is INVALID_MOVE."""
    with pytest.raises(manhattan.IllegalMoveError) as err:
        manhattan.Move.from_json(obj)
    assert err.value.code == "INVALID_MOVE"


@pytest.mark.parametrize("text", ["", "b4", "b4n3f9", "z1", "s0:1,2,3", "b4n3f2c0x", "x" * 100])
def test_design_s2_bad_notation_is_invalid_move(text: str) -> None:
    """DESIGN §2: Move.parse rejects what is not notation with INVALID_MOVE."""
    with pytest.raises(manhattan.IllegalMoveError) as err:
        manhattan.Move.parse(text)
    assert err.value.code == "INVALID_MOVE"


@pytest.mark.parametrize("seed", ["\ud800", "ok\udfffok", "", "x" * 129])
def test_a_seed_must_be_short_valid_unicode(seed: str) -> None:
    data = manhattan.new_game(players=2, seed="s").to_json()
    data["seed"] = seed
    with pytest.raises(manhattan.InvalidStateError) as state_error:
        manhattan.State.from_json(data)
    assert state_error.value.path == "$.seed"
    with pytest.raises(manhattan.InvalidSetupError):
        manhattan.new_game(players=2, seed=seed)


def test_remembered_rules_keep_json_types_apart() -> None:
    """Rules are remembered by an exact encoding: `false` read before never lets `0` through,
    and a remembered value is the one a fresh read gives."""
    data = manhattan.new_game(players=3, seed="r").to_json()
    first = manhattan.State.from_json(data)
    assert manhattan.State.from_json(copy.deepcopy(data)).rules == first.rules
    for key, value in (("antiTrust", 0), ("slowGrowth", 0.0)):
        bad = copy.deepcopy(data)
        bad["rules"]["variants"][key] = value
        with pytest.raises(manhattan.InvalidStateError) as error:
            manhattan.State.from_json(bad)
        assert error.value.path == f"$.rules.variants.{key}"
    bad = copy.deepcopy(data)
    bad["rules"]["rounds"] = float(bad["rules"]["rounds"])
    with pytest.raises(manhattan.InvalidStateError):
        manhattan.State.from_json(bad)


def test_the_decoder_gives_state_its_fields_in_order() -> None:
    """``decoding`` sits below ``State`` and checks a state by its fields' names before the
    state exists: the fields are declared once, in ``StateFields``, and ``State`` is one."""
    assert issubclass(manhattan.State, StateFields)
    names = tuple(field.name for field in dataclasses.fields(manhattan.State))
    assert names == tuple(field.name for field in dataclasses.fields(StateFields))
    state = manhattan.new_game(players=3, seed="fields")
    decoded = read_fields(read_state_format(state.to_json()), manhattan.State)
    assert type(decoded) is manhattan.State and decoded == state
