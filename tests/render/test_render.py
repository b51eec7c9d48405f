"""Board pictures (render.py): golden files, and the facts each picture must show."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

import manhattan
from manhattan.render import render_svg

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.stem for p in GOLDEN.glob("*.json"))
SVG = "{http://www.w3.org/2000/svg}"


def _load(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text())
    return document


def _empty_board() -> list[list[list[list[int]]]]:
    return [[[] for _ in range(9)] for _ in range(6)]


def _view_with(board: list[Any], monster: list[int] | None = None) -> dict[str, Any]:
    """A view of a fresh 4-player game with ``board`` and ``monster`` put in (public fields)."""
    view = manhattan.view(manhattan.new_game(players=4, seed="pic"), 0).to_json()
    view["board"] = board
    view["monster"] = monster
    return view


def _block_titles(svg: str) -> dict[str, str]:
    root = ET.fromstring(svg)
    return {
        g.attrib["data-block"]: g.find(f"{SVG}title").text or ""
        for g in root.iter(f"{SVG}g")
        if "data-block" in g.attrib
    }


@pytest.mark.parametrize("name", CASES)
def test_golden_pictures_match(name: str) -> None:
    expected = (GOLDEN / f"{name}.svg").read_text(encoding="utf-8")
    assert render_svg(_load(name)) == expected, (
        f"{name}.svg drifted; if the change is intended run `python -m tests.render.regen_golden`"
    )


def test_golden_cases_cover_states_views_and_game_over() -> None:
    assert {"new-game-4p", "mid-game-4p-godzilla", "view-2p-baby-player1", "game-over-3p"} <= set(
        CASES
    )


@pytest.mark.parametrize("name", CASES)
def test_picture_is_well_formed_svg_with_six_named_neighborhoods(name: str) -> None:
    svg = render_svg(_load(name))
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    for n, display in enumerate(
        ["Manhattan", "Cairo", "São Paulo", "Frankfurt", "Sydney", "Hong Kong"]
    ):
        assert f'id="neighborhood-{n}"' in svg
        assert f">{n} {display}<" in svg  # RULES §1 display names
    assert len(_block_titles(svg)) == 54


def test_state_value_view_value_and_json_give_the_same_picture() -> None:
    state = manhattan.State.from_json(_load("mid-game-4p-godzilla"))
    assert render_svg(state) == render_svg(state.to_json())
    assert render_svg(manhattan.view(state, 2)) == render_svg(manhattan.view(state, 2).to_json())


def test_buildings_show_floors_by_color_owner_and_height() -> None:
    board = _empty_board()
    board[3][1] = [[0, 3], [1, 2], [1, 1]]  # Frankfurt (0,1): red 3 under blue 3, blue on top
    svg = render_svg(_view_with(board))
    assert _block_titles(svg)["3,0,1"].startswith(
        "Frankfurt (0,1): 6 floors, owner Blue (Red 3, Blue 3)"
    )
    assert svg.count('fill="#d1495b" stroke="#22252b" stroke-width="0.75"/>') >= 1


def test_rules_7_3_d7_unique_tallest_is_crowned_and_a_tie_is_not() -> None:
    board = _empty_board()
    board[0][0] = [[0, 4]]
    board[5][8] = [[1, 3]]
    crowned = render_svg(_view_with(board))
    assert crowned.count('class="tallest"') == 1
    assert "tallest building" in _block_titles(crowned)["0,0,0"]
    board[5][8] = [[1, 3], [1, 1]]  # now tied at 4: nobody is tallest [D7]
    assert 'class="tallest"' not in render_svg(_view_with(board))


def test_rules_7_2_majority_is_named_and_a_tie_is_not() -> None:
    board = _empty_board()
    board[4][0] = [[2, 1]]
    board[4][1] = [[2, 1]]
    board[4][2] = [[3, 2]]
    board[1][0] = [[0, 1]]
    board[1][1] = [[1, 1]]
    svg = render_svg(_view_with(board))
    sydney = svg.split('id="neighborhood-4"')[1].split("</g>")[0]
    cairo = svg.split('id="neighborhood-1"')[1].split("</g>")[0]
    assert "majority Green" in sydney
    assert "no majority" in cairo


def test_rules_9_monster_is_drawn_on_its_block() -> None:
    svg = render_svg(_view_with(_empty_board(), monster=[2, 1, 0]))
    assert svg.count('class="monster"') == 1
    assert _block_titles(svg)["2,1,0"].endswith("monster")


def test_rules_11_a_state_picture_shows_no_hidden_information() -> None:
    state = _load("mid-game-4p-godzilla")
    svg = render_svg(state)
    assert state["seed"] not in svg
    assert "hand" not in svg.lower() and "deck" not in svg.lower()


def test_output_is_deterministic() -> None:
    document = _load("game-over-3p")
    assert render_svg(document) == render_svg(json.loads(json.dumps(document)))


@pytest.mark.parametrize(
    ("mutate", "path"),
    [
        (lambda d: d.update(format="chess"), "$.format"),
        (lambda d: d["board"].pop(), "$.board"),
        (lambda d: d["board"][2].__setitem__(4, [[7, 1]]), "$.board[2][4][0]"),
        (lambda d: d.update(monster=[9, 0, 0]), "$.monster"),
    ],
)
def test_malformed_views_raise_invalid_state_with_the_path(mutate: Any, path: str) -> None:
    document = _view_with(_empty_board())
    mutate(document)
    with pytest.raises(manhattan.InvalidStateError) as caught:
        render_svg(document)
    assert caught.value.path == path


def test_malformed_states_are_validated_by_the_engine() -> None:
    document = _load("new-game-4p")
    document["board"][0][0] = [[0, 9]]
    with pytest.raises(manhattan.InvalidStateError) as caught:
        render_svg(document)
    assert caught.value.path.startswith("$.board[0][0]")
