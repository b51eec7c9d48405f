"""The decoder's fast passes (no error paths built) accept exactly what the checked passes
accept, and read it the same; on anything else they answer None and never raise."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from manhattan.bench.engine import mid_game_state
from manhattan.engine import codec
from manhattan.engine.errors import InvalidStateError

from ..fuzz.inputs import DELETE, VALID_STATES, mutated_states, paths, replace_at

# Values next to the bounds and types the sections test, put in place of any node of a section.
NEAR = [-1, 0, 1, 2, 3, 4, 5, 6, 8, 9, 54, 55, 96, 97, 1000, 1001, True, False, 1.0, 3.0, None]
NEAR += ["1", [], {}, [1, 1], [0, 1, 2]]


@st.composite
def section_mutants(draw: st.DrawFn) -> Any:
    """A valid state with one to three nodes inside the board, history or cards changed."""
    tree = copy.deepcopy(draw(st.sampled_from(VALID_STATES)))
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(["board", "history", "hands", "deck", "discard"]))
        path = draw(st.sampled_from([(key, *p) for p in paths(tree[key])]))
        change = draw(st.sampled_from(["near", "near", "near", "delete", "duplicate"]))
        if change == "near":
            value = draw(st.integers(-2, 10) | st.sampled_from(NEAR))
            tree = replace_at(tree, path, lambda old, v=value: copy.deepcopy(v))
        elif change == "delete" and len(path) > 1:
            tree = replace_at(tree, path, lambda old: DELETE)
        else:
            tree = replace_at(tree, path, lambda old: old * 2 if isinstance(old, list) else old)
    return tree


def _checked_cards(value: Any, length: int | None, most: int) -> tuple[int, ...]:
    items = codec._list(value, "$.x", length, most)
    return tuple(codec._int(v, f"$.x[{i}]", 0, 8) for i, v in enumerate(items))


def _agree(fast: Callable[..., Any], checked: Callable[..., Any], *args: Any) -> None:
    got = fast(*args)
    try:
        want = checked(*args)
    except InvalidStateError:
        assert got is None
    else:
        assert got is None or (got == want and type(got) is type(want))


@settings(max_examples=600, deadline=None)
@given(
    st.one_of(mutated_states(), section_mutants()), st.sampled_from([2, 3, 4]), st.integers(1, 9)
)
def test_fast_passes_agree_with_the_checked_passes(tree: Any, k: int, rounds: int) -> None:
    if not isinstance(tree, dict):
        return
    _agree(codec._read_board_fast, codec._read_board_checked, tree.get("board"), k)
    _agree(codec._read_history_fast, codec._read_history_checked, tree.get("history"), k, rounds)
    hands = tree.get("hands")
    for value in [
        *(hands if isinstance(hands, list) else []),
        tree.get("deck"),
        tree.get("discard"),
    ]:
        for length, most in ((4, 45), (None, 45), (None, 3)):
            _agree(codec._cards_fast, _checked_cards, value, length, most)


def test_fast_passes_take_well_formed_sections() -> None:
    tree = mid_game_state("fast passes").to_json()  # pieces, cards and a scored round
    k = len(tree["supply"])
    assert codec._read_board_fast(tree["board"], k) == codec._read_board_checked(tree["board"], k)
    assert tree["history"]
    history = codec._read_history_fast(tree["history"], k, 6)
    assert history is not None and history == codec._read_history_checked(tree["history"], k, 6)
    assert codec._cards_fast(tree["deck"], None, 45) == tuple(tree["deck"])


PART = st.integers(-1, 7) | st.sampled_from(NEAR)


@settings(max_examples=600, deadline=None)
@given(
    st.fixed_dictionaries(
        {
            "buildings": PART,
            "majorities": st.lists(PART, max_size=7),
            "tallest": PART,
            "urban": PART,
        }
    ),
    st.booleans(),
    st.sampled_from([2, 3, 4]),
)
def test_history_breakdowns_agree(parts: dict[str, Any], add_up: bool, k: int) -> None:
    """Breakdowns whose parts vary together (a single change breaks the total)."""
    numbers = [parts["buildings"], *parts["majorities"], parts["tallest"], parts["urban"]]
    total: Any = 0
    if add_up and all(type(n) is int for n in numbers):
        total = (
            parts["buildings"] + 2 * len(parts["majorities"]) + parts["tallest"] + parts["urban"]
        )
    history = [{"round": 1, "scores": [{**parts, "total": total} for _ in range(k)]}]
    _agree(codec._read_history_fast, codec._read_history_checked, history, k, 6)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(VALID_STATES),
    st.integers(0, 5),
    st.integers(0, 8),
    st.lists(st.integers(-1, 5), min_size=2, max_size=2) | st.lists(PART, max_size=3) | PART,
    st.sampled_from([2, 3, 4]),
)
def test_board_pieces_agree(state: Any, n: int, b: int, piece: Any, k: int) -> None:
    board = copy.deepcopy(state["board"])
    board[n][b].append(piece)
    _agree(codec._read_board_fast, codec._read_board_checked, board, k)
