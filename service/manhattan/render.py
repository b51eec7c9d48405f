"""Board pictures: a deterministic SVG of any state or player view (DESIGN §2, RULES §1, §7, §9).

``render_svg(document)`` takes a state JSON object (``manhattan/state@1``), a view JSON object
(``manhattan/view@1``), or a ``State``/``View`` value, and returns an SVG document as text:

- the six neighborhoods in the 3x2 layout of RULES §9 [D11] (0 1 2 over 3 4 5), each with its
  display name (RULES §1) and its 3x3 blocks in the board frame (as seen from South);
- every building as a stack of its pieces, bottom to top, each piece as tall as its floors and
  filled with its color; the height is written on the block and the block is framed in the
  owner's color (the color of the top piece);
- the tallest building (RULES §7.3 [D7], only when exactly one is tallest) marked with a crown;
- each neighborhood's majority (RULES §7.2) named under the neighborhood's name;
- the monster (RULES §9) on its block;
- a header with the round, the phase, the player to move and the score of every color.

The same input always gives the same bytes (no ids, clocks or randomness), so tests compare
against golden files. Hidden information never appears: a view has none, and from a state only
public fields are drawn. A malformed state raises ``InvalidStateError`` (with the JSON path), as
everywhere else in the service.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from manhattan.engine import InvalidStateError, State, View
from manhattan.engine.rules import NEIGHBORHOOD_NAMES
from manhattan.engine.scoring import majorities, tallest_owner
from manhattan.engine.view import VIEW_FORMAT

__all__ = ["COLOR_FILLS", "COLOR_NAMES", "render_svg"]

STATE_FORMAT = "manhattan/state@1"
COLOR_NAMES = ("Red", "Blue", "Green", "Yellow")
COLOR_FILLS = ("#d1495b", "#2e6fd8", "#2a9d5c", "#f2c14e")
INK = "#22252b"
PAPER = "#fbfaf7"
GROUND = "#ece7dc"
CROWN = "#c9a227"
MONSTER = "#6a2c91"

BLOCK = 64  # one block's square, px
GAP = 4  # between blocks
PAD = 12  # inside a neighborhood panel
TITLE = 40  # a neighborhood's name and majority line
HEADER = 64
MARGIN = 16
GRID = 3 * BLOCK + 2 * GAP
PANEL_W = GRID + 2 * PAD
PANEL_H = TITLE + GRID + PAD
WIDTH = 2 * MARGIN + 3 * PANEL_W + 2 * MARGIN
HEIGHT = HEADER + 2 * PANEL_H + 3 * MARGIN
STACK_W = 26  # the width of a building's stack of pieces
STACK_MAX = BLOCK - 14  # the tallest a stack is drawn; taller buildings are drawn to scale
FLOOR_PX = 7.0


@dataclass(frozen=True, slots=True)
class Picture:
    """The public facts a picture shows, read from a state or a view."""

    board: list[tuple[tuple[int, int], ...]]  # 54 buildings, flat index n*9 + r*3 + c
    colors: int
    players: int
    player_colors: list[list[int]]
    rounds: int
    round: int
    phase: str
    to_move: int | None
    scores: list[int]
    monster: tuple[int, int, int] | None
    viewer: int | None  # the player whose view this is, None for a full state


def render_svg(document: Mapping[str, Any] | State | View) -> str:
    """The SVG picture of a state or a view (see the module docstring)."""
    return _draw(_read(document))


# -- reading ---------------------------------------------------------------------------------
def _read(document: Mapping[str, Any] | State | View) -> Picture:
    if isinstance(document, State | View):
        document = document.to_json()
    if not isinstance(document, Mapping):
        raise InvalidStateError("$", "a state or a view is a JSON object")
    kind = document.get("format")
    if kind == STATE_FORMAT:
        state_json = State.from_json(dict(document)).to_json()  # validates, with JSON paths
        return _picture(state_json, viewer=None)
    if kind == VIEW_FORMAT:
        _check_view(document)
        return _picture(document, viewer=document["player"])
    raise InvalidStateError("$.format", f"expected {STATE_FORMAT!r} or {VIEW_FORMAT!r}")


def _picture(doc: Mapping[str, Any], viewer: int | None) -> Picture:
    rules = doc["rules"]
    board = [
        tuple((int(color), int(floors)) for color, floors in block)
        for neighborhood in doc["board"]
        for block in neighborhood
    ]
    monster = doc.get("monster")
    return Picture(
        board=board,
        colors=len(doc["scores"]),
        players=int(rules["players"]),
        player_colors=[list(cs) for cs in rules["colors"]],
        rounds=int(rules["rounds"]),
        round=int(doc["round"]),
        phase=str(doc["phase"]),
        to_move=doc.get("toMove"),
        scores=[int(s) for s in doc["scores"]],
        monster=None if monster is None else (monster[0], monster[1], monster[2]),
        viewer=viewer,
    )


def _check_view(doc: Mapping[str, Any]) -> None:
    """Enough of a view's shape to draw it; the service produced it, so this guards typos."""

    def fail(path: str, message: str) -> InvalidStateError:
        return InvalidStateError(path, message)

    for key in ("rules", "board", "scores", "round", "phase", "player"):
        if key not in doc:
            raise fail(f"$.{key}", "required")
    colors = doc["scores"]
    if not isinstance(colors, list) or not 1 <= len(colors) <= 4:
        raise fail("$.scores", "one score per color, 1 to 4 colors")
    board = doc["board"]
    if not isinstance(board, list) or len(board) != 6:
        raise fail("$.board", "six neighborhoods")
    for n, blocks in enumerate(board):
        if not isinstance(blocks, list) or len(blocks) != 9:
            raise fail(f"$.board[{n}]", "nine blocks")
        for b, block in enumerate(blocks):
            for i, piece in enumerate(block if isinstance(block, list) else [None]):
                ok = (
                    isinstance(piece, list)
                    and len(piece) == 2
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in piece)
                    and 0 <= piece[0] < len(colors)
                    and 1 <= piece[1] <= 4
                )
                if not ok:
                    raise fail(f"$.board[{n}][{b}][{i}]", "a piece is [color, floors 1..4]")
    monster = doc.get("monster")
    if monster is not None and not (
        isinstance(monster, list)
        and len(monster) == 3
        and all(isinstance(x, int) for x in monster)
        and 0 <= monster[0] < 6
        and 0 <= monster[1] < 3
        and 0 <= monster[2] < 3
    ):
        raise fail("$.monster", "null or [n, r, c]")


