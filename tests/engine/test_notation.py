"""One notation grammar (DESIGN §2): every legal move's ``notation`` reads back as
the same move, and so does every spelling the grammar allows (either case, spaces between any
two tokens, ``:`` or a space after a select's color); what it does not allow is INVALID_MOVE."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import manhattan
from manhattan.engine import moves
from tests.strategies import states

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOKEN = re.compile(r"[a-z]|\d+|[:,]")


@st.composite
def spelling(draw: st.DrawFn, canonical: str) -> str:
    """``canonical`` rewritten as the grammar allows: each letter in either case, up to two
    ASCII whitespace characters around every token, a select's ``:`` sometimes a space."""
    space = st.text(" \t", max_size=2)
    out = [draw(space)]
    for token in TOKEN.findall(canonical):
        if token == ":" and draw(st.booleans()):
            token = " "
        elif token.isalpha() and draw(st.booleans()):
            token = token.upper()
        out += [token, draw(space)]
    return "".join(out)


@SETTINGS
@given(state=states(max_steps=120), data=st.data())
def test_every_legal_move_reads_back_in_every_spelling(
    state: manhattan.State, data: st.DataObject
) -> None:
    """DESIGN §2: ``Move.parse(m.notation) == m`` for every legal move, and every other
    spelling of it parses to the same move."""
    for move in manhattan.legal_moves(state)[:40]:
        assert manhattan.Move.parse(move.notation) == move
        assert move.notation == move.notation.lower() and " " not in move.notation
        assert manhattan.Move.parse(data.draw(spelling(move.notation))) == move


def _documented() -> list[list[str]]:
    """The example lines of the notation's documentation (``moves`` module docstring, read from
    its source: the compiled build keeps no docstrings): forms joined by ``=`` stand for the same
    move."""
    source = Path(moves.__file__ or "").with_name("moves.py").read_text(encoding="utf-8")
    doc = ast.get_docstring(ast.parse(source)) or ""
    lines = [line for line in doc.splitlines() if " = ``" in line]
    return [re.findall(r"``([^`]+)``(?: = |\s{3}|$)", line) for line in lines]


def test_documented_variants_parse_the_same() -> None:
    """The documented spellings of a select, a build and a forfeit each read as one move."""
    groups = _documented()
    assert [len(g) >= 2 for g in groups] == [True, True, True]
    for forms in groups:
        parsed = {manhattan.Move.parse(text) for text in forms}
        assert len(parsed) == 1, forms
        assert parsed.pop().notation == forms[0]


@pytest.mark.parametrize(
    "text",
    [
        "s02,2,1,1",  # a select's color and first count need ':' or a space between them
        "s0:2,2,1,1,",
        "b 1 2n3f2",  # no space inside a number
        "b4n3f2c0x",
        "b٣n3f2",  # ASCII digits only
        "b4\u00a0n3f2",  # ASCII whitespace only
        "b4n3f2 c",
        "x4n3f2",
    ],
)
def test_what_the_grammar_does_not_allow_is_invalid_move(text: str) -> None:
    with pytest.raises(manhattan.IllegalMoveError) as err:
        manhattan.Move.parse(text)
    assert err.value.code == "INVALID_MOVE"


def test_a_move_reads_the_same_in_every_wire_form() -> None:
    """``Move.from_wire``: the object, its notation, and ``{"notation": ...}`` are one move;
    anything else is INVALID_MOVE, never another error."""
    move = manhattan.Move.parse("b4n3f2")
    assert manhattan.Move.from_wire(move.to_json()) == move
    assert manhattan.Move.from_wire("B4 N3 F2") == move
    assert manhattan.Move.from_wire({"notation": "b4n3f2"}) == move
    for bad in (None, 7, [], {"notation": 5}, {"type": "jump"}):
        with pytest.raises(manhattan.IllegalMoveError) as refused:
            manhattan.Move.from_wire(bad)
        assert refused.value.code == "INVALID_MOVE"


@SETTINGS
@given(states())
def test_a_moves_json_text_is_its_json_encoded(state: manhattan.State) -> None:
    """``Move.json_text`` and ``moves_text`` (a push's legal moves, written by the engine and
    kept by the shared move object or by a packed number) are the bytes a JSON encoder makes
    of ``to_json``: with the player and block a legal move carries, and without them."""
    encode = msgspec.json.Encoder().encode
    legal = manhattan.legal_moves(state)
    bare = [m.with_context(None, None) for m in legal]
    for group in (legal, bare):
        for move in group:
            assert move.json_text().encode() == encode(move.to_json())
        assert moves.moves_text(group) == encode([m.to_json() for m in group])
        assert moves.moves_text(group) == encode([m.to_json() for m in group])  # (kept texts)


def test_a_text_kept_by_a_move_object_is_never_another_move_s() -> None:
    """Moves made and dropped one after the other (their ids may be reused): each gets its own
    text, as the texts kept by object keep the object alive."""
    for card in range(9):
        for floors in (1, 2, 3, 4):
            move = manhattan.Move("build", card=card, neighborhood=card % 6, floors=floors, color=1)
            assert moves.moves_text([move]) == msgspec.json.encode([move.to_json()])
            del move


def test_a_move_whose_fields_do_not_fit_the_key_is_written_all_the_same() -> None:
    big = manhattan.Move("build", card=70, neighborhood=3, floors=2, player=1, block=(0, 1, 2))
    assert moves._text_key(big) == -1
    assert moves.moves_text([big]) == msgspec.json.encode([big.to_json()])
