"""The terminal in people's words: the same explanations as the web page (colors by name with
their player, blocks by their one name, no "1 buildings"), a choice of pieces as counts of 1- to
4-floor pieces with the color named, the validator's paths as sentences, players by name, and a
complete ``--help``."""

from __future__ import annotations

import io
import re

from manhattan.terminal.command import build_parser
from manhattan.terminal.game import LocalTable, Session
from manhattan.terminal.words import Names, humane, move_fault, pieces_text

ENGINE_WORDS = re.compile(r"\bcolor \d|\[\d, \d, \d\]|\b1 (buildings|floors|pieces|points)\b|\$\.")


def _session(lines: str, *, build: bool) -> tuple[LocalTable, str]:
    table = LocalTable({"players": 2, "seed": "pick"}, bot_level="random", seed=1)
    while build and table.state.phase == "select":
        table.play(table.legal_moves()[0])
    me = table.state.to_move or 0
    out = io.StringIO()
    Session(table, me, out, io.StringIO(lines))._ask(table.view(me))
    return table, out.getvalue()


def test_a_preview_reads_as_the_page_says_it() -> None:
    _, out = _session("1\npreview 1\nquit\n", build=True)
    preview = next(line for line in out.splitlines() if "if the round ended now" in line)
    assert not ENGINE_WORDS.search(preview), preview
    assert re.search(
        r"(Red|Blue|Green|Yellow) \(you\) builds a 3-floor building on \w+ [A-I][1-6]", preview
    )
    assert "1 building against 0" in preview


def test_a_refused_notation_is_a_sentence_about_its_field() -> None:
    _, out = _session("1\nb9n9f9\nb1n9f1\nb1n1f7\nquit\n", build=True)
    assert "$." not in out and "Expected" not in out
    assert "not allowed: a card is numbered 0 to 8" in out
    assert "not allowed: a neighborhood is numbered 0 to 5 (0 Manhattan, 1 Cairo" in out
    assert "not allowed: a piece has 1 to 4 floors" in out


def test_a_choice_of_pieces_counts_pieces_for_the_color_named() -> None:
    table, out = _session("quit\n", build=False)
    color = table.legal_moves()[0]["color"]
    name = ("Red", "Blue", "Green", "Yellow")[color]
    assert f"choose 4 pieces for {name} this round, as counts of 1- to 4-floor pieces" in out
    assert re.search(r"\n +1\) (\d×\d-floor, )*\d×\d-floor \(4 pieces\)\n", out)
    assert not re.search(r"\bs\d:\d,\d,\d,\d", out)  # no codes in the list


def test_pieces_and_explanations_in_words() -> None:
    assert pieces_text([1, 2, 1, 0]) == "1×1-floor, 2×2-floor, 1×3-floor (4 pieces)"
    assert pieces_text([0, 0, 0, 1]) == "1×4-floor (1 piece)"
    names = Names(("Ann", "Bo"), ((0,), (1,)), me=1)
    said = humane(
        "color 0 builds a 1-floor building on [0, 0, 1]; color 1 wins the majority in "
        "neighborhood 4 (Sydney): 1 buildings against 0 (+2)",
        names,
    )
    assert said == (
        "Red (Ann) builds a 1-floor building on Manhattan B1; Blue (you) wins the majority in "
        "Sydney: 1 building against 0 (+2)"
    )
    assert move_fault("cannot read move 'xyz'") == "cannot read move 'xyz'"


def test_the_help_is_whole() -> None:
    parser = build_parser()
    text = parser.format_help()
    description = parser.description or ""
    assert description.endswith(".") and "--table URL" in description
    for action in parser._actions:
        assert action.help, action.option_strings
    assert "--variants" in text
