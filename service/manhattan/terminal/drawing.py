"""What the terminal prints: the board with one set of coordinates for everyone at the table,
the supply, the hand, events, round scores and the ranking; and ``clean``, which every text that
came from the network (names, chat, table names, messages) passes through before it is printed.

Coordinates are the board frame's, as the web page prints them on the board's edges: columns
A-I left to right, rows 1-6 top to bottom (as seen from South), so the block that one player
calls "Sydney E5" is "Sydney E5" for everyone; each player's cards stay drawn in their own seat's
frame, as in the box (RULES §2).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from manhattan.engine.rules import NEIGHBORHOOD_NAMES, rotate
from manhattan.terminal.words import (
    COLOR_NAMES,
    COLUMNS,
    Names,
    block_name,
    floors_text,
    pieces_text,
)

JSON = dict[str, Any]
COLOR_LETTERS = "RBGY"
MOVES_PER_LINE = 4
CELL = 5

#: Terminal control sequences: CSI (``ESC [ ... final``), OSC (``ESC ] ... BEL|ST``, which can
#: set the title or write the clipboard), and other two-character escapes.
_SEQUENCES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.?")


def clean(text: object) -> str:
    """``text`` without terminal control sequences, control or format characters (C0, C1,
    bidi controls, zero-width): what the network sends is shown, never obeyed."""
    plain = _SEQUENCES.sub("", str(text))
    return "".join(c for c in plain if unicodedata.category(c) not in ("Cc", "Cf"))


def parse_block(text: str) -> tuple[int, int, int] | None:
    """The block a coordinate names (``B5``, or ``Sydney E5``), or None."""
    token = text.strip().split()[-1].upper() if text.strip() else ""
    if len(token) != 2 or token[0] not in COLUMNS or token[1] not in "123456":
        return None
    col, row = COLUMNS.index(token[0]), int(token[1]) - 1
    return (row // 3) * 3 + col // 3, row % 3, col % 3


def _cell(building: list[list[int]], monster: bool, tallest: bool) -> str:
    if building:
        height = sum(floors for _, floors in building)
        text = f"{height}{COLOR_LETTERS[building[-1][0]]}"
    else:
        text = "."
    if tallest:
        text += "*"
    if monster:
        text += "@"
    return f"{text:>{CELL}}"


def draw_board(view: JSON) -> str:
    """The six neighborhoods in the 3x2 layout with the coordinates on the edges, each block as
    height + owner letter. ``*`` marks the tallest building (only when exactly one is tallest,
    RULES §7.3), ``@`` the monster."""
    board = view["board"]
    heights = {
        (n, b): sum(f for _, f in board[n][b]) for n in range(6) for b in range(9) if board[n][b]
    }
    top = max(heights.values(), default=0)
    tallest = [k for k, h in heights.items() if h == top]
    unique = tallest[0] if len(tallest) == 1 else None
    monster = tuple(view["monster"]) if view.get("monster") else None
    gap = "   "
    letters = gap.join("".join(f"{COLUMNS[h * 3 + c]:>{CELL}}" for c in range(3)) for h in range(3))
    lines = [f"   {letters}"]
    for row in range(2):
        names = [f"{NEIGHBORHOOD_NAMES[n]:<{CELL * 3}}" for n in range(row * 3, row * 3 + 3)]
        lines.append("     " + gap.join(names).rstrip())
        for r in range(3):
            cells = [
                "".join(
                    _cell(board[n][r * 3 + c], monster == (n, r, c), unique == (n, r * 3 + c))
                    for c in range(3)
                )
                for n in range(row * 3, row * 3 + 3)
            ]
            lines.append(f"{row * 3 + r + 1:>2} " + gap.join(cells).rstrip())
    lines.append("height+owner (R Red, B Blue, G Green, Y Yellow); * tallest; @ monster")
    return "\n".join(lines)


def draw_supply(view: JSON, names: Names) -> str:
    """Each player's colors: points, the pieces chosen for the round, the supply left."""
    lines = []
    for player, colors in enumerate(view["rules"]["colors"]):
        for color in colors:
            line = f"  {names.player(player)}, {COLOR_NAMES[color]}: {view['scores'][color]} points"
            if any(view["selected"][color]):
                line += f"; to build {pieces_text(view['selected'][color])}"
            lines.append(f"{line}; supply {pieces_text(view['supply'][color])}")
    return "\n".join(lines)


