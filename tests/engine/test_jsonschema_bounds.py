"""Every bound the state JSON Schema states is a bound the decoder enforces, at its path.

Both come from ``engine/formats.py`` (the schema is rendered from the format classes the codec
converts into). The cases are generated from the published schema: every bounded value of a
real mid-game state (each integer range, enum, string length and array length, followed into
nested objects, tuples and the first item of each array) is set just outside its bound, and
``State.from_json`` must refuse it with ``INVALID_STATE`` at that path (or at the list holding
it). ``test_codec_format.py`` checks the converse as a property.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

import manhattan
from manhattan.bench.engine import mid_game_state
from manhattan.engine.jsonschema import build_schema

SCHEMA = build_schema()
DEFS: dict[str, Any] = SCHEMA["$defs"]


def resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = DEFS[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def outside(schema: dict[str, Any], value: Any) -> Iterator[Any]:
    """Values just outside the bounds ``schema`` states (for a value of its own kind)."""
    if "const" in schema:
        yield "manhattan/state@0"
    if "enum" in schema:
        yield "not-a-member"
    kind = schema.get("type")
    if kind == "integer" and type(value) is int:
        if "minimum" in schema:
            yield schema["minimum"] - 1
        if "maximum" in schema:
            yield schema["maximum"] + 1
    if kind == "string" and isinstance(value, str):
        if schema.get("minLength", 0) > 0:
            yield ""
        if "maxLength" in schema:
            yield "x" * (schema["maxLength"] + 1)
    if kind == "array" and isinstance(value, list) and value:
        if schema.get("minItems", 0) > 0:
            yield value[: schema["minItems"] - 1]
        if "maxItems" in schema:
            yield value + [value[-1]] * (schema["maxItems"] + 1 - len(value))


def cases(schema: dict[str, Any], value: Any, path: str) -> Iterator[tuple[str, Any]]:
    schema = resolve(schema)
    for branch in schema.get("oneOf", schema.get("anyOf", [])):
        branch = resolve(branch)
        kind = branch.get("type")
        matches = (
            (kind == "null" and value is None)
            or (kind == "object" and isinstance(value, dict))
            or (kind == "array" and isinstance(value, list))
            or (kind == "integer" and type(value) is int)
        )
        if matches and kind != "null":
            yield from cases(branch, value, path)
    for bad in outside(schema, value):
        yield path, bad
    if isinstance(value, dict):
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                yield from cases(sub, value[key], f"{path}.{key}")
    if isinstance(value, list) and value and isinstance(schema.get("items"), dict):
        yield from cases(schema["items"], value[0], f"{path}[0]")
    if isinstance(value, list):
        for i, (sub, item) in enumerate(zip(schema.get("prefixItems", []), value, strict=False)):
            yield from cases(sub, item, f"{path}[{i}]")


def put(obj: Any, path: str, value: Any) -> Any:
    out = copy.deepcopy(obj)
    steps = path[1:].replace("[", ".[").split(".")[1:]
    here = out
    for step in steps[:-1]:
        here = here[int(step[1:-1])] if step.startswith("[") else here[step]
    last = steps[-1]
    if last.startswith("["):
        here[int(last[1:-1])] = value
    else:
        here[last] = value
    return out


STATE = mid_game_state().to_json()
CASES = list(cases(DEFS["state"], STATE, "$"))


def test_the_cases_cover_the_format() -> None:
    paths = {path for path, _ in CASES}
    assert {"$.format", "$.rules.players", "$.phase", "$.board[0][0][0][0]", "$.seed"} <= paths
    assert len(CASES) > 40


@pytest.mark.parametrize(("path", "value"), CASES, ids=[f"{p}={v!r:.20}" for p, v in CASES])
def test_a_value_outside_the_schema_is_refused_at_its_path(path: str, value: Any) -> None:
    with pytest.raises(manhattan.InvalidStateError) as caught:
        manhattan.State.from_json(put(STATE, path, value))
    got = caught.value.path
    # at the value itself, or at the list holding it when the codec checks the list as a whole
    # (colors and seats are checked as sets: "each exactly once")
    assert path == got or path.startswith(got + "["), caught.value.message
