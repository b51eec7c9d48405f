"""``manhattan play``'s command line: a game against bots (``game``) or a seat at a shared
table (``table``). Mistakes on the command line are usage errors (exit 2, a one-line message),
never a traceback."""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any, TextIO

from manhattan.bots.choice import DEFAULT_LEVEL
from manhattan.bots.registry import LEVELS
from manhattan.engine import ManhattanError
from manhattan.terminal.game import JSON, LocalTable, ServiceTable, Session, Table, TableError
from manhattan.terminal.table import run_table


def _variants(text: str) -> dict[str, Any]:
    """``--variants``: a JSON object such as ``{"monster": "baby"}``."""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(
            f'{text!r} is not a JSON object; write it as \'{{"monster": "baby"}}\''
        )
    return value


DESCRIPTION = (
    "Play Manhattan in the terminal: a whole game against bots (in this process, or through a "
    "running service with --url), or a seat at a shared table with other people and bots "
    "(--table URL). Pieces, blocks and explanations are said in words; a move may also be "
    "typed in notation (s0:2,2,1,1 chooses pieces, b4n3f2 builds, x4f2 gives up a piece)."
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="manhattan play", description=DESCRIPTION)
    parser.add_argument(
        "--players", type=int, default=4, help="players at the game, 2 to 4 (default 4)"
    )
    parser.add_argument(
        "--seat", type=int, default=0, help="your seat, 0 to players - 1 (default 0)"
    )
    parser.add_argument("--seed", default=None, help="the game's seed (default: a random one)")
    parser.add_argument(
        "--edition",
        default="classic",
        choices=("classic", "modern"),
        help="the rulebook's edition (default classic)",
    )
    parser.add_argument(
        "--variants",
        type=_variants,
        default=None,
        help='the variants as a JSON object, e.g. \'{"monster": "baby"}\'',
    )
    parser.add_argument(
        "--bot", default=DEFAULT_LEVEL, choices=LEVELS, help=f"bot level (default: {DEFAULT_LEVEL})"
    )
    parser.add_argument(
        "--url", default=None, help="play through the service at this URL instead of in-process"
    )
    parser.add_argument("--watch", action="store_true", help="watch: bots play every seat")
    table = parser.add_argument_group("a shared table (DESIGN §9)")
    table.add_argument(
        "--table",
        default=None,
        metavar="URL",
        help="sit at this table: http://host:port/v1/tables/<id>, or a join link",
    )
    table.add_argument("--name", default=None, help="your name at the table (default: terminal)")
    table.add_argument(
        "--table-seat", type=int, default=None, help="the seat to take, 0 to 3 (default: any open)"
    )
    table.add_argument(
        "--token", default=None, help="sit again with this seat token (printed when you join)"
    )
    table.add_argument(
        "--start", action="store_true", help="start the game once seated (seats filled so far)"
    )
    return parser


def run(argv: list[str], *, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """``manhattan play [options]``: 0 when the game was played to the end."""
    args = build_parser().parse_args(argv)
    out = stdout or sys.stdout
    lines = stdin or sys.stdin
    if args.table:
        return run_table(
            args.table,
            name=args.name,
            seat=args.table_seat,
            token=args.token,
            start=args.start,
            out=out,
            lines=lines,
        )
    if not args.watch and not 0 <= args.seat < args.players:
        print(f"--seat is a player index from 0 to {args.players - 1}", file=out)
        return 2
    seed = args.seed if args.seed is not None else f"{random.randrange(16**8):08x}"
    setup: JSON = {"players": args.players, "seed": seed, "edition": args.edition}
    if args.variants:
        setup["variants"] = args.variants
    bot_seed = int.from_bytes(seed.encode()[:8].ljust(8, b"\0"), "big")
    try:
        table: Table
        if args.url:
            table = ServiceTable(args.url, setup, bot_level=args.bot, seed=bot_seed)
        else:
            table = LocalTable(setup, bot_level=args.bot, seed=bot_seed)
        print(f"Manhattan, {args.players} players, seed {seed!r}", file=out)
        session = Session(table, None if args.watch else args.seat, out, lines)
        return session.play()
    except (ManhattanError, TableError) as exc:
        print(f"error: {exc}", file=out)
        return 2
