"""The REST reference and the formats page, rendered from the committed JSON documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Schema = dict[str, Any]


def cell(text: str) -> str:
    """Text fit for a Markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def prose(text: str) -> str:
    """A description in a cell: brackets escaped (``board[n][r*3+c]`` is not a link)."""
    return cell(text).replace("[", "\\[")


def describe(schema: Schema, link: str = "#") -> str:
    """One line for a JSON Schema: its type, bounds and closed set, a ``$ref`` as a link."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}]({link}{name.lower()})"
    if "anyOf" in schema or "oneOf" in schema:
        options = schema.get("anyOf") or schema.get("oneOf")
        return " or ".join(describe(option, link) for option in options)
    if "enum" in schema:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " or ".join(kind)
    if kind == "array":
        items = schema.get("items")
        kind = f"array of {describe(items, link)}" if isinstance(items, dict) else "array"
        if "prefixItems" in schema:
            kind = "[" + ", ".join(describe(i, link) for i in schema["prefixItems"]) + "]"
    bounds = [
        f"{word} {schema[key]}"
        for key, word in (
            ("minimum", "≥"),
            ("maximum", "≤"),
            ("exclusiveMinimum", ">"),
            ("exclusiveMaximum", "<"),
            ("minLength", "length ≥"),
            ("maxLength", "length ≤"),
            ("minItems", "items ≥"),
            ("maxItems", "items ≤"),
        )
        if key in schema
    ]
    if "pattern" in schema:
        bounds.append(f"pattern `{schema['pattern']}`")
    return kind + (f" ({', '.join(bounds)})" if bounds else "")


def property_table(schema: Schema, link: str = "#") -> list[str]:
    """A table of an object schema's properties: name, type, required, default, meaning."""
    properties: dict[str, Schema] = schema.get("properties", {})
    if not properties:
        return [f"Type: {describe(schema, link)}.", ""]
    required = set(schema.get("required", ()))
    lines = ["| field | type | required | default | meaning |", "|---|---|---|---|---|"]
    for name, prop in properties.items():
        meaning = prop.get("description") or next(
            (o.get("description", "") for o in prop.get("anyOf", ()) if "description" in o), ""
        )
        default = f"`{json.dumps(prop['default'])}`" if "default" in prop else ""
        lines.append(
            f"| `{name}` | {cell(describe(prop, link))} | {'yes' if name in required else ''} "
            f"| {cell(default)} | {prose(meaning)} |"
        )
    return [*lines, ""]


def schema_sections(schemas: dict[str, Schema], link: str = "#") -> list[str]:
    lines: list[str] = []
    for name, schema in schemas.items():
        lines += [f"### {name}", ""]
        if schema.get("description"):
            lines += [prose(schema["description"]), ""]
        lines += property_table(schema, link)
    return lines


def _operation(method: str, path: str, operation: Schema) -> list[str]:
    lines = [f"### {method.upper()} `{path}`", "", operation.get("summary", ""), ""]
    if operation.get("description"):
        lines += [operation["description"], ""]
    parameters = operation.get("parameters", [])
    if parameters:
        lines += ["| parameter | in | type | meaning |", "|---|---|---|---|"]
        for p in parameters:
            lines.append(
                f"| `{p['name']}` | {p['in']} | {cell(describe(p.get('schema', {})))} "
                f"| {prose(p.get('description', ''))} |"
            )
        lines.append("")
    body = operation.get("requestBody")
    if body:
        schema = next(iter(body["content"].values()))["schema"]
        lines += [f"Body: {describe(schema)}. {body.get('description', '')}".rstrip(), ""]
    lines += ["| status | answer |", "|---|---|"]
    for status, response in operation.get("responses", {}).items():
        content = response.get("content", {})
        shape = describe(next(iter(content.values()))["schema"]) if content else ""
        what = response.get("description", "")
        if shape and "Error" not in shape:
            what = f"{shape}: {what}"
        elif shape:
            what = f"{shape}: `{'`, `'.join(cell(what).split(', '))}`"
        lines.append(f"| {status} | {cell(what)} |")
    return [*lines, ""]


GROUPS = (
    ("Games (stateless)", lambda path: not path.startswith(("/v1/tables", "/v1/ratings"))),
    ("Tables", lambda path: path.startswith("/v1/tables")),
    ("Platforms", lambda path: path.startswith("/v1/ratings")),
)


def rest_page(openapi_path: Path) -> str:
    document = json.loads(openapi_path.read_text(encoding="utf-8"))
    info = document["info"]
    lines = [
        "# REST API",
        "",
        "<!-- Generated from schema/openapi.json at every build (docs/_hooks). -->",
        "",
        f"{info['description']} OpenAPI {document['openapi']}, API version {info['version']}.",
        "",
        "A running service serves this reference interactively at `/docs` (Swagger UI, offline,",
        "with *Try it out*) and the document itself at `/openapi.json`. Errors are",
        "`{\"code\", \"message\", \"path\"?, \"index\"?}` with the codes of",
        "[the code catalogue](error-codes.md).",
        "",
    ]
    for title, belongs in GROUPS:
        lines += [f"## {title}", ""]
        for path, operations in document["paths"].items():
            if belongs(path):
                for method, operation in operations.items():
                    lines += _operation(method, path, operation)
    lines += ["## Shapes", ""]
    lines += schema_sections(document["components"]["schemas"])
    return "\n".join(lines)


def formats_page(state_schema_path: Path) -> str:
    from manhattan.engine import moves

    grammar = (moves.__doc__ or "").split("::", 1)[1].split("Letters are read", 1)[0]
    notes = "Letters are read" + (moves.__doc__ or "").split("Letters are read", 1)[1]
    document = json.loads(state_schema_path.read_text(encoding="utf-8"))
    definitions: dict[str, Schema] = document.get("$defs", {})
    lines = [
        "# State and move formats",
        "",
        "<!-- Generated from schema/state.schema.json and manhattan.engine.moves (docs/_hooks). -->",
        "",
        "A state, a player's view and a move travel as JSON (or the same structure as msgpack).",
        "The service checks a state by converting it into these shapes, so a value outside them",
        "is `INVALID_STATE` at the `path` of the fault; what a schema cannot say (pieces and",
        "cards conserved, whose turn, the history adding up) is checked after.",
        "The JSON Schema itself is `schema/state.schema.json`.",
        "",
        "## Move notation",
        "",
        "One grammar for every move type (`manhattan.engine.moves`):",
        "",
        "```text",
        grammar.strip("\n").replace("\n    ", "\n").strip(),
        "```",
        "",
        " ".join(notes.replace("``", "`").split("Examples:")[0].split()),
        "",
        "| move | notation | JSON |",
        "|---|---|---|",
        '| select | `s0:2,2,1,1` | `{"type": "select", "color": 0, "pieces": [2, 2, 1, 1]}` |',
        '| build | `b4n3f2c0` | `{"type": "build", "card": 4, "neighborhood": 3, "floors": 2,'
        ' "color": 0}` |',
        '| forfeit | `x4f2c0` | `{"type": "forfeit", "card": 4, "floors": 2, "color": 0}` |',
        "",
        "## The shapes",
        "",
        "`state` is the whole game; `view` what one player may know of it (RULES §11);",
        "`move` one move in JSON.",
        "",
    ]
    lines += schema_sections(definitions)
    return "\n".join(lines)
