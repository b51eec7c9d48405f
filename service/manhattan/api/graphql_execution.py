"""GraphQL execution without per-field machinery for plain data objects.

graphql-core completes every field of every object through the same general path: a resolve
info, the resolver, an awaitable check, non-null and list handling, output coercion. For an
object such as ``Move`` (nine scalar fields, no resolvers) that is most of the cost of a
``legalMoves`` response: 38 moves make 342 trips through it.

``PlainDataExecutionContext`` completes an object in one loop when every selected field is
*plain*: a strawberry field without a resolver or field extensions (so its value is the
attribute), without arguments or directives, whose type is a scalar or a list of scalars,
possibly non-null. Values are coerced by the scalar's own ``coerce_output_value``, exactly as
graphql-core does. Anything unusual (a null in a non-null position, a value that does not
coerce, a resolver that raises, ``@defer``, a field with arguments, an abstract or object
type, resolver middleware from a schema extension) falls back to graphql-core's general path
for that object, which produces the same result and the same errors it always did: the fast
path is only ever taken when it would agree with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphql import (
    GraphQLInt,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLScalarType,
    GraphQLString,
)
from graphql.execution.collect_fields import FieldDetailsList
from graphql.pyutils import Path, Undefined
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types.field import StrawberryField

# One selected field of a plain object: response name, attribute reader, how to complete it.
# ``kind`` is 0 for a scalar and 1 for a list of scalars; ``non_null`` and ``items_non_null``
# say where a null is an error (the fallback then reports it).
_PlainField = tuple[str, Callable[[Any], Any], int, bool, bool, Callable[[Any], Any]]
_NO_PLAN: tuple[_PlainField, ...] = ()
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1  # GraphQL Int is a 32-bit signed integer


class _Fallback(Exception):
    """The fast path cannot complete this object; graphql-core's path will."""


def _scalar(type_: Any) -> tuple[GraphQLScalarType | None, bool]:
    """The scalar under at most one non-null wrapper, and whether it was non-null."""
    non_null = isinstance(type_, GraphQLNonNull)
    inner = type_.of_type if non_null else type_
    return (inner if isinstance(inner, GraphQLScalarType) else None), non_null


def _reader(strawberry_field: StrawberryField) -> Callable[[Any], Any]:
    resolve = strawberry_field.default_resolver
    name = strawberry_field.python_name

    def read(source: Any) -> Any:
        return resolve(source, name)

    return read


def _plain_field(
    parent: GraphQLObjectType, response_name: str, field_details_list: FieldDetailsList
) -> _PlainField | None:
    if len(field_details_list) != 1:
        return None  # the same response name selected twice: leave merging to graphql-core
    details = field_details_list[0]
    node = details.node
    if node.arguments or node.directives or node.selection_set:
        return None
    if node.name.value == "__typename":
        typename = parent.name
        return response_name, lambda source: typename, 0, True, False, lambda value: value
    field_def = parent.fields.get(node.name.value)
    if field_def is None or field_def.args or field_def.resolve is None:
        return None
    if not getattr(field_def.resolve, "_is_default", False):
        return None  # a resolver (or permissions, or field extensions): the general path
    strawberry_field = (field_def.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)
    if not isinstance(strawberry_field, StrawberryField) or not strawberry_field.is_basic_field:
        return None
    scalar, non_null = _scalar(field_def.type)
    if scalar is not None:
        return response_name, _reader(strawberry_field), 0, non_null, False, _coercer(scalar)
    list_type = field_def.type.of_type if non_null else field_def.type
    if not isinstance(list_type, GraphQLList):
        return None
    item, items_non_null = _scalar(list_type.of_type)
    if item is None:
        return None
    return (
        response_name,
        _reader(strawberry_field),
        1,
        non_null,
        items_non_null,
        _coercer(item),
    )


def _coercer(scalar: GraphQLScalarType) -> Callable[[Any], Any]:
    coerce = scalar.coerce_output_value
    # What graphql-core's Int and String coercion return for the common case, without the
    # trip through their general conversions: an exact int in 32-bit range, an exact str.
    is_int, is_str = scalar is GraphQLInt, scalar is GraphQLString

    def coerced(value: Any) -> Any:
        kind = type(value)
        if (kind is int and is_int and _INT_MIN <= value <= _INT_MAX) or (kind is str and is_str):
            return value
        out = coerce(value)
        if out is None or out is Undefined:
            raise _Fallback  # graphql-core reports this as an error; let it
        return out

    return coerced


class PlainDataExecutionContext(StrawberryGraphQLCoreExecutionContext):
    """strawberry's execution context with a one-loop completion for plain data objects."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Keyed by the identity of graphql-core's memoized collected fields, which it keeps
        # alive for the whole execution, so an id is never reused while cached here.
        self._plans: dict[int, tuple[_PlainField, ...]] = {}

    def _plan(
        self, return_type: GraphQLObjectType, field_details_list: FieldDetailsList
    ) -> tuple[_PlainField, ...]:
        collected = self.collect_subfields(return_type, field_details_list)
        plan = self._plans.get(id(collected))
        if plan is not None:
            return plan
        plan = _NO_PLAN
        middleware = self.middleware_manager
        if (
            (middleware is None or not middleware.middlewares)  # extensions' resolve hooks
            and return_type.is_type_of is None
            and not collected.new_defer_usages
        ):
            fields = [
                _plain_field(return_type, name, details)
                for name, details in collected.grouped_field_set.items()
            ]
            if fields and all(f is not None for f in fields):
                plan = tuple(f for f in fields if f is not None)
        self._plans[id(collected)] = plan
        return plan

    def complete_object_value(
        self,
        return_type: GraphQLObjectType,
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo[Any],
        path: Path,
        result: Any,
        position_context: Any,
    ) -> Any:
        plan = self._plan(return_type, field_details_list)
        if plan:
            try:
                return _complete_plain(plan, result)
            except Exception:  # the general path below reports it, as it always did
                pass
        return super().complete_object_value(
            return_type, field_details_list, info, path, result, position_context
        )


def _complete_plain(plan: tuple[_PlainField, ...], source: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, read, kind, non_null, items_non_null, coerce in plan:
        value = read(source)
        if value is None or value is Undefined:
            if non_null:
                raise _Fallback
            out[name] = None
        elif kind == 0:
            out[name] = coerce(value)
        else:
            if not isinstance(value, list | tuple):
                raise _Fallback  # other iterables: graphql-core decides
            items: list[Any] = []
            for item in value:
                if item is None:
                    if items_non_null:
                        raise _Fallback
                    items.append(None)
                else:
                    items.append(coerce(item))
            out[name] = items
    return out
