"""``manhattan play`` (terminal/game.py), driven by feeding stdin."""

from __future__ import annotations

import io
import re

import pytest

import manhattan
from manhattan.terminal.command import run
from manhattan.terminal.drawing import draw_board, draw_hand


def _play(argv: list[str], lines: str) -> tuple[int, str]:
    out = io.StringIO()
    code = run(argv, stdin=io.StringIO(lines), stdout=out)
    return code, out.getvalue()


def test_a_whole_game_in_process_picking_moves_by_number() -> None:
    code, out = _play(["--players", "3", "--seed", "term", "--bot", "random"], "1\n" * 400)
    assert code == 0
    assert "--- round 1 of 6: choose your pieces ---" in out
    assert "Manhattan" in out and "Hong Kong" in out
    assert "pieces you can build:" in out and "can go on:" in out  # a piece, then a block
    assert "your hand (you sit South" in out
    for k in range(1, 7):
        assert f"=== round {k} scored ===" in out  # scores after each round
    assert "=== final ranking ===" in out and re.search(r"\n  1\. (you|Bot \d), \d+ points?\n", out)
    assert not re.search(r"\bplayer \d", out)  # players by name: "you", "Bot 2"


def test_moves_by_notation_and_bad_input_is_explained() -> None:
    state = manhattan.new_game(players=4, seed="typed")
    notation = str(manhattan.legal_moves(state)[5])
    lines = f"nonsense\n999\ns1:6,0,0,0\nboard\n{notation}\nquit\n"
    code, out = _play(["--seed", "typed", "--bot", "random"], lines)
    assert code == 1 and "game abandoned" in out
    assert out.count("not allowed:") == 2  # "nonsense" and player 1's color
    assert "pick a number from 1 to" in out
    assert f"> you: {notation}" in out


def test_input_ending_abandons_the_game() -> None:
    code, out = _play(["--seed", "eof"], "")
    assert code == 1 and "game abandoned" in out


def test_watch_mode_plays_bots_only() -> None:
    code, out = _play(["--watch", "--players", "2", "--seed", "w", "--bot", "random"], "")
    assert code == 0 and "final ranking" in out and "your move" not in out


def test_a_whole_game_through_the_service(server_url: str) -> None:
    argv = ["--url", server_url, "--players", "2", "--seed", "via-url", "--bot", "random"]
    code, out = _play(argv, "1\n" * 400)
    assert code == 0 and "final ranking" in out
    assert "> Bot 2: " in out


def test_an_unreachable_service_is_reported() -> None:
    from tests.ports import refusing_port

    with refusing_port() as port:
        code, out = _play(["--url", f"http://127.0.0.1:{port}"], "")
    assert code == 2 and "cannot reach" in out


@pytest.mark.parametrize(
    ("player", "blocks"),
    [
        (0, "A1 D1 G1 A4 D4 G4"),
        (1, "C1 F1 I1 C4 F4 I4"),
        (2, "C3 F3 I3 C6 F6 I6"),
        (3, "A3 D3 G3 A6 D6 G6"),
    ],
)
def test_rules_2_hand_is_drawn_in_the_holders_frame_with_its_board_block(
    player: int, blocks: str
) -> None:
    view = manhattan.view(manhattan.new_game(players=4, seed="hand"), player).to_json()
    view["hand"] = [0]
    lines = draw_hand(view).splitlines()
    assert lines[0].startswith("card 0")
    assert lines[1:4] == ["# . .", ". . .", ". . ."]  # top-left as the holder sees it
    assert lines[4] == f"card 0 -> {blocks}"  # RULES §2 table, in the board's coordinates


def test_board_marks_owner_height_tallest_and_monster() -> None:
    view = manhattan.view(manhattan.new_game(players=4, seed="b"), 0).to_json()
    view["board"][4][5] = [[1, 2], [3, 3]]
    view["board"][0][0] = [[0, 1]]
    view["monster"] = [2, 0, 0]
    text = draw_board(view)
    assert "5Y*" in text  # Sydney (1,2): 5 floors, Yellow on top, the one tallest
    assert "1R" in text and "1R*" not in text
    assert ".@" in text
