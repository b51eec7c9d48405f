"""``FromJson``: the one reader of GraphQL object types built from JSON the service already wrote
(the engine's ``to_json()`` of an analysis, a preview, threats; the tables' projection), so no
type writes its key-by-key copy by hand.

A field is read from the key its GraphQL name spells (``takeWith`` for ``take_with``, ``from``
for ``from_``): an object type's field through that type's own ``from_json``, a list item by
item, a nullable field as null when the key is null or absent, anything else (scalars, enums,
``JSON``) as it is; a field named ``json`` holds the whole object. The plan for a type is made
once, on its first use (its fields' types are resolved by then).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, Self

from strawberry.types.base import StrawberryList, StrawberryOptional, get_object_definition

Reader = Callable[[Any], Any]
#: A field: its python name, its JSON key (None: the whole object), its reader, whether nullable.
Step = tuple[str, str | None, Reader | None, bool]
_PLANS: dict[type, list[Step]] = {}


class FromJson:
    """Base of a strawberry type read from JSON (see the module)."""

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        plan = _PLANS.get(cls)
        if plan is None:
            plan = _PLANS[cls] = _plan(cls)
        values: dict[str, Any] = {}
        for name, key, read, nullable in plan:
            if key is None:
                values[name] = obj
                continue
            value = obj.get(key) if nullable else obj[key]
            values[name] = value if read is None or value is None else read(value)
        return cls(**values)


class FromEngineJson(FromJson):
    """A type that mirrors an engine value's JSON (an analysis, a preview, threats)."""

    @classmethod
    def from_domain(cls, value: ToJson) -> Self:
        """An engine value through its JSON (``to_json()``), the form every field mirrors."""
        return cls.from_json(value.to_json())


class ToJson(Protocol):
    def to_json(self) -> Mapping[str, Any]: ...


def _plan(cls: type) -> list[Step]:
    definition = get_object_definition(cls, strict=True)
    plan: list[Step] = []
    for field in definition.fields:
        if field.python_name == "json":
            plan.append((field.python_name, None, None, False))
            continue
        key = field.graphql_name or _camel(field.python_name)  # the schema's auto_camel_case
        kind: Any = field.type
        nullable = isinstance(kind, StrawberryOptional)
        if isinstance(kind, StrawberryOptional):
            kind = kind.of_type
        plan.append((field.python_name, key, _reader(kind), nullable))
    return plan


def _reader(kind: Any) -> Reader | None:
    """How a value of the GraphQL type ``kind`` is read from JSON (None: as it is)."""
    if isinstance(kind, StrawberryOptional):
        inner = _reader(kind.of_type)
        return None if inner is None else (lambda v: None if v is None else inner(v))
    if isinstance(kind, StrawberryList):
        item = _reader(kind.of_type)
        return None if item is None else (lambda values: [item(v) for v in values])
    read = getattr(kind, "from_json", None)
    return read if callable(read) else None


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)