# -- drawing ---------------------------------------------------------------------------------
def _draw(picture: Picture) -> str:
    heights = [sum(f for _, f in b) for b in picture.board]
    tallest_color = tallest_owner(picture.board, heights)
    tallest_block = heights.index(max(heights)) if tallest_color is not None else None
    won = majorities(picture.board, picture.colors)
    majority_of = {n: c for c, ns in enumerate(won) for n in ns}
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="Helvetica, Arial, sans-serif" '
        f'role="img" aria-label={quoteattr(_summary(picture))}>',
        f"<title>{escape(_summary(picture))}</title>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="{PAPER}"/>',
        *_header(picture),
    ]
    for n in range(6):
        parts += _neighborhood(picture, n, heights, tallest_block, majority_of.get(n))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _summary(picture: Picture) -> str:
    whose = "" if picture.viewer is None else f", view of player {picture.viewer}"
    return f"Manhattan board, round {picture.round} of {picture.rounds}, {picture.phase}{whose}"


def _header(picture: Picture) -> list[str]:
    if picture.phase == "over":
        status = f"Game over after {picture.rounds} rounds"
    else:
        verb = "selecting pieces" if picture.phase == "select" else "building"
        status = (
            f"Round {picture.round} of {picture.rounds} · {verb} · player {picture.to_move} to move"
        )
    if picture.viewer is not None:
        status += f" · view of player {picture.viewer}"
    out = [_text(MARGIN, 28, status, size=18, weight="bold")]
    x = MARGIN
    for player, colors in enumerate(picture.player_colors):
        for color in colors:
            label = f"P{player} {COLOR_NAMES[color]}: {picture.scores[color]}"
            out.append(_swatch(x, 40, color))
            out.append(_text(x + 20, 52, label, size=14))
            x += 24 + 9 * len(label)
    return out


def _neighborhood(
    picture: Picture, n: int, heights: Sequence[int], tallest: int | None, majority: int | None
) -> list[str]:
    row, col = divmod(n, 3)
    x0 = MARGIN + col * (PANEL_W + MARGIN)
    y0 = HEADER + MARGIN + row * (PANEL_H + MARGIN)
    frame = INK if majority is None else COLOR_FILLS[majority]
    name = NEIGHBORHOOD_NAMES[n]
    out = [
        f'<g id="neighborhood-{n}" aria-label={quoteattr(name)}>',
        f'<rect x="{x0}" y="{y0}" width="{PANEL_W}" height="{PANEL_H}" rx="8" fill="#ffffff" '
        f'stroke="{frame}" stroke-width="{3 if majority is not None else 1}"/>',
        _text(x0 + PAD, y0 + 18, f"{n} {name}", size=15, weight="bold"),
    ]
    if majority is not None:
        out.append(_swatch(x0 + PAD, y0 + 24, majority, size=10))
        out.append(_text(x0 + PAD + 14, y0 + 33, f"majority {COLOR_NAMES[majority]}", size=11))
    else:
        out.append(_text(x0 + PAD, y0 + 33, "no majority", size=11, fill="#777777"))
    for b in range(9):
        r, c = divmod(b, 3)
        bx = x0 + PAD + c * (BLOCK + GAP)
        by = y0 + TITLE + r * (BLOCK + GAP)
        index = n * 9 + b
        monster_here = picture.monster == (n, r, c)
        out += _block(picture, (n, r, c), bx, by, heights[index], index == tallest, monster_here)
    out.append("</g>")
    return out


