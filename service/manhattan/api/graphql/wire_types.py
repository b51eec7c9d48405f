"""GraphQL object types derived from the ``manhattan.wire`` shapes, not written a second time.

``wire_type(Shape, ...)`` makes a strawberry type with the shape's fields: the same names (in
snake_case; the schema camelCases them as msgspec's ``rename="camel"`` does), in the same order,
with the same nullability, a field's description from its ``Meta(description=...)``, and its
GraphQL type from its annotation (``int`` Int, ``float`` Float, ``str`` String, ``bool``
Boolean, lists and optionals of those). What the wire cannot say is given by name in
``types``: an engine value the wire keeps as ``Any`` (a move: ``Move``), a ``Literal`` that is
a GraphQL enum, or a type the GraphQL contract fixed otherwise (a chat message's ``at`` is a
``Float``). A test builds every derived type's fields back from its shape and compares.

Each derived type has ``from_json`` (the REST answer's object, camelCase keys) and
``from_attributes`` (an object with the same attribute names, such as an engine value).
``wire_input`` derives an input type the same way, with the shape's defaults and ``to_json``;
``wire_arguments`` derives a resolver's arguments (a REST query given as GraphQL arguments).
"""

from __future__ import annotations

import functools
import inspect
import types as pytypes
from collections.abc import Awaitable, Callable, Mapping
from enum import Enum
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

import msgspec
import strawberry

#: The wire's scalars and their GraphQL types (strawberry maps the Python types).
_SCALARS: tuple[type, ...] = (int, float, str, bool)

Answer = TypeVar("Answer")


def graphql_type(annotation: Any) -> Any:
    """The strawberry annotation of a wire annotation, without its ``Meta``; ``ValueError`` for
    what has no GraphQL type of its own (``Any``, a ``Literal``, a struct): give it in ``types``."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return graphql_type(get_args(annotation)[0])
    if origin in (Union, pytypes.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) == 1 and len(get_args(annotation)) == 2:
            return graphql_type(members[0]) | None
    elif origin is list:
        return list[graphql_type(get_args(annotation)[0])]  # type: ignore[misc]
    elif annotation in _SCALARS:
        return annotation
    raise ValueError(f"no GraphQL type for {annotation!r}: name one in types")


def description_of(annotation: Any) -> str | None:
    """The ``Meta(description=...)`` of a field's annotation, if any."""
    if get_origin(annotation) is not Annotated:
        return None
    for meta in get_args(annotation)[1:]:
        if isinstance(meta, msgspec.Meta) and meta.description:
            return meta.description
    return None


def wire_type(
    shape: type[msgspec.Struct],
    *,
    name: str | None = None,
    description: str | None = None,
    types: Mapping[str, Any] | None = None,
) -> Any:
    """A strawberry object type named ``name`` (the shape's own name by default) with the
    fields of ``shape`` (see the module)."""
    name = name or shape.__name__
    annotations, namespace = _fields(shape, types, with_defaults=False)
    encode = {f.name: f.encode_name for f in msgspec.structs.fields(shape)}
    #: Optional fields with a default may be left out of the JSON (e.g. a seat's player id).
    defaults = {
        f.name: f.default
        for f in msgspec.structs.fields(shape)
        if not f.required and f.default is not msgspec.NODEFAULT
    }

    def from_json(cls: Any, obj: Mapping[str, Any]) -> Any:
        return cls(
            **{
                field: obj[key] if key in obj or field not in defaults else defaults[field]
                for field, key in encode.items()
            }
        )

    def from_attributes(cls: Any, value: object) -> Any:
        return cls(**{field: getattr(value, field) for field in encode})

    namespace.update(
        __annotations__=annotations,
        __doc__=description,
        from_json=classmethod(from_json),
        from_attributes=classmethod(from_attributes),
        __module__=__name__,
    )
    made = type(name, (), namespace)
    return strawberry.type(made, name=name, description=description)


