"""Asking the person for a move, the same way at a local game and at a shared table.

In the selection phase each choice is said as counts of 1- to 4-floor pieces for the color
named ("1×1-floor, 2×2-floor, 1×3-floor (4 pieces)"). In the build phase the legal moves (up to
about a hundred) are offered in two steps: a piece (floors and color), then a block, each block
named by the board's coordinates with the card that reaches it. ``preview N`` says what block N
would change; ``why B5`` says why the chosen piece cannot go on a block (the rule and the
numbers, from the service or the engine, in people's words); ``back`` returns to the pieces. A
move can always be typed in notation instead; a refused one is said as a sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from manhattan.terminal.drawing import card_blocks, draw_moves, parse_block
from manhattan.terminal.words import (
    COLOR_NAMES,
    Names,
    block_name,
    floors_text,
    humane,
    move_fault,
    pieces_text,
)

JSON = dict[str, Any]
QUIT = ("q", "quit", "exit")
BOARD = ("b", "board", "?", "help")


class Adviser(Protocol):
    """What-if answers for the seat to move, from its own view."""

    def preview(self, move: JSON) -> str: ...

    def explain(self, move: JSON) -> str: ...


def piece_label(move: JSON) -> str:
    return f"{floors_text(move['floors'])} of {COLOR_NAMES[move['color']]}"


def choices_text(moves: list[JSON], view: JSON) -> str:
    """The legal moves as a numbered list: a selection's choices in counts of pieces for the
    color named, any other move in notation."""
    if not moves or any(m["type"] != "select" for m in moves):
        return "legal moves:\n" + draw_moves(moves)
    colors = sorted({m["color"] for m in moves})
    need = sum(moves[0]["pieces"])
    named = " or ".join(COLOR_NAMES[c] for c in colors)
    supply = "; ".join(f"{COLOR_NAMES[c]} {pieces_text(view['supply'][c])}" for c in colors)
    head = (
        f"choose {need} pieces for {named} this round, as counts of 1- to 4-floor pieces "
        f"(in supply: {supply}):"
    )
    labels = [
        (f"{COLOR_NAMES[m['color']]}: " if len(colors) > 1 else "") + pieces_text(m["pieces"])
        for m in moves
    ]
    return head + "\n" + _numbered(labels)


def block_label(move: JSON) -> str:
    return f"{block_name(*move['block'])} (card {move['card']})"


@dataclass
class BuildChoice:
    """The build phase in two steps; ``piece`` is the chosen group, None before."""

    moves: list[JSON]
    groups: list[list[JSON]] = field(default_factory=list)
    piece: int | None = None

    def __post_init__(self) -> None:
        by_piece: dict[tuple[int, int], list[JSON]] = {}
        for move in self.moves:
            by_piece.setdefault((move["floors"], move["color"]), []).append(move)
        self.groups = [by_piece[key] for key in sorted(by_piece)]
        if len(self.groups) == 1:
            self.piece = 0

    def options(self) -> str:
        if self.piece is None:
            labels = [f"{piece_label(g[0])} ({len(g)} blocks)" for g in self.groups]
            return "pieces you can build:\n" + _numbered(labels)
        group = self.groups[self.piece]
        head = f"{piece_label(group[0])} can go on:"
        return head + "\n" + _numbered([block_label(m) for m in group])

    def choose(self, number: int) -> JSON | None:
        """The move for block ``number``, or None after choosing a piece."""
        if self.piece is None:
            self.piece = number - 1
            return None
        return self.groups[self.piece][number - 1]

    def size(self) -> int:
        return len(self.groups) if self.piece is None else len(self.groups[self.piece])


def ask_move(
    moves: list[JSON],
    view: JSON,
    *,
    say: Callable[[str], None],
    read: Callable[[str], str],
    show: Callable[[], None],
    check: Callable[[str], JSON | str],
    adviser: Adviser,
    names: Names,
    other: Callable[[str], bool] = lambda _text: False,
) -> JSON | str | None:
    """The move picked (a legal move, or what ``check`` makes of typed notation); None when
    the person quits or the input ends. ``other`` handles more commands (chat at a table)."""
    builds = [m for m in moves if m["type"] == "build"]
    choice = BuildChoice(builds) if builds and len(builds) == len(moves) else None
    say(choice.options() if choice else choices_text(moves, view))
    while True:
        line = read("your move (number or notation; 'board', 'quit'" + _more(choice) + "): ")
        text = line.strip()
        if not line or text in QUIT:
            return None
        if text in BOARD:
            show()
            say(choice.options() if choice else choices_text(moves, view))
        elif other(text):
            continue
        elif choice is not None and text in ("back", "pieces") and len(choice.groups) > 1:
            choice.piece = None
            say(choice.options())
        elif choice is not None and text.startswith(("preview", "why")):
            say(humane(_advise(choice, text, view, adviser), names))
        elif text.isascii() and text.isdigit():  # "²" is a digit to isdigit, not to int
            picked = _by_number(choice, moves, int(text), say)
            if picked is not None:
                return picked
        else:
            try:
                return check(text)
            except ValueError as exc:
                say(f"not allowed: {move_fault(str(exc))}")


def _more(choice: BuildChoice | None) -> str:
    if choice is None:
        return ""
    return "; 'back', 'preview N', 'why B5'" if choice.piece is not None else ""


def _by_number(
    choice: BuildChoice | None, moves: list[JSON], number: int, say: Callable[[str], None]
) -> JSON | None:
    size = choice.size() if choice else len(moves)
    if not 1 <= number <= size:
        say(f"pick a number from 1 to {size}")
        return None
    if choice is None:
        return moves[number - 1]
    move = choice.choose(number)
    if move is None:
        say(choice.options())
    return move


def _advise(choice: BuildChoice, text: str, view: JSON, adviser: Adviser) -> str:
    if choice.piece is None:
        return "pick a piece first"
    group = choice.groups[choice.piece]
    word, _, rest = text.partition(" ")
    if word == "preview":
        number = rest.strip()
        if not (number.isascii() and number.isdigit()) or not 1 <= int(number) <= len(group):
            return f"preview a block by its number, 1 to {len(group)}"
        return adviser.preview(group[int(number) - 1])
    block = parse_block(rest)
    if block is None:
        return "why needs a block's coordinates, such as 'why B5'"
    legal = [m for m in group if tuple(m["block"]) == block]
    if legal:
        return f"{block_label(legal[0])} is open to {piece_label(group[0])}"
    return _why_not(group[0], block, view, adviser)


def _why_not(piece: JSON, block: tuple[int, int, int], view: JSON, adviser: Adviser) -> str:
    n, r, c = block
    coordinate = block_name(n, r, c).split()[-1]
    seat = view["rules"]["seats"][view["player"]]
    cards = [card for card in view["hand"] if coordinate in card_blocks(card, seat)]
    if not cards:
        return f"none of your cards designates {block_name(n, r, c)} (RULES §2)"
    move = {
        "type": "build",
        "card": cards[0],
        "neighborhood": n,
        "floors": piece["floors"],
        "color": piece["color"],
    }
    return f"{block_name(n, r, c)}: {adviser.explain(move)}"


def _numbered(labels: list[str]) -> str:
    return "\n".join(f"{i:>4}) {label}" for i, label in enumerate(labels, 1))
