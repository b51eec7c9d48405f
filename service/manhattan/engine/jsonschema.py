"""``schema/state.schema.json``: the JSON Schema of the state, view and move formats (DESIGN §2).

Derived, not written: it is ``msgspec.json.schema_components`` of the classes in ``formats.py``,
the same classes ``codec`` checks a state with, so a bound cannot be stated in one and not the
other. The shaping here is presentation, with one exception: the formats named in
``formats.NAMED`` (and the vocabularies) are the ``$defs``, every other object is written inline,
msgspec's titles (class names) are left out. The exception: msgspec renders ``Literal[0, 3]`` as
a bare ``enum``, which JSON Schema matches by numeric value (``0.0`` is a member), while the
decoder wants the number written as an integer (``0.0`` is refused, as for every other integer),
so an enum of integers also says ``"type": "integer"``. JSON Schema cannot say everything
``State.from_json`` checks (card and piece conservation, turn consistency, bounds that depend on
the rules); the descriptions say so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from manhattan.engine.events import EVENT_TYPES
from manhattan.engine.formats import NAMED, UrbanRule
from manhattan.engine.moves import MOVE_TYPES

SCHEMA_FILE = "state.schema.json"
_DEFS = "#/$defs/"


def _shaped(node: Any, components: dict[str, Any], names: dict[str, str]) -> Any:
    """``node`` with references to unnamed components inlined, named ones renamed, and no
    titles or discriminators (OpenAPI's keyword; the ``type`` constant says the same)."""
    if isinstance(node, list):
        return [_shaped(item, components, names) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS):
        component = ref.removeprefix(_DEFS)
        if component in names:
            return {**node, "$ref": _DEFS + names[component]}
        return _shaped(components[component], components, names)
    shaped = {
        # docstrings are wrapped as code: a description is one line of text
        key: " ".join(value.split()) if key == "description" else _shaped(value, components, names)
        for key, value in node.items()
        if key not in ("title", "discriminator")
    }
    if _integer_enum(shaped):
        return {"type": "integer", **shaped}
    return shaped


def _integer_enum(node: dict[str, Any]) -> bool:
    """An untyped ``enum`` of integers only (``bool`` is not one): msgspec's ``Literal[0, 3]``."""
    members = node.get("enum")
    return (
        "type" not in node
        and isinstance(members, list)
        and bool(members)
        and all(type(member) is int for member in members)
    )


def build_schema() -> dict[str, Any]:
    tops, components = msgspec.json.schema_components(
        [*NAMED.values(), UrbanRule], ref_template=_DEFS + "{name}"
    )
    # A format that is one class is a reference to its component: that component takes its name.
    names = {
        top["$ref"].removeprefix(_DEFS): name
        for name, top in zip(NAMED, tops, strict=False)
        if set(top) == {"$ref"}
    }
    defs = {
        name: _shaped(components[component], components, names) for component, name in names.items()
    }
    for name, top in zip(NAMED, tops, strict=False):
        defs.setdefault(name, _shaped(top, components, names))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://manhattan-rules.example/schema/state.schema.json",
        "title": "Manhattan state, view and move formats",
        "$ref": _DEFS + "state",
        "$defs": {
            **{name: defs[name] for name in NAMED},
            "moveType": {"enum": list(MOVE_TYPES)},
            "eventType": {"enum": list(EVENT_TYPES)},
            "urbanRule": tops[-1],
        },
    }


def render() -> str:
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"


def write_state_schema(directory: Path) -> Path:
    path = directory / SCHEMA_FILE
    path.write_text(render(), encoding="utf-8")
    return path
