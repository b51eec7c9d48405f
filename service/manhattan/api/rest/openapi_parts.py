"""The pieces every operation of the OpenAPI document is built from: a parameter, a request body
and the responses (success and each error status with the codes it carries), for ``openapi.py`` and
``openapi_tables.py`` alike."""

from __future__ import annotations

import inspect
from collections.abc import Collection
from typing import Any

import msgspec

from manhattan.wire import HTTP_STATUS, ref

JSON = "application/json"
MSGPACK = "application/msgpack"


def wire_schema_components(types: tuple[type, ...], ref_template: str) -> dict[str, Any]:
    """``msgspec.json.schema_components`` of ``types``, each description a class's docstring
    cleaned as ``inspect.cleandoc`` cleans it: msgspec 0.22 keeps the indentation of a
    docstring's later lines and 0.23 removes it, and the document must not change with the
    version."""
    _, components = msgspec.json.schema_components(types, ref_template=ref_template)
    cleaned: dict[str, Any] = _clean_descriptions(components)
    return cleaned


def _clean_descriptions(node: Any) -> Any:
    if isinstance(node, list):
        return [_clean_descriptions(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: inspect.cleandoc(value)
        if key == "description" and isinstance(value, str)
        else _clean_descriptions(value)
        for key, value in node.items()
    }


def parameter(
    name: str,
    where: str,
    schema: dict[str, Any],
    description: str | None = None,
    *,
    required: bool = False,
) -> dict[str, Any]:
    """One parameter of an operation: ``where`` is ``path``, ``query`` or ``header``."""
    out: dict[str, Any] = {"name": name, "in": where, "required": required}
    if description is not None:
        out["description"] = description
    out["schema"] = schema
    return out


def body(schema: dict[str, Any], required: bool = True) -> dict[str, Any]:
    return {
        "required": required,
        "description": "JSON, or the same structure as application/msgpack",
        "content": {JSON: {"schema": schema}},
    }


def responses(
    ok: str,
    status: str = "200",
    errors: tuple[int, ...] = (),
    *,
    always: tuple[int, ...] = (400, 413, 415, 429),
    leave_out: Collection[str] = (),
) -> dict[str, Any]:
    """``ok`` (a component name) with ``status``, and the Error body for each error status:
    ``always`` and ``errors``, described by the codes that answer with it (but ``leave_out``)."""
    media = {JSON: {"schema": ref(ok)}, MSGPACK: {"schema": ref(ok)}}
    out: dict[str, Any] = {status: {"description": "success", "content": media}}
    for code in sorted({*always, *errors}):
        codes = ", ".join(
            sorted(c for c, s in HTTP_STATUS.items() if s == code and c not in leave_out)
        )
        out[str(code)] = {
            "description": codes,
            "content": {JSON: {"schema": ref("Error")}, MSGPACK: {"schema": ref("Error")}},
        }
    return out
