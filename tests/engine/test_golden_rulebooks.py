"""Golden tests built by hand from the rulebooks' worked examples (RULES §6, §7).

The scoring examples live in ``golden/rulebook_*.json`` (board, colors by name, expected round
breakdown per color); the takeover examples of the online guides are written out below.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import manhattan
from tests.engine.positions import building, card_for, position, scores_of

GOLDEN = Path(__file__).parent / "golden"
EXAMPLES = sorted(GOLDEN.glob("rulebook_*.json"))


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _board(example: dict[str, Any], *, without_last: bool = False) -> dict[Any, Any]:
    colors = example["colors"]
    board = {
        tuple(b["block"]): [(colors[name], floors) for name, floors in b["pieces"]]
        for b in example["buildings"]
    }
    if without_last:
        last = example["last_move"]
        block = tuple(last["block"])
        assert board[block][-1] == (colors[last["color"]], last["floors"])
        board[block] = board[block][:-1]
    return board


def _expected(example: dict[str, Any]) -> list[dict[str, Any]]:
    by_color = {example["colors"][name]: part for name, part in example["expected"].items()}
    return [by_color[c] for c in range(len(by_color))]


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_s7_rulebook_example_scores_as_the_rulebook_says(path: Path) -> None:
    """RULES §7 (buildings, majorities, tallest): the rulebook's end-of-round example."""
    example = _load(path)
    state = position(players=example["players"], edition=example["edition"], board=_board(example))
    assert scores_of(state) == _expected(example)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_s5_2_s7_rulebook_example_is_scored_when_its_last_piece_is_placed(path: Path) -> None:
    """RULES §5.2 and §7: placing the round's last piece ends the round, and the history keeps
    the example's breakdown; the totals are added to the scores."""
    example = _load(path)
    last = example["last_move"]
    color = example["colors"][last["color"]]
    n, r, c = last["block"]
    card = card_for(color, r, c)  # 4 players: player = color = seat
    state = position(
        players=example["players"],
        edition=example["edition"],
        board=_board(example, without_last=True),
        to_move=color,
        hand=[card] * 4,
        selected={color: tuple(1 if f == last["floors"] else 0 for f in range(1, 5))},
    )
    move = manhattan.Move.from_json(
        {"type": "build", "card": card, "neighborhood": n, "floors": last["floors"]}
    )
    after = manhattan.apply_move(state, move)
    js = after.to_json()
    assert js["history"][-1]["scores"] == _expected(example)
    assert js["scores"] == [part["total"] for part in _expected(example)]


def test_s7_english_example_black_wins_the_round() -> None:
    """RULES §8: with the English example as the final round, black (9) ranks first, then blue
    (8), red (6), green (4)."""
    example = _load(GOLDEN / "rulebook_en_round1.json")
    last = example["last_move"]
    n, r, c = last["block"]
    state = position(
        board=_board(example, without_last=True),
        to_move=3,
        hand=[card_for(3, r, c)] * 4,
        selected={3: (0, 1, 0, 0)},
    )
    move = manhattan.Move.from_json(
        {"type": "build", "card": card_for(3, r, c), "neighborhood": n, "floors": 2}
    )
    after = manhattan.apply_move(state, move)
    places = [(p.player, p.place, p.score) for p in manhattan.ranking(after)]
    assert places == [(0, 1, 9), (1, 2, 8), (2, 3, 6), (3, 4, 4)]


# -- takeover examples of the online guides (RULES §6) ----------------------------------------
WHITE, BLUE = 0, 1  # the guides' colors


def _sizes_on(state: manhattan.State, block: tuple[int, int, int]) -> set[int]:
    return {
        m.to_json()["floors"]
        for m in manhattan.legal_moves(state)
        if tuple(m.to_json()["block"]) == block
    }


def test_s6_seed_004_white_needs_two_floors_on_three_blue_one_white() -> None:
    """RULES §6, seed 004: the building on the middle left holds 3 blue floors and 1 white; white
    may build on it only with a piece of at least 2 floors."""
    board = {(0, 1, 0): [(WHITE, 1), (BLUE, 3)]}
    state = position(board=board, hand=[card_for(0, 1, 0)] * 4, selected={WHITE: (1, 1, 1, 1)})
    assert _sizes_on(state, (0, 1, 0)) == {2, 3, 4}
    one = manhattan.Move.from_json(
        {"type": "build", "card": card_for(0, 1, 0), "neighborhood": 0, "floors": 1}
    )
    with pytest.raises(manhattan.IllegalMoveError) as err:
        manhattan.apply_move(state, one)
    assert err.value.code == "ILLEGAL_MOVE"
    assert "2" in err.value.message


def _guide_001_board() -> dict[Any, Any]:
    return {
        (5, 1, 1): [(WHITE, 1), (BLUE, 3)],  # center: 3 blue, 1 white
        (5, 1, 2): [(BLUE, 2)],  # center right: 2 blue, 0 white
        (5, 2, 0): [(BLUE, 4), (WHITE, 4), (WHITE, 4), (WHITE, 1)],  # white 9, blue 4: safe
    }


def test_s6_seed_001_white_needs_two_floors_three_minus_one_and_two_minus_zero() -> None:
    """RULES §6, seed 001: white needs at least two floors to take the blue building in the
    center (3-1=2) or the one center right (2-0=2)."""
    hand = [card_for(0, 1, 1), card_for(0, 1, 1), card_for(0, 1, 2), card_for(0, 1, 2)]
    state = position(board=_guide_001_board(), hand=hand, selected={WHITE: (1, 1, 1, 1)})
    assert _sizes_on(state, (5, 1, 1)) == {2, 3, 4}
    assert _sizes_on(state, (5, 1, 2)) == {2, 3, 4}


def test_s6_seed_001_safe_white_tower_needs_five_floors_and_cannot_be_taken() -> None:
    """RULES §6, seed 001: the white tower on the bottom left (white 9, blue 4) would need 5
    floors (9-4=5): no piece has more than 4, it is safe."""
    card = card_for(1, 2, 0)
    state = position(
        board=_guide_001_board(), to_move=BLUE, hand=[card] * 4, selected={BLUE: (1, 1, 1, 1)}
    )
    assert _sizes_on(state, (5, 2, 0)) == set()
    assert manhattan.is_safe(tuple(building(state, 5, 2, 0)), 4)
    four = manhattan.Move.from_json({"type": "build", "card": card, "neighborhood": 5, "floors": 4})
    with pytest.raises(manhattan.IllegalMoveError) as err:
        manhattan.apply_move(state, four)
    assert err.value.code == "ILLEGAL_MOVE"
    assert "safe" in err.value.message or "5" in err.value.message
