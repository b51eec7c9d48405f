"""``manhattan``: the Manhattan rules service's command (serve, play, bench, ...)."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from manhattan.engine import (
    ManhattanError,
    apply_move,
    legal_moves,
    new_game,
    player_scores,
    ranking,
)
from manhattan.engine.build import version_line

BENCHES = (
    "engine",
    "service",
    "bots",
    "ladder",
    "opponents",
    "horizon",
    "analysis",
    "soak",
    "attack",
    "tables",
)


def _random_game(args: argparse.Namespace) -> int:
    variants = json.loads(args.variants) if args.variants else None
    state = new_game(players=args.players, seed=args.seed, edition=args.edition, variants=variants)
    rng = random.Random(args.seed)
    moves = 0
    while state.phase != "over":
        state = apply_move(state, rng.choice(legal_moves(state)))
        moves += 1
    print(
        f"{args.players} players, {args.edition} edition, seed {state.seed!r}: "
        f"{moves} moves, {len(state.history)} rounds"
    )
    for record in state.history:
        totals = [sum(record.scores[c].total for c in cs) for cs in state.rules.colors]
        print(
            f"  round {record.round}: "
            + "  ".join(f"player {p}: +{t}" for p, t in enumerate(totals))
        )
    scores = player_scores(state)
    for placing in ranking(state):
        print(f"place {placing.place}: player {placing.player} with {scores[placing.player]}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    if args.what == "engine":
        from manhattan.bench.engine import run
    elif args.what == "bots":
        from manhattan.bench.bots import run
    elif args.what == "ladder":
        from manhattan.bench.ladder import run
    elif args.what == "opponents":
        from manhattan.bench.opponents import run
    elif args.what == "horizon":
        from manhattan.bench.horizon import run
    elif args.what == "analysis":
        from manhattan.bench.analysis import run
    elif args.what == "soak":
        from manhattan.bench.soak import run
    elif args.what == "attack":
        from manhattan.bench.attack import run
    elif args.what == "tables":
        from manhattan.bench.tables import run
    else:
        from manhattan.bench.service import run
    return run(args.rest)


def _play(args: argparse.Namespace) -> int:
    from manhattan.terminal.command import run

    return run(args.rest)


def _tournament(args: argparse.Namespace) -> int:
    from manhattan.bench.tournament import run

    return run(args.rest)


def _serve(args: argparse.Namespace) -> int:
    from manhattan.sealing import SealingKeyError
    from manhattan.server.serve import run
    from manhattan.settings import SettingsError
    from manhattan.store.sqlite_cas import DataDirectoryError

    try:
        run(args.host, args.port)
    except (SettingsError, SealingKeyError) as exc:  # a bad environment variable: say which
        print(f"error INVALID_SETTINGS: {exc}", file=sys.stderr)
        return 2
    except DataDirectoryError as exc:  # MANHATTAN_DATA_DIR unusable or held by another process
        print(f"error DATA_DIR_UNAVAILABLE: {exc}", file=sys.stderr)
        return 2
    return 0


def _export_schema(args: argparse.Namespace) -> int:
    from manhattan.engine.jsonschema import write_state_schema

    directory = Path(args.dir)
    directory.mkdir(parents=True, exist_ok=True)
    from manhattan.api.export import export_schemas

    written = [write_state_schema(directory), *export_schemas(directory)]
    for path in written:
        print(path)
    return 0


DESCRIPTION = "Manhattan rules-as-a-service: the board game's rules for programs and people."
EPILOG = (
    "Start with `manhattan serve`, then open http://127.0.0.1:8000/play/ to play. "
    "`manhattan COMMAND --help` shows a command's options."
)


class CommandsFormatter(argparse.HelpFormatter):
    """Help that lists each command on one line under "commands", without argparse's line of
    the commands' metavar above them (the one reach into argparse's formatting; a test holds
    the listing)."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=20)

    def _format_action(self, action: argparse.Action) -> str:
        if isinstance(action, argparse._SubParsersAction):
            return "".join(
                super(CommandsFormatter, self)._format_action(a) for a in action._get_subactions()
            )
        return super()._format_action(action)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="manhattan",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=CommandsFormatter,
    )
    parser.add_argument("--version", action="version", version=version_line())
    # One line a command: its name and what it does (no list of names in braces above them).
    sub = parser.add_subparsers(dest="command", title="commands", metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the service: the web page, REST and GraphQL")
    serve.add_argument("--host", default=None)
    serve.add_argument("--port", type=int, default=None)
    serve.set_defaults(func=_serve)

    game = sub.add_parser("random-game", help="play one random game and print the scores")
    game.add_argument("--players", type=int, default=4)
    game.add_argument("--seed", default="demo")
    game.add_argument("--edition", default="classic", choices=("classic", "modern"))
    game.add_argument("--variants", default=None, help='JSON, e.g. \'{"monster": "baby"}\'')
    game.set_defaults(func=_random_game)

    bench = sub.add_parser(
        "bench", help="measure speed and limits: " + ", ".join(BENCHES[:3]) + ", ..."
    )
    bench.add_argument("what", choices=BENCHES)
    bench.add_argument("rest", nargs=argparse.REMAINDER)
    bench.set_defaults(func=_bench)

    play = sub.add_parser("play", help="play in the terminal, against bots or at a table")
    play.add_argument("rest", nargs=argparse.REMAINDER)
    play.set_defaults(func=_play)

    tournament = sub.add_parser("tournament", help="seeded games between bots, with win rates")
    tournament.add_argument("rest", nargs=argparse.REMAINDER)
    tournament.set_defaults(func=_tournament)

    export = sub.add_parser("export-schema", help="write the schema/ files from the code")
    export.add_argument("--dir", default="schema")
    export.set_defaults(func=_export_schema)
    return parser


#: Subcommands whose options belong to another module's parser: everything after the name.
PASSTHROUGH = ("play", "tournament")


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in PASSTHROUGH:
        args = argparse.Namespace(
            rest=argv[1:], func={"play": _play, "tournament": _tournament}[argv[0]]
        )
    else:
        args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except ManhattanError as exc:
        print(f"error {exc.code}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