def _block(
    picture: Picture,
    where: tuple[int, int, int],
    x: int,
    y: int,
    height: int,
    tallest: bool,
    monster: bool,
) -> list[str]:
    n, r, c = where
    building = picture.board[n * 9 + r * 3 + c]
    owner = building[-1][0] if building else None
    frame = INK if owner is None else COLOR_FILLS[owner]
    out = [
        f'<g class="block" data-block="{n},{r},{c}">',
        f"<title>{escape(_describe(picture, where, building, height, tallest, monster))}</title>",
        f'<rect x="{x}" y="{y}" width="{BLOCK}" height="{BLOCK}" rx="4" fill="{GROUND}" '
        f'stroke="{frame}" stroke-width="{3 if owner is not None else 0.5}"/>',
    ]
    if building:
        scale = min(FLOOR_PX, STACK_MAX / height)
        left = x + 8
        bottom: float = y + BLOCK - 6
        for color, floors in building:
            tall = floors * scale
            bottom_px = round(bottom - tall, 2)
            out.append(
                f'<rect x="{left}" y="{_num(bottom_px)}" width="{STACK_W}" height="{_num(tall)}" '
                f'fill="{COLOR_FILLS[color]}" stroke="{INK}" stroke-width="0.75"/>'
            )
            bottom = bottom_px
        out.append(
            _text(x + BLOCK - 6, y + BLOCK - 8, str(height), size=16, weight="bold", anchor="end")
        )
    if tallest:
        out.append(_crown(x + BLOCK - 22, y + 5))
    if monster:
        out.append(
            f'<g class="monster"><circle cx="{x + BLOCK - 14}" cy="{y + BLOCK // 2 - 4}" r="10" '
            f'fill="{MONSTER}" stroke="#ffffff" stroke-width="1.5"/>'
            + _text(
                x + BLOCK - 14,
                y + BLOCK // 2,
                "M",
                size=12,
                weight="bold",
                fill="#ffffff",
                anchor="middle",
            )
            + "</g>"
        )
    out.append("</g>")
    return out


def _describe(
    picture: Picture,
    where: tuple[int, int, int],
    building: tuple[tuple[int, int], ...],
    height: int,
    tallest: bool,
    monster: bool,
) -> str:
    n, r, c = where
    text = f"{NEIGHBORHOOD_NAMES[n]} ({r},{c}): "
    if not building:
        text += "empty"
    else:
        floors = [0] * picture.colors
        for color, f in building:
            floors[color] += f
        mix = ", ".join(f"{COLOR_NAMES[k]} {f}" for k, f in enumerate(floors) if f)
        text += f"{height} floors, owner {COLOR_NAMES[building[-1][0]]} ({mix})"
    if tallest:
        text += ", tallest building"
    if monster:
        text += ", monster"
    return text


def _crown(x: int, y: int) -> str:
    points = [(0, 12), (0, 2), (4, 7), (8, 0), (12, 7), (16, 2), (16, 12)]
    path = " ".join(f"{x + px},{y + py}" for px, py in points)
    return (
        f'<polygon class="tallest" points="{path}" fill="{CROWN}" stroke="{INK}" '
        f'stroke-width="0.75"/>'
    )


def _swatch(x: int, y: int, color: int, size: int = 14) -> str:
    return (
        f'<rect x="{x}" y="{y}" width="{size}" height="{size}" rx="2" '
        f'fill="{COLOR_FILLS[color]}" stroke="{INK}" stroke-width="0.75"/>'
    )


def _text(
    x: float,
    y: float,
    content: str,
    *,
    size: int,
    weight: str = "normal",
    fill: str = INK,
    anchor: str = "start",
) -> str:
    return (
        f'<text x="{_num(x)}" y="{_num(y)}" font-size="{size}" font-weight="{weight}" '
        f'fill="{fill}" text-anchor="{anchor}">{escape(content)}</text>'
    )


def _num(value: float) -> str:
    """Fixed, short number formatting so the output is byte-for-byte stable."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text if text != "-0" else "0"
