"""One message for each mistake (issue 24 item 11): what a field is, said the same way by REST,
GraphQL and the command line ("players is an integer from 2 to 4" at ``$.players``).

``explain(shape, path, raw)`` turns msgspec's terse fault ("Expected `int` <= 4", "Invalid
enum value 'smart'") into a sentence about the field at ``path``: its kind and bounds, read from
the shape's own annotations, and for a closed set of values every valid one. A path it cannot
follow keeps msgspec's message.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
import msgspec.inspect as mi

_SEGMENTS = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]")
_ENUM_VALUE = re.compile(r"Invalid enum value (.+)$")
_GOT = re.compile(r"got `([^`]+)`")


def explain(shape: type[msgspec.Struct], path: str, raw: str) -> str:
    """The sentence for msgspec's fault ``raw`` at ``path`` of ``shape`` (``raw`` itself when
    the path leads nowhere known, or to a field whose fault is not about its value)."""
    if "unknown field" in raw or "missing required field" in raw:
        return raw
    if not raw.startswith(("Expected", "Invalid")):
        return raw  # a shape's own check (``__post_init__``) says what is wrong itself
    found = _follow(mi.type_info(shape), path)
    if found is None:
        return raw
    name, info = found
    what = _describe(info)
    if what is None:
        return raw
    sentence = f"{name} is {what}"
    value = _ENUM_VALUE.search(raw)
    got = _GOT.search(raw)
    if value is not None:
        sentence += f" (not {value.group(1)})"
    elif got is not None:
        sentence += f" (got {got.group(1)})"
    return sentence


def _follow(info: Any, path: str) -> tuple[str, Any] | None:
    """The field's display name (its last segment, with any index) and its type."""
    if not path.startswith("$"):
        return None
    name = ""
    for match in _SEGMENTS.finditer(path[1:]):
        field, index = match.groups()
        info = _choose(info, field)
        if info is None:
            return None
        if field is not None:
            info = next((f.type for f in info.fields if f.encode_name == field), None)
            name = field
        else:
            info = info.item_type if isinstance(info, mi.ListType) else None
            name = f"{name}[{index}]"
        if info is None:
            return None
    return (name or "the body"), info


def _choose(info: Any, field: str | None) -> Any:
    """The member of ``info`` (through metadata and unions) that a segment can enter."""
    while isinstance(info, mi.Metadata):
        info = info.type
    members = info.types if isinstance(info, mi.UnionType) else (info,)
    for member in members:
        while isinstance(member, mi.Metadata):
            member = member.type
        if (
            field is not None
            and isinstance(member, mi.StructType)
            and any(f.encode_name == field for f in member.fields)
        ):
            return member
        if field is None and isinstance(member, mi.ListType):
            return member
    return None


def _describe(info: Any) -> str | None:
    while isinstance(info, mi.Metadata):
        info = info.type
    if isinstance(info, mi.UnionType):
        # null, where allowed, is never the mistake: the message says what a value must be
        parts = [_describe(t) for t in info.types if not isinstance(t, mi.NoneType)]
        if not parts or any(p is None for p in parts):
            return None
        return " or ".join(p for p in parts if p)
    if isinstance(info, mi.IntType):
        return _bounded("an integer", info.ge, info.le, info.gt, info.lt)
    if isinstance(info, mi.FloatType):
        return _bounded("a number", info.ge, info.le, info.gt, info.lt)
    if isinstance(info, mi.BoolType):
        return "true or false"
    if isinstance(info, mi.StrType):
        return _sized("a string", info.min_length, info.max_length, "characters")
    if isinstance(info, mi.LiteralType):
        values = [str(v) for v in info.values]
        if len(values) == 1:
            return f"'{values[0]}'"
        return "one of " + ", ".join(values)
    if isinstance(info, mi.ListType):
        return _sized("a list", info.min_length, info.max_length, "items")
    if isinstance(info, mi.StructType):
        return "an object with " + ", ".join(f.encode_name for f in info.fields)
    return None


def _bounded(kind: str, ge: Any, le: Any, gt: Any, lt: Any) -> str:
    low = ge if ge is not None else (gt + 1 if isinstance(gt, int) else None)
    high = le if le is not None else (lt - 1 if isinstance(lt, int) else None)
    if low is not None and high is not None:
        return f"{kind} from {low} to {high}"
    if low is not None:
        return f"{kind} of at least {low}"
    if high is not None:
        return f"{kind} of at most {high}"
    return kind


def _sized(kind: str, low: int | None, high: int | None, unit: str) -> str:
    if low is not None and high is not None:
        return f"{kind} of {low} to {high} {unit}"
    if high is not None:
        return f"{kind} of at most {high} {unit}"
    if low:
        return f"{kind} of at least {low} {unit}"
    return kind
