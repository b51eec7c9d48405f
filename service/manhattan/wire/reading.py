"""The base of every wire shape, and ``read``: a decoded body as a shape, or a ``WireError``.

A structural fault's code follows the field it is in (``FIELD_CODES``: the first segment of
its JSON path that names one), so a bad bot budget is ``INVALID_BOT`` whether it sits in
``$.bot`` of a suggestion or ``$.seats[2].bot`` of a new table.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

import msgspec

from manhattan.wire.messages import explain

REF = "#/components/schemas/{name}"


def ref(name: str) -> dict[str, str]:
    return {"$ref": REF.format(name=name)}


class Shape(msgspec.Struct, forbid_unknown_fields=True, rename="camel", omit_defaults=True):
    """Every request shape: camelCase names, unknown fields refused, defaults left out."""


class Answer(msgspec.Struct, rename="camel", omit_defaults=True, kw_only=True):
    """Every answer: camelCase names; fields may be added later, so clients ignore unknown ones."""


class WireError(ValueError):
    """A body that is not its shape: ``code`` (a key of ``codes.HTTP_STATUS``), a message and the
    JSON path of the first fault. ``api/errors.py`` renders it like any expected failure."""

    def __init__(self, code: str, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = path


#: The code of a structural fault, by the first segment of its path that is named here
#: (default ``INVALID_REQUEST``).
FIELD_CODES = {
    "player": "INVALID_PLAYER",
    "bot": "INVALID_BOT",
    "seed": "INVALID_BOT",  # the deprecated siblings of a suggestion's bot name
    "iterations": "INVALID_BOT",
    "timeMs": "INVALID_BOT",
    "setup": "INVALID_SETUP",
}
T = TypeVar("T", bound=msgspec.Struct)
_NAMED_FIELD = re.compile(r"(?:missing required|unknown) field `([^`]*)`")
_SEGMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def read(body: Any, shape: type[T], code: str | None = None) -> T:
    """``body`` (decoded JSON or msgpack; None: an empty object) as ``shape``.

    ``code`` fixes the error code (``INVALID_SETUP`` for a setup); otherwise it follows the
    field (``FIELD_CODES``)."""
    if body is None:
        body = {}
    try:
        return msgspec.convert(body, shape, strict=True)
    except msgspec.ValidationError as exc:
        message, _, where = str(exc).partition(" - at `")
        path = where.rstrip("`") or "$"
        named = _NAMED_FIELD.search(message)
        if named is not None:  # the missing or unknown field itself, not the object holding it
            path = f"{path}.{named.group(1)}"
        found = (FIELD_CODES.get(s) for s in _SEGMENT.findall(path[1:]))
        fault = code or next((c for c in found if c is not None), "INVALID_REQUEST")
        raise WireError(fault, explain(shape, path, message), path=path) from None