def draw_hand(view: JSON) -> str:
    """The hand as 3x3 grids in the holder's frame (``#`` = the card's block), then the six
    blocks each card designates, by the board's coordinates (RULES §2)."""
    hand = view["hand"]
    if not hand:
        return "(no cards)"
    seat = view["rules"]["seats"][view["player"]]
    rows: list[list[str]] = [[], [], [], []]
    for card in hand:
        rows[0].append(f"card {card}  ")
        for r in range(3):
            rows[r + 1].append(
                " ".join("#" if r * 3 + c == card else "." for c in range(3)) + "    "
            )
    width = 10
    lines = ["".join(f"{cell:<{width}}" for cell in row).rstrip() for row in rows]
    for card in hand:
        lines.append(f"card {card} -> {' '.join(card_blocks(card, seat))}")
    return "\n".join(lines)


def draw_turn(view: JSON, hand_title: str, names: Names) -> list[str]:
    """The lines a person reads when a move is theirs: round and phase, board, supply, hand."""
    phase = "choose your pieces" if view["phase"] == "select" else "build"
    return [
        "",
        f"--- round {view['round']} of {view['rules']['rounds']}: {phase} ---",
        draw_board(view),
        draw_supply(view, names),
        hand_title,
        draw_hand(view),
    ]


def card_blocks(card: int, seat: int) -> list[str]:
    """The coordinates of the six blocks a card in this seat's hand designates."""
    block = rotate(card, seat)
    return [block_name(n, block // 3, block % 3).split()[-1] for n in range(6)]


def draw_moves(moves: list[JSON]) -> str:
    cells = [f"{i:>3}) {m['notation']:<12}" for i, m in enumerate(moves, 1)]
    return "\n".join(
        "".join(cells[i : i + MOVES_PER_LINE]).rstrip()
        for i in range(0, len(cells), MOVES_PER_LINE)
    )


def _where(block: list[int]) -> str:
    n, r, c = block
    return block_name(n, r, c)


def describe_event(event: JSON, names: Names) -> str | None:
    """One line per public event (and the reader's own draws); None for what is not shown."""
    kind = event["type"]
    who = names.player(event.get("player"))
    if kind == "piecesSelected":
        color = COLOR_NAMES[event["color"]]
        return f"{who} chose {color} pieces for the round: {pieces_text(event['pieces'])}"
    if kind == "piecePlaced":
        return (
            f"{who} built {floors_text(event['floors'])} of {COLOR_NAMES[event['color']]} on "
            f"{_where(event['block'])}, now {event['height']} high"
        )
    if kind == "takeover":
        return f"  {names.color(event['to'])} takes the building from {names.color(event['from'])}"
    if kind == "pieceForfeited":
        return f"{who} could not build: gave up a {event['floors']}-floor piece"
    if kind == "monsterMoved":
        return f"  the monster moves to {_where(event['to'])}"
    if kind == "buildingDestroyed":
        return f"  the monster destroys the building on {_where(event['block'])}"
    if kind == "pieceRemoved":
        return f"  the monster knocks the top piece off {_where(event['block'])}"
    if kind == "cardDrawn" and event.get("player") == names.me:
        return f"  you draw card {event['card']}"
    if kind == "deckReshuffled":
        return "  the discard pile is shuffled into a new deck"
    if kind == "urbanRevealed":
        return f"round {event['round']} urban rule: {clean(event['card'])}"
    return None


def draw_round_scores(event: JSON, view: JSON, names: Names) -> str:
    lines = [f"=== round {event['round']} scored ==="]
    colors = view["rules"]["colors"]
    breakdowns = event["scores"]
    for player, owned in enumerate(colors):
        gained = sum(breakdowns[c]["total"] for c in owned)
        total = sum(event["totals"][c] for c in owned) if "totals" in event else None
        parts = []
        for c in owned:
            b = breakdowns[c]
            where = ", ".join(NEIGHBORHOOD_NAMES[n] for n in b["majorities"]) or "none"
            parts.append(
                f"{COLOR_NAMES[c]}: buildings {b['buildings']}, majorities in {where}, "
                f"tallest {b['tallest']}, urban {b['urban']}"
            )
        suffix = "" if total is None else f" (total {total})"
        lines.append(f"  {names.player(player)}: +{gained}{suffix}   " + "; ".join(parts))
    return "\n".join(lines)


def draw_ranking(ranking: list[JSON], names: Names) -> str:
    lines = ["=== final ranking ==="]
    for placing in ranking:
        points = placing["score"]
        who = names.player(placing["player"])
        lines.append(f"  {placing['place']}. {who}, {points} point{'s' if points != 1 else ''}")
    return "\n".join(lines)
