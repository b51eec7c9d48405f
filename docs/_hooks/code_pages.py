"""The settings, error-code and command-line references, rendered from the code itself."""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
from dataclasses import MISSING, fields
from typing import Any

from manhattan import settings as settings_module
from manhattan.wire import codes

#: A sentence for each code of the catalogue (``manhattan.wire.codes``). A code without one
#: stops the build: say here what a caller did to get it, or what it should do.
CODE_MEANINGS: dict[str, str] = {
    "INVALID_STATE": "The state is malformed or breaks the rules' invariants; `path` names the fault.",
    "INVALID_MOVE": "The move is malformed: not a move of the format or the notation.",
    "ILLEGAL_MOVE": "A well-formed move the rules do not allow in this state; the message names the rule.",
    "GAME_OVER": "The game is over: no move may follow.",
    "STATE_NOT_FOUND": "No cached state has this id (it expired, or was cached elsewhere).",
    "BAD_TOKEN": "The token was altered, truncated, sealed with an unknown key or belongs to another game.",
    "PAYLOAD_TOO_LARGE": "The body, the GraphQL document or its variables exceed their limits.",
    "QUERY_TOO_COMPLEX": "The GraphQL operation is too deep, has too many aliases or tokens, or costs too much.",
    "RATE_LIMITED": "Too many requests, table creations, joins, tickets or chat lines; `Retry-After` says when to retry.",
    "INVALID_SETUP": "The game's setup is not one the rules allow; `path` names the field.",
    "INVALID_PLAYER": "The player number is not a seat of this game.",
    "INVALID_BOT": "The bot's level or budget is not one the service offers; `path` names the field.",
    "NOT_YOUR_TURN": "A move or a suggestion for a player who is not to move.",
    "INVALID_REQUEST": "The request is not its shape: `path` names the field and the message its bounds.",
    "STATE_JSON_REFUSED": "A strict service accepts states only as tokens or ids, never as JSON.",
    "WRONG_PLAYER": "The token was issued to another player than `Manhattan-Player` names.",
    "WRONG_GAME": "A state of another game than `Manhattan-Game` names.",
    "PLAYER_REQUIRED": "A strict service answers only a player: name one with `Manhattan-Player`.",
    "STALE_TOKEN": "A strict service's token was already used for a move: go on from the newer one.",
    "NOT_FOUND": "No such route.",
    "METHOD_NOT_ALLOWED": "The route does not take this method.",
    "NOT_ACCEPTABLE": "`Accept` names neither JSON nor msgpack.",
    "UNSUPPORTED_MEDIA_TYPE": "The body is neither JSON nor msgpack.",
    "NOT_IMPLEMENTED": "An analysis the service does not offer for this edition or variant.",
    "STORE_UNAVAILABLE": "Redis or the data directory did not answer in time; a state sent whole still works.",
    "BOTS_BUSY": "Every bot worker is busy and the queue is full; `Retry-After` says when one frees.",
    "CLIENT_CLOSED_REQUEST": "The client hung up before the answer (seen only in logs and metrics).",
    "INTERNAL_ERROR": "A bug: the service logged it with the request's id.",
    "TABLE_NOT_FOUND": "No such table, or it expired after `MANHATTAN_TABLE_IDLE_SECONDS` idle.",
    "TABLE_FULL": "Every seat of the table is taken.",
    "TABLE_NOT_WAITING": "The table has started or ended: no more joins.",
    "STALE_VERSION": "The table moved on since the version sent; the body's `table` is the table now.",
    "BAD_SEAT": "The seat token is garbage, another table's or revoked.",
    "NOT_SEATED": "Only a seated person may do this (a spectator cannot move or chat).",
    "TABLE_NOT_OVER": "The record is published only once the game is over.",
    "TABLE_NOT_PLAYING": "A move before the table started.",
    "NAME_TAKEN": "The name is at the table already, or looks the same (case, width, confusables).",
    "TOO_FEW_PLAYERS": "A table starts with at least two seats filled.",
    "TOO_MANY_STREAMS": "Too many open streams from this address, or spectators of this table.",
    "BAD_KEY": "A platform's request without a valid `Manhattan-Key`.",
    "SEAT_RESERVED": "The seat is kept for someone: a platform's player, or a rematch's.",
    "WEBHOOK_URL_REFUSED": "The webhook's URL is not http(s), or resolves to a private address.",
    "PLAYER_NOT_FOUND": "The platform's player has no rating yet (no rated game played).",
}


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def error_codes_page() -> str:
    missing = sorted(set(codes.HTTP_STATUS) - set(CODE_MEANINGS))
    if missing:
        raise RuntimeError(f"codes without a sentence in docs/_hooks/code_pages.py: {missing}")
    contract = list(codes.HTTP_STATUS)[:9]
    groups = (
        ("The contract's codes", contract),
        (
            "The service's additions",
            [
                c
                for c in codes.HTTP_STATUS
                if c not in contract and c not in codes.TABLE_CODES and c not in codes.PLATFORM_CODES
            ],
        ),
        ("Tables", list(codes.TABLE_CODES)),
        ("Platforms", list(codes.PLATFORM_CODES)),
    )
    lines = [
        "# Error codes",
        "",
        "<!-- Generated from manhattan.wire.codes at every build (docs/_hooks). -->",
        "",
        "Every refusal carries one of these codes: a REST answer's body",
        '`{"code", "message", "path"?, "index"?}` with the status below, a GraphQL',
        "`MoveRejected` or `TableRejected` (or `extensions.code` on an error), a table socket's",
        "`error` message. The codes are stable; the messages are for people and may change.",
        "",
    ]
    for title, names in groups:
        lines += [f"## {title}", "", "| code | HTTP status | meaning |", "|---|---|---|"]
        lines += [f"| `{c}` | {codes.HTTP_STATUS[c]} | {CODE_MEANINGS[c]} |" for c in names]
        lines.append("")
    return "\n".join(lines)


