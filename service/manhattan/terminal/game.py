"""``manhattan play``: a whole game in the terminal against bots, in-process or through the service.

The human plays one seat and sees only that player's view (RULES §11): the board (six
neighborhoods, heights, owners, the tallest building, the monster), the supply, the cards in hand
drawn as 3x3 grids in the player's own frame (RULES §2), and the legal moves, picked by number or
typed in notation (``s0:2,2,1,1``, ``b4n3f2``, ``x4f2``). Scores are shown after every round.

Two tables hold the game: ``LocalTable`` runs the engine in this process; ``ServiceTable`` talks
to a running service (``--url``) over REST with the standard library only, holding the sealed
token the service minted and asking for the human's view. Bots use ``manhattan.bots.suggest`` on
their own player's view, or a uniformly random legal move when the bots package is missing.

``--table URL`` sits at a shared table of a running service instead, with other people and
bots, each on their own device (``terminal/table.py``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from typing import Any, Protocol, TextIO

from manhattan.bots.registry import LEVELS
from manhattan.engine import ManhattanError, Move, State, check_move, legal_moves, new_game
from manhattan.engine import play as play_move
from manhattan.engine import view as player_view
from manhattan.engine.rules import NEIGHBORHOOD_NAMES, SEAT_NAMES, rotate
from manhattan.http_client import HttpError
from manhattan.http_client import request as http_request

__all__ = [
    "LocalTable",
    "MoveRejected",
    "ServiceTable",
    "Session",
    "Table",
    "TableError",
    "draw_board",
    "draw_hand",
    "run",
]

JSON = dict[str, Any]
COLOR_LETTERS = "RBGY"
COLOR_NAMES = ("Red", "Blue", "Green", "Yellow")
MOVES_PER_LINE = 4


class MoveRejected(Exception):
    """A move the rules (or the notation) do not allow; the message says why."""


class TableError(Exception):
    """The table cannot go on (the service is unreachable or answered with an error)."""


class Table(Protocol):
    def view(self, player: int) -> JSON: ...
    def legal_moves(self) -> list[JSON]: ...
    def check(self, text: str) -> JSON: ...
    def play(self, move: JSON) -> list[JSON]: ...
    def bot_move(self, player: int) -> JSON: ...


# -- tables ----------------------------------------------------------------------------------
def _bot_suggest() -> Callable[..., Any] | None:
    try:
        from manhattan.bots import suggest
    except ImportError:
        return None
    return suggest


class LocalTable:
    """The game in this process, on the engine."""

    def __init__(self, setup: JSON, *, bot_level: str, seed: int) -> None:
        self.state: State = new_game(**setup)
        self.bot_level = bot_level
        self.rng = random.Random(seed)
        self.suggest = _bot_suggest()

    def view(self, player: int) -> JSON:
        return player_view(self.state, player).to_json()

    def legal_moves(self) -> list[JSON]:
        return [m.to_json() for m in legal_moves(self.state)]

    def check(self, text: str) -> JSON:
        try:
            return check_move(self.state, Move.parse(text)).to_json()
        except ManhattanError as exc:
            raise MoveRejected(exc.message) from None

    def play(self, move: JSON) -> list[JSON]:
        step = play_move(self.state, Move.from_json(move))
        self.state = step.state
        return [e.to_json() for e in step.events]

    def bot_move(self, player: int) -> JSON:
        seed = self.rng.randrange(2**31)
        if self.suggest is not None:
            chosen = self.suggest(player_view(self.state, player), level=self.bot_level, seed=seed)
            return check_move(self.state, chosen.move).to_json()
        return self.rng.choice(legal_moves(self.state)).to_json()


class ServiceTable:
    """The game held by a running service: this table keeps only the token it minted."""

    def __init__(self, url: str, setup: JSON, *, bot_level: str, seed: int) -> None:
        self.url = url.rstrip("/")
        self.bot_level = bot_level
        self.rng = random.Random(seed)
        wire = {_camel(k): v for k, v in setup.items() if v is not None}
        self.token: str = self._post("/v1/games", wire)["token"]

    def _post(self, path: str, body: JSON) -> JSON:
        try:
            reply = http_request(
                self.url + path,
                "POST",
                json.dumps(body).encode(),
                {"content-type": "application/json", "accept": "application/json"},
                timeout=30,
            )
        except HttpError as exc:
            raise TableError(f"cannot reach {self.url}: {exc}") from None
        try:
            answer: JSON = reply.json()
        except ValueError:
            answer = {"code": f"HTTP {reply.status}", "message": reply.body[:200].decode("latin-1")}
        if reply.ok:
            return answer
        if answer.get("code") in ("ILLEGAL_MOVE", "INVALID_MOVE"):
            raise MoveRejected(answer.get("message", ""))
        raise TableError(f"{answer.get('code')}: {answer.get('message')}")

    @property
    def _state(self) -> JSON:
        return {"token": self.token}

    def view(self, player: int) -> JSON:
        answer: JSON = self._post("/v1/view", {"state": self._state, "player": player})["view"]
        return answer

    def legal_moves(self) -> list[JSON]:
        moves: list[JSON] = self._post("/v1/legal-moves", {"state": self._state})["moves"]
        return moves

    def check(self, text: str) -> JSON:
        answer = self._post("/v1/validate", {"state": self._state, "move": text})
        if not answer.get("legal"):
            raise MoveRejected(answer.get("message", "not a legal move"))
        move: JSON = answer["move"]
        return move

    def play(self, move: JSON) -> list[JSON]:
        answer = self._post("/v1/apply", {"state": self._state, "move": move})
        self.token = answer["token"]
        events: list[JSON] = answer["events"]
        return events

    def bot_move(self, player: int) -> JSON:
        body = {
            "state": self._state,
            "player": player,
            "bot": self.bot_level,
            "seed": self.rng.randrange(2**31),
        }
        move: JSON = self._post("/v1/suggest", body)["move"]
        return move


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


# -- drawing ---------------------------------------------------------------------------------
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
    return f"{text:>5}"


def draw_board(view: JSON) -> str:
    """The six neighborhoods in the 3x2 layout, each block as height + owner letter.

    ``*`` marks the tallest building (only when exactly one is tallest, RULES §7.3), ``@`` the
    monster; rows and columns are in the board frame (as seen from South).
    """
    board = view["board"]
    heights = {
        (n, b): sum(f for _, f in board[n][b]) for n in range(6) for b in range(9) if board[n][b]
    }
    top = max(heights.values(), default=0)
    tallest = [k for k, h in heights.items() if h == top]
    unique = tallest[0] if len(tallest) == 1 else None
    monster = tuple(view["monster"]) if view.get("monster") else None
    lines: list[str] = []
    for row in range(2):
        names = [f"{n} {NEIGHBORHOOD_NAMES[n]}" for n in range(row * 3, row * 3 + 3)]
        lines.append("   ".join(f"{name:<15}" for name in names).rstrip())
        for r in range(3):
            cells = []
            for n in range(row * 3, row * 3 + 3):
                cells.append(
                    "".join(
                        _cell(board[n][r * 3 + c], monster == (n, r, c), unique == (n, r * 3 + c))
                        for c in range(3)
                    )
                )
            lines.append("   ".join(cells).rstrip())
        lines.append("")
    lines.append("height+owner (R Red, B Blue, G Green, Y Yellow); * tallest; @ monster")
    return "\n".join(lines)


def draw_supply(view: JSON) -> str:
    lines = []
    for player, colors in enumerate(view["rules"]["colors"]):
        for color in colors:
            supply = ",".join(str(x) for x in view["supply"][color])
            selected = ",".join(str(x) for x in view["selected"][color])
            lines.append(
                f"  player {player} {COLOR_NAMES[color]:<6} score {view['scores'][color]:>3}"
                f"   supply 1-4 floors [{supply}]   selected [{selected}]"
            )
    return "\n".join(lines)


def draw_hand(view: JSON) -> str:
    """The hand as 3x3 grids in the holder's frame (``#`` = the card's block), each labelled
    with its card number and the block it designates in the board frame (RULES §2)."""
    hand = view["hand"]
    if not hand:
        return "(no cards)"
    seat = view["rules"]["seats"][view["player"]]
    rows: list[list[str]] = [[], [], [], [], []]
    for card in hand:
        rows[0].append(f"card {card}  ")
        for r in range(3):
            rows[r + 1].append(
                " ".join("#" if r * 3 + c == card else "." for c in range(3)) + "    "
            )
        block = rotate(card, seat)
        rows[4].append(f"-> ({block // 3},{block % 3})")
    width = 10
    return "\n".join("".join(f"{cell:<{width}}" for cell in row).rstrip() for row in rows)


def draw_moves(moves: list[JSON]) -> str:
    cells = [f"{i:>3}) {m['notation']:<12}" for i, m in enumerate(moves, 1)]
    return "\n".join(
        "".join(cells[i : i + MOVES_PER_LINE]).rstrip()
        for i in range(0, len(cells), MOVES_PER_LINE)
    )


def _where(block: list[int]) -> str:
    """A block as the build lines name it: ``Cairo (2,1)``."""
    n, r, c = block
    return f"{NEIGHBORHOOD_NAMES[n]} ({r},{c})"


def describe_event(event: JSON, me: int) -> str | None:
    """One line per public event (and the human's own draws); None for what is not shown."""
    kind = event["type"]
    if kind == "piecesSelected":
        counts = ",".join(str(x) for x in event["pieces"])
        return f"player {event['player']} selects {COLOR_NAMES[event['color']]} [{counts}]"
    if kind == "piecePlaced":
        n, r, c = event["block"]
        return (
            f"player {event['player']} builds {event['floors']} floor(s) of "
            f"{COLOR_NAMES[event['color']]} on {NEIGHBORHOOD_NAMES[n]} ({r},{c}), "
            f"now {event['height']} high"
        )
    if kind == "takeover":
        return f"  takeover: {COLOR_NAMES[event['to']]} takes it from {COLOR_NAMES[event['from']]}"
    if kind == "pieceForfeited":
        return f"player {event['player']} cannot build: forfeits a {event['floors']}-floor piece"
    if kind == "monsterMoved":
        return f"  the monster moves to {_where(event['to'])}"
    if kind == "buildingDestroyed":
        return f"  the monster destroys the building on {_where(event['block'])}"
    if kind == "pieceRemoved":
        return f"  the monster knocks the top piece off {_where(event['block'])}"
    if kind == "cardDrawn" and event.get("player") == me:
        return f"  you draw card {event['card']}"
    if kind == "deckReshuffled":
        return "  the discard pile is shuffled into a new deck"
    if kind == "urbanRevealed":
        return f"round {event['round']} urban rule: {event['card']}"
    return None


def draw_round_scores(event: JSON, view: JSON) -> str:
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
        lines.append(f"  player {player}: +{gained}{suffix}   " + "; ".join(parts))
    return "\n".join(lines)


def draw_ranking(ranking: list[JSON]) -> str:
    lines = ["=== final ranking ==="]
    for placing in ranking:
        lines.append(
            f"  place {placing['place']}: player {placing['player']} with {placing['score']}"
        )
    return "\n".join(lines)


# -- the game loop ---------------------------------------------------------------------------
class Session:
    def __init__(self, table: Table, me: int | None, out: TextIO, lines: TextIO) -> None:
        self.table = table
        self.me = me
        self.out = out
        self.lines = lines

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def play(self) -> int:
        seat = 0 if self.me is None else self.me
        while True:
            view = self.table.view(seat)
            if view["phase"] == "over":
                return 0
            mover = view["toMove"]
            if mover == self.me:
                move = self._ask(view)
                if move is None:
                    self.say("game abandoned")
                    return 1
            else:
                move = self.table.bot_move(mover)
            who = "you" if mover == self.me else f"player {mover} (bot)"
            self.say(f"> {who}: {move['notation']}")
            events = self.table.play(move)
            self._report(events, seat)

    def _report(self, events: list[JSON], seat: int) -> None:
        for event in events:
            if event["type"] == "roundScored":
                self.say(draw_round_scores(event, self.table.view(seat)))
            elif event["type"] == "gameOver":
                self.say(draw_board(self.table.view(seat)))
                self.say(draw_ranking(event["ranking"]))
            else:
                line = describe_event(event, seat)
                if line:
                    self.say(line)

    def _show(self, view: JSON, moves: list[JSON]) -> None:
        seat_name = SEAT_NAMES[view["rules"]["seats"][view["player"]]]
        phase = "select your pieces" if view["phase"] == "select" else "build"
        self.say()
        self.say(f"--- round {view['round']} of {view['rules']['rounds']}: {phase} ---")
        self.say(draw_board(view))
        self.say(draw_supply(view))
        self.say(f"your hand (you sit {seat_name}; cards drawn as you see them):")
        self.say(draw_hand(view))
        self.say("legal moves:")
        self.say(draw_moves(moves))

    def _ask(self, view: JSON) -> JSON | None:
        moves = self.table.legal_moves()
        self._show(view, moves)
        while True:
            self.out.write("your move (number or notation, 'board', 'quit'): ")
            self.out.flush()
            line = self.lines.readline()
            if not line:
                self.say()
                return None
            text = line.strip()
            if text in ("q", "quit", "exit"):
                return None
            if text in ("b", "board", "?", "help"):
                self._show(view, moves)
                continue
            if text.isdigit():
                if 1 <= int(text) <= len(moves):
                    return moves[int(text) - 1]
                self.say(f"pick a number from 1 to {len(moves)}")
                continue
            try:
                return self.table.check(text)
            except MoveRejected as exc:
                self.say(f"not allowed: {exc}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="manhattan play", description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seat", type=int, default=0, help="your player index (default 0)")
    parser.add_argument("--seed", default=None, help="game seed (default: random)")
    parser.add_argument("--edition", default="classic", choices=("classic", "modern"))
    parser.add_argument("--variants", default=None, help='JSON, e.g. \'{"monster": "baby"}\'')
    parser.add_argument(
        "--bot", default="greedy", choices=LEVELS, help="bot level (default: greedy)"
    )
    parser.add_argument("--url", default=None, help="play through this service instead")
    parser.add_argument("--watch", action="store_true", help="bots play every seat")
    table = parser.add_argument_group("a shared table (DESIGN §9)")
    table.add_argument(
        "--table",
        default=None,
        metavar="URL",
        help="sit at this table: http://host:port/v1/tables/<id>, or a join link",
    )
    table.add_argument("--name", default=None, help="your name at the table")
    table.add_argument("--table-seat", type=int, default=None, help="the seat to take (index)")
    table.add_argument("--token", default=None, help="sit again with this seat token")
    table.add_argument(
        "--start", action="store_true", help="start the game once seated (seats filled so far)"
    )
    return parser


def run(argv: list[str], *, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """``manhattan play [options]``: 0 when the game was played to the end."""
    args = build_parser().parse_args(argv)
    out = stdout or sys.stdout
    if args.table:
        from manhattan.terminal.table import run_table

        return run_table(
            args.table,
            name=args.name,
            seat=args.table_seat,
            token=args.token,
            start=args.start,
            out=out,
            lines=stdin or sys.stdin,
        )
    seed = args.seed if args.seed is not None else f"{random.randrange(16**8):08x}"
    setup: JSON = {"players": args.players, "seed": seed, "edition": args.edition}
    if args.variants:
        setup["variants"] = json.loads(args.variants)
    bot_seed = int.from_bytes(seed.encode()[:8].ljust(8, b"\0"), "big")
    try:
        table: Table
        if args.url:
            table = ServiceTable(args.url, setup, bot_level=args.bot, seed=bot_seed)
        else:
            table = LocalTable(setup, bot_level=args.bot, seed=bot_seed)
        if not args.watch and not 0 <= args.seat < args.players:
            print(f"--seat is a player index from 0 to {args.players - 1}", file=out)
            return 2
        print(f"Manhattan, {args.players} players, seed {seed!r}", file=out)
        session = Session(table, None if args.watch else args.seat, out, stdin or sys.stdin)
        return session.play()
    except (ManhattanError, TableError) as exc:
        print(f"error: {exc}", file=out)
        return 2
