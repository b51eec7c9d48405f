"""The build phase in the terminal: a piece, then a block named by the board's
coordinates; ``preview N`` and ``why B5`` answer from the seat's own view; the board and the
log use one name per block for everyone; text from the network is printed without control
sequences; a bad ``--variants`` is a usage error."""

from __future__ import annotations

import io

import pytest

import manhattan
from manhattan.terminal.command import run
from manhattan.terminal.drawing import block_name, clean, draw_board, parse_block
from manhattan.terminal.game import LocalTable, Session


def _build_phase_table() -> LocalTable:
    table = LocalTable({"players": 2, "seed": "pick"}, bot_level="random", seed=1)
    while table.state.phase == "select":
        table.play(table.legal_moves()[0])
    return table


def _ask(table: LocalTable, lines: str) -> tuple[dict[str, object] | None, str]:
    out = io.StringIO()
    session = Session(table, table.state.to_move, out, io.StringIO(lines))
    view = table.view(table.state.to_move or 0)
    return session._ask(view), out.getvalue()


def test_a_build_is_picked_as_a_piece_then_a_block() -> None:
    table = _build_phase_table()
    moves = table.legal_moves()
    move, out = _ask(table, "1\n2\n")
    assert "pieces you can build:" in out and "can go on:" in out
    first_piece = sorted({(m["floors"], m["color"]) for m in moves})[0]
    blocks = [m for m in moves if (m["floors"], m["color"]) == first_piece]
    assert move == blocks[1]
    assert f"{block_name(*blocks[1]['block'])} (card {blocks[1]['card']})" in out


def test_preview_why_and_back() -> None:
    table = _build_phase_table()
    moves = table.legal_moves()
    piece = sorted({(m["floors"], m["color"]) for m in moves})[0]
    open_blocks = {tuple(m["block"]) for m in moves if (m["floors"], m["color"]) == piece}
    closed = next(
        (n, r, c)
        for n in range(6)
        for r in range(3)
        for c in range(3)
        if (n, r, c) not in open_blocks
    )
    coordinate = block_name(*closed).split()[-1]
    lines = f"1\npreview 1\nwhy {coordinate}\nwhy Z9\nback\nquit\n"
    move, out = _ask(table, lines)
    assert move is None
    assert "if the round ended now" in out  # the preview's explanation
    assert f"{block_name(*closed)}:" in out or "none of your cards designates" in out
    assert "why needs a block's coordinates" in out
    assert out.count("pieces you can build:") == 2  # again after 'back'


def test_one_name_for_a_block_whatever_the_seat() -> None:
    state = manhattan.new_game(players=4, seed="names")
    boards = {draw_board(manhattan.view(state, p).to_json()) for p in range(4)}
    assert len(boards) == 1  # the same board, coordinates and all, for every seat
    board = boards.pop()
    assert board.splitlines()[0].split() == list("ABCDEFGHI")
    assert parse_block("Sydney E5") == (4, 1, 1) and block_name(4, 1, 1) == "Sydney E5"
    assert all(
        parse_block(block_name(n, r, c)) == (n, r, c)
        for n in range(6)
        for r in range(3)
        for c in range(3)
    )


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b]52;c;ZXZpbA==\x07mallory", "mallory"),  # OSC 52 writes the clipboard
        ("\x1b[2J\x1b[Hann", "ann"),  # clears the screen
        ("ann\u200b", "ann"),  # zero-width space
        ("\u202eevil", "evil"),  # right-to-left override
        ("bell\x07\x9b", "bell"),  # BEL and C1 CSI
        ("Zoë", "Zoë"),
    ],
)
def test_text_from_the_network_is_shown_without_control_sequences(raw: str, shown: str) -> None:
    assert clean(raw) == shown


@pytest.mark.parametrize("variants", ["{monster:baby}", "[1]", "nope"])
def test_bad_variants_is_a_usage_error(variants: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        run(["--variants", variants], stdin=io.StringIO(""), stdout=io.StringIO())
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "is not a JSON object" in err and "Traceback" not in err


def test_a_digit_that_is_not_ascii_is_not_a_number() -> None:
    """``str.isdigit`` holds "²" a digit and ``int`` refuses it: a typed "²" must not end the
    game with a traceback."""
    table = _build_phase_table()
    move, out = _ask(table, "²\n1\npreview ²\npreview 1\nquit\n")
    assert move is None
    assert "preview a block by its number" in out
    assert "if the round ended now" in out
