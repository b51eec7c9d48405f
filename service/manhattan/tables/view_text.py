"""A view's JSON text made straight from a state, for the pushes.

``seat_view`` builds a view as dicts and lists (``View.to_json``: some 300 objects, most of them
the board's), and a move's pushes only encoded them and let them go: making and freeing them was
an eighth of a table move's CPU with 200 tables playing. Here the same text is encoded from the
state's own tuples (msgspec writes a tuple as an array), with the parts that rarely change (the
rules, the scored rounds) encoded once and kept by identity, and a neighborhood's text made again
only when a building of it changed since the table's last board. ``tests/tables/test_view_text.py``
holds the text byte for byte against ``seat_view``'s encoding.
"""

from __future__ import annotations

from typing import Any

import msgspec

from manhattan import State
from manhattan.engine.board import block_coords
from manhattan.engine.formats import VIEW_FORMAT
from manhattan.engine.kept import KeptEncodings

_encode = msgspec.json.Encoder().encode


def public_rest(state: State, table: str | None = None) -> bytes:
    """The public view's text after its ``hand`` and ``player`` and without the opening brace:
    ``"board":...}`` (``projection.view_json`` puts the receiver's hand and player first).
    ``table``: the table the state is of, whose last board's text this one's is made from."""
    urban = state.urban
    text = _encode(
        {
            "board": _board_text(state.board, table),
            "deckSize": len(state.deck),
            "discard": state.discard,
            "firstPlayer": state.first_player,
            "format": VIEW_FORMAT,
            "handSizes": [len(hand) for hand in state.hands],
            "history": _history_text(state.history),
            "monster": None if state.monster is None else block_coords(state.monster),
            "phase": state.phase,
            "round": state.round,
            "rules": _texts.get(state.rules, state.rules, _rules_text),
            "scores": state.scores,
            "selected": state.selected,
            "shuffles": state.shuffles,
            "supply": state.supply,
            "toMove": state.to_move,
            "urban": None
            if urban is None
            else {
                "current": urban.current,
                "deckSize": len(urban.deck),
                "revealed": urban.revealed,
            },
        }
    )
    return text[1:]


def _board_text(board: tuple[Any, ...], table: str | None) -> msgspec.Raw:
    """The board as its six neighborhoods' arrays. A move replaces only the buildings it
    changes (the engine's boards share the others), so a neighborhood whose nine buildings are
    the very objects of the table's last board has that board's text (the last board is kept,
    so no object compared here is another's that took its place)."""
    last = _boards.get(table) if table is not None else None
    texts: list[bytes] = []
    for n in range(6):
        start = n * 9
        if last is not None and _same_buildings(last[0], board, start):
            texts.append(last[1][n])
        else:
            texts.append(_encode(board[start : start + 9]))
    if table is not None:
        if last is None and len(_boards) >= BOARDS:
            del _boards[next(iter(_boards))]
        _boards[table] = (board, texts)
    return msgspec.Raw(b"[" + b",".join(texts) + b"]")


def _same_buildings(old: tuple[Any, ...], new: tuple[Any, ...], start: int) -> bool:
    return all(old[index] is new[index] for index in range(start, start + 9))


def _history_text(history: tuple[Any, ...]) -> msgspec.Raw:
    """The scored rounds' text. A move makes a new tuple of the same records (the engine's
    ``play`` copies them), so the text is kept by the newest record, and used when the kept
    tuple equals this one (the same records: compared by identity first)."""
    if not history:
        return _NO_HISTORY
    return _texts.get(history[-1], history, _records_text)


def _records_text(history: tuple[Any, ...]) -> bytes:
    return _encode([record.to_json() for record in history])


def _rules_text(rules: Any) -> bytes:
    return _encode(rules.to_json())


_NO_HISTORY = msgspec.Raw(b"[]")
#: Tables whose last board's text is kept (``_board_text``), some 1.3 KB each.
BOARDS = 1024
_boards: dict[str, tuple[tuple[Any, ...], list[bytes]]] = {}
#: Texts kept: a few hundred tables' rules and scored rounds, some 300 bytes each.
KEPT = 1024
_texts = KeptEncodings(KEPT)