def wire_input(
    shape: type[msgspec.Struct], *, name: str, types: Mapping[str, Any] | None = None
) -> Any:
    """A strawberry input type named ``name`` with the fields of ``shape`` (see the module) and
    their defaults; ``to_json()`` is the input as the shape's JSON object (camelCase keys, an
    enum member as its string), every field present."""
    annotations, namespace = _fields(shape, types, with_defaults=True)
    encode = {f.name: f.encode_name for f in msgspec.structs.fields(shape)}

    def to_json(self: Any) -> dict[str, Any]:
        values = {key: getattr(self, field) for field, key in encode.items()}
        return {key: v.value if isinstance(v, Enum) else v for key, v in values.items()}

    namespace.update(__annotations__=annotations, to_json=to_json, __module__=__name__)
    return strawberry.input(type(name, (), namespace), name=name)


def wire_arguments(
    shape: type[msgspec.Struct],
    *,
    names: Mapping[str, str] | None = None,
    types: Mapping[str, Any] | None = None,
) -> Callable[[Callable[..., Awaitable[Answer]]], Callable[..., Awaitable[Answer]]]:
    """A decorator giving a resolver the fields of ``shape`` as its GraphQL arguments, after its
    own (``self``, ``info``): each optional with a null default, in the shape's order, named as
    in ``names`` (the GraphQL name of a field, e.g. ``first`` for the wire's ``limit``) or as the
    field, typed as a derived type's field (``types`` names what the wire cannot type). The
    resolver's last parameter, ``query``, receives the arguments given (not null) as the shape's
    JSON object (camelCase keys, the wire's names), for the code that reads it with ``wire``.
    The arguments carry no descriptions: the field's own description tells them."""
    renamed = dict(names or {})
    annotations, _ = _fields(shape, types, with_defaults=False)
    encode = {renamed.get(f.name, f.name): f.encode_name for f in msgspec.structs.fields(shape)}
    derived = [
        inspect.Parameter(
            argument,
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=annotations[field] | None,
        )
        for field, argument in ((f, renamed.get(f, f)) for f in annotations)
    ]

    def derive(resolver: Callable[..., Awaitable[Answer]]) -> Callable[..., Awaitable[Answer]]:
        signature = inspect.signature(resolver)
        *own, query = signature.parameters.values()
        if query.name != "query":
            raise ValueError(f"{resolver.__name__}'s last parameter must be query")

        @functools.wraps(resolver)
        async def resolve(*args: Any, **arguments: Any) -> Answer:
            given = {key: arguments.pop(name, None) for name, key in encode.items()}
            query = {key: value for key, value in given.items() if value is not None}
            return await resolver(*args, **arguments, query=query)  # ``info`` is a keyword

        # strawberry reads a resolver's arguments from its signature (``inspect.signature``)
        parameters = [*own, *derived]
        with_arguments = signature.replace(parameters=parameters)
        resolve.__signature__ = with_arguments  # type: ignore[attr-defined]
        resolve.__annotations__ = {
            **{p.name: p.annotation for p in parameters if p.annotation is not p.empty},
            "return": signature.return_annotation,
        }
        return resolve

    return derive


def _fields(
    shape: type[msgspec.Struct], types: Mapping[str, Any] | None, *, with_defaults: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The annotations of a type derived from ``shape``, and its ``strawberry.field``s: those
    with a description, and with ``with_defaults`` (an input), those with a default."""
    given = dict(types or {})
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {}
    for field in msgspec.structs.fields(shape):
        raw = field.type
        if field.name in given:
            nullable = type(None) in get_args(_without_meta(raw))
            chosen = given.pop(field.name)
            annotations[field.name] = chosen | None if nullable else chosen
        else:
            annotations[field.name] = graphql_type(raw)
        about = description_of(raw)
        default = field.default if with_defaults else msgspec.NODEFAULT
        if default is not msgspec.NODEFAULT:
            namespace[field.name] = strawberry.field(default=default, description=about)
        elif about is not None:
            namespace[field.name] = strawberry.field(description=about)
    if given:
        raise ValueError(f"{shape.__name__} has no fields {sorted(given)}")
    return annotations, namespace


def _without_meta(annotation: Any) -> Any:
    return get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation
