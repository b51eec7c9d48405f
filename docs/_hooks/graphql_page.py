"""The GraphQL reference, rendered from the committed SDL (``schema/schema.graphql``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLUnionType,
    build_schema,
)

ROOTS = ("Query", "Mutation", "Subscription")


def cell(text: str | None) -> str:
    return " ".join((text or "").split()).replace("|", "\\|").replace("[", "\\[")


def type_ref(kind: Any) -> str:
    """``[Move!]!`` with the named type linked to its section."""
    if isinstance(kind, GraphQLNonNull):
        return type_ref(kind.of_type) + "!"
    if isinstance(kind, GraphQLList):
        return "[" + type_ref(kind.of_type) + "]"
    return f"[{kind.name}](#{kind.name.lower()})"


def _arguments(args: dict[str, Any]) -> str:
    return ", ".join(f"`{name}`: {type_ref(arg.type)}" for name, arg in args.items())


def _fields_table(fields: dict[str, Any], with_args: bool) -> list[str]:
    head = "| field | arguments | type | meaning |" if with_args else "| field | type | meaning |"
    lines = [head, "|---|---|---|---|" if with_args else "|---|---|---|"]
    for name, declared in fields.items():
        meaning = cell(declared.description)
        if getattr(declared, "deprecation_reason", None):
            meaning = f"deprecated: {cell(declared.deprecation_reason)}. {meaning}"
        args = _arguments(getattr(declared, "args", {}) or {})
        kind = type_ref(declared.type)
        lines.append(
            f"| `{name}` | {args} | {kind} | {meaning} |"
            if with_args
            else f"| `{name}` | {kind} | {meaning} |"
        )
    return [*lines, ""]


def _section(kind: Any) -> list[str]:
    lines = [f"### {kind.name}", ""]
    if kind.description:
        lines += [cell(kind.description), ""]
    if isinstance(kind, GraphQLObjectType | GraphQLInterfaceType):
        with_args = any(f.args for f in kind.fields.values())
        lines += _fields_table(kind.fields, with_args)
    elif isinstance(kind, GraphQLInputObjectType):
        one_of = " (exactly one field: `@oneOf`)" if getattr(kind, "is_one_of", False) else ""
        if one_of:
            lines += [f"An input{one_of}.", ""]
        lines += _fields_table(kind.fields, False)
    elif isinstance(kind, GraphQLUnionType):
        lines += ["One of " + ", ".join(type_ref(t) for t in kind.types) + ".", ""]
    elif isinstance(kind, GraphQLEnumType):
        lines += ["| value | meaning |", "|---|---|"]
        lines += [f"| `{name}` | {cell(v.description)} |" for name, v in kind.values.items()]
        lines.append("")
    elif isinstance(kind, GraphQLScalarType):
        lines += ["A scalar.", ""]
    return lines


def graphql_page(sdl_path: Path) -> str:
    schema = build_schema(sdl_path.read_text(encoding="utf-8"))
    lines = [
        "# GraphQL schema",
        "",
        "<!-- Generated from schema/schema.graphql at every build (docs/_hooks). -->",
        "",
        "`POST /graphql` (and `GET` for queries); subscriptions over the graphql-transport-ws",
        "protocol on the WebSocket at `/graphql`. A running service opens GraphiQL, served",
        "offline, when `/graphql` is visited in a browser. Every field that takes a state, a",
        "setup or a table answers a union of its result and a typed rejection (`MoveRejected`,",
        "`TableRejected`) with a code of [the catalogue](error-codes.md); the schema as a file",
        "is `schema/schema.graphql`.",
        "",
    ]
    for root in ROOTS:
        kind = schema.get_type(root)
        if isinstance(kind, GraphQLObjectType):
            lines += [f"## {root}", ""]
            lines += _fields_table(kind.fields, True)
    lines += ["## Types", ""]
    for name in sorted(schema.type_map, key=str.lower):
        if name.startswith("__") or name in ROOTS:
            continue
        kind = schema.type_map[name]
        if isinstance(kind, GraphQLScalarType) and name in ("String", "Int", "Float", "Boolean", "ID"):
            lines += [f"### {name}", "", "GraphQL's built-in scalar.", ""]
            continue
        lines += _section(kind)
    return "\n".join(lines)