def _field_comments() -> dict[str, str]:
    """Each ``Settings`` field's ``#:`` comment, the lines just above its declaration."""
    source = inspect.getsource(settings_module)
    lines = source.splitlines()
    tree = ast.parse(source)
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Settings":
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    comment: list[str] = []
                    row = item.lineno - 2
                    while row >= 0 and lines[row].strip().startswith("#:"):
                        comment.insert(0, lines[row].strip()[2:].strip())
                        row -= 1
                    found[item.target.id] = " ".join(comment)
    return found


def _default(name: str, value: Any) -> str:
    if name == "web_dir":
        return "the page inside the package (`manhattan/web`), else the checkout's `clients/web/play`"
    if name == "data_dir":
        return f"`{settings_module.DEFAULT_DATA_DIR}` (relative to the working directory)"
    if isinstance(value, tuple):
        return "empty" if not value else f"`{','.join(value)}`"
    if value == "":
        return "empty"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def settings_page() -> str:
    comments = _field_comments()
    declared = fields(settings_module.Settings)
    missing = [f.name for f in declared if not comments.get(f.name)]
    if missing:
        raise RuntimeError(f"settings without a #: comment in manhattan/settings.py: {missing}")
    lines = [
        "# Settings",
        "",
        "<!-- Generated from manhattan.settings.Settings at every build (docs/_hooks). -->",
        "",
        "Every setting is an environment variable, read once at start; all are optional. A",
        "value that cannot be read stops `manhattan serve` with `INVALID_SETTINGS` and the",
        "variable's name. `manhattan serve --host/--port` override the first two.",
        "",
        "| variable | default | meaning |",
        "|---|---|---|",
    ]
    for declared_field in declared:
        variable = str(declared_field.metadata["variable"]) or (
            f"MANHATTAN_{declared_field.name.upper()}"
        )
        default = declared_field.default if declared_field.default is not MISSING else ""
        lines.append(
            f"| `{variable}` | {cell(_default(declared_field.name, default))} "
            f"| {cell(comments[declared_field.name].replace('``', '`'))} |"
        )
    return "\n".join([*lines, ""])


def _help_of(run: Any) -> str:
    """What ``run(["--help"])`` prints (argparse exits after it)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        run(["--help"])
    return out.getvalue()


def cli_page() -> str:
    import importlib

    from manhattan import cli

    parser = cli.build_parser()
    lines = [
        "# Command line",
        "",
        "<!-- Generated from the command's parsers at every build (docs/_hooks). -->",
        "",
        "`pip install` puts one command on the `PATH`, `manhattan`, with these subcommands.",
        "",
        "```text",
        parser.format_help().rstrip(),
        "```",
        "",
    ]
    subparsers = next(
        action for action in parser._actions if action.choices and action.dest == "command"
    )
    for name, sub in subparsers.choices.items():
        lines += [f"## manhattan {name}", ""]
        if name == "play":
            from manhattan.terminal.command import build_parser

            text = build_parser().format_help()
        elif name == "tournament":
            from manhattan.bench.tournament import run

            text = _help_of(run)
        else:
            text = sub.format_help()
        lines += ["```text", text.rstrip(), "```", ""]
        if name == "bench":
            for what in cli.BENCHES:
                module = importlib.import_module(f"manhattan.bench.{what}")
                lines += [f"### manhattan bench {what}", ""]
                lines += ["```text", _help_of(module.run).rstrip(), "```", ""]
    return "\n".join(lines)
