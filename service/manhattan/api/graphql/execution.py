"""GraphQL execution without per-field machinery for plain data objects.

graphql-core completes every field of every object through the same general path: a resolve
info, the resolver, an awaitable check, non-null and list handling, output coercion. For an
object such as ``Move`` (nine scalar fields, no resolvers) that is most of the cost of a
``legalMoves`` response: 38 moves make 342 trips through it.

``PlainDataExecutionContext`` completes an object in one loop when every selected field is
*plain*: a strawberry field without a resolver or field extensions (so its value is the
attribute), without arguments or directives, whose type is a leaf (a scalar or an enum) or a list of
leaves, possibly non-null. Values are coerced by the type's own ``coerce_output_value``,
exactly as graphql-core does. Anything unusual (a null in a non-null position, a value that does not
coerce, a resolver that raises, ``@defer``, a field with arguments, an abstract or object
type, resolver middleware from a schema extension) falls back to graphql-core's general path
for that object, which produces the same result and the same errors it always did: the fast
path is only ever taken when it would agree with it.

Objects of a type registered with ``complete_by_identity`` (immutable values, such as the
engine's shared ``Move`` instances) are completed once per selection and the completed dict is
reused for the same instance afterwards: the completer reads only the object's fields, so an
object that cannot change completes the same way every time. Completed dicts are shared between
responses and must not be mutated; nothing after execution does.
"""

from __future__ import annotations

import functools
import keyword
from collections.abc import Callable, Sequence
from typing import Any

from graphql import (
    FieldNode,
    GraphQLEnumType,
    GraphQLInt,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLScalarType,
    GraphQLString,
    SelectionNode,
)
from graphql.execution.collect_fields import FieldDetailsList
from graphql.pyutils import Path, Undefined
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.schema.schema_converter import GraphQLCoreConverter
from strawberry.types.field import StrawberryField

from manhattan.api.graphql.immutable import IMMUTABLE

# One selected field of a plain object: response name, the attribute (or None: call the
# reader), the reader, how to complete it. ``kind`` is 0 for a scalar and 1 for a list of
# scalars; ``non_null`` and ``items_non_null`` say where a null is an error (the fallback then
# reports it); ``exact`` is the Python type that the scalar returns unchanged (int for Int, str
# for String, else None) and ``coerce`` the scalar's own output coercion for everything else.
_PlainField = tuple[
    str, str | None, Callable[[Any], Any], int, bool, bool, type | None, Callable[[Any], Any]
]
Completer = Callable[[Any], Any]
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1  # GraphQL Int is a 32-bit signed integer
_IMMUTABLE = IMMUTABLE  # filled by immutable.complete_by_identity
#: Completed objects kept, over all selections together (cleared when full): a bound per
#: selection would let many distinct selections (aliases are the client's) hold millions.
_MEMO_SIZE = 10_000
#: Response names (aliases: the client's) longer than this are not cached in ``_field_plan``.
_CACHED_NAME_CHARS = 64
# (id(source), id(completer)) -> (source, completer, completed)
_MEMO: dict[tuple[int, int], tuple[Any, Any, Any]] = {}


class GiveUp(Exception):
    """The fast path cannot complete this object; graphql-core's path will."""


def plain_completer(
    object_type: GraphQLObjectType, selections: Sequence[SelectionNode]
) -> Completer | None:
    """The completer of a selection set written out in a document (fields only: no fragments,
    directives, arguments or repeated response names), or None if it is not all plain."""
    if object_type.is_type_of is not None:
        return None
    fields: list[_PlainField] = []
    seen: set[str] = set()
    for node in selections:
        if not isinstance(node, FieldNode) or node.arguments or node.directives:
            return None
        if node.selection_set is not None:
            return None
        response_name = node.alias.value if node.alias else node.name.value
        if response_name in seen:
            return None
        seen.add(response_name)
        field = _field_plan(object_type, response_name, node.name.value)
        if field is None:
            return None
        fields.append(field)
    return _memoizing(_compile(tuple(fields))) if fields else None


#: The leaf types: a value completes by the type's own ``coerce_output_value`` (an enum maps a
#: value to its name, as graphql-core does).
Leaf = GraphQLScalarType | GraphQLEnumType


def plain_scalar(type_: Any) -> Completer | None:
    """How to complete a value of a leaf type (not wrapped), or None for other types."""
    return _coercer(type_) if isinstance(type_, Leaf) else None


def _scalar(type_: Any) -> tuple[Leaf | None, bool]:
    """The leaf type (scalar or enum) under at most one non-null wrapper, and whether it was
    non-null."""
    non_null = isinstance(type_, GraphQLNonNull)
    inner = type_.of_type if non_null else type_
    return (inner if isinstance(inner, Leaf) else None), non_null


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
    node = field_details_list[0].node
    if node.arguments or node.directives or node.selection_set:
        return None
    return _field_plan(parent, response_name, node.name.value)


def _field_plan(parent: GraphQLObjectType, response_name: str, name: str) -> _PlainField | None:
    """How to complete field ``name`` of ``parent`` selected without arguments, directives or
    sub-selection; None if it is not plain. Depends on the schema only, so it is kept across
    requests, unless the response name (the client's alias) is long: 4,096 entries of 30 KB
    aliases would hold 120 MB."""
    if len(response_name) > _CACHED_NAME_CHARS:
        return _make_field_plan(parent, response_name, name)
    return _cached_field_plan(parent, response_name, name)


def _make_field_plan(
    parent: GraphQLObjectType, response_name: str, name: str
) -> _PlainField | None:
    if name == "__typename":
        typename = parent.name
        return response_name, None, lambda _: typename, 0, True, False, str, _identity
    field_def = parent.fields.get(name)
    if field_def is None or field_def.args or field_def.resolve is None:
        return None
    if not getattr(field_def.resolve, "_is_default", False):
        return None  # a resolver (or permissions, or field extensions): the general path
    strawberry_field = (field_def.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)
    if not isinstance(strawberry_field, StrawberryField) or not strawberry_field.is_basic_field:
        return None
    scalar, non_null = _scalar(field_def.type)
    if scalar is not None:
        return (
            response_name,
            _attribute(strawberry_field),
            _reader(strawberry_field),
            0,
            non_null,
            False,
            _exact(scalar),
            _coercer(scalar),
        )
    list_type = field_def.type.of_type if non_null else field_def.type
    if not isinstance(list_type, GraphQLList):
        return None
    item, items_non_null = _scalar(list_type.of_type)
    if item is None:
        return None
    return (
        response_name,
        _attribute(strawberry_field),
        _reader(strawberry_field),
        1,
        non_null,
        items_non_null,
        _exact(item),
        _coercer(item),
    )


_cached_field_plan = functools.lru_cache(maxsize=4096)(_make_field_plan)


def _identity(value: Any) -> Any:
    return value


def _attribute(strawberry_field: StrawberryField) -> str | None:
    """The attribute to read with ``getattr``, when that is what strawberry would do."""
    if strawberry_field.default_resolver is getattr:
        return strawberry_field.python_name
    return None


def _exact(scalar: Leaf) -> type | None:
    """What graphql-core's Int and String coercion return unchanged: an exact int in 32-bit
    range, an exact str. Checking that inline skips their general conversions."""
    return int if scalar is GraphQLInt else str if scalar is GraphQLString else None


def _coercer(scalar: Leaf) -> Callable[[Any], Any]:
    coerce = scalar.coerce_output_value

    def coerced(value: Any) -> Any:
        out = coerce(value)
        if out is None or out is Undefined:
            raise GiveUp  # graphql-core reports this as an error; let it
        return out

    return coerced


class PlainDataExecutionContext(StrawberryGraphQLCoreExecutionContext):
    """strawberry's execution context with a one-loop completion for plain data objects."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Keyed by the identity of graphql-core's memoized collected fields, which it keeps
        # alive for the whole execution, so an id is never reused while cached here.
        self._plans: dict[int, Completer | None] = {}

    def _plan(
        self, return_type: GraphQLObjectType, field_details_list: FieldDetailsList
    ) -> Completer | None:
        """The completer of this selection on ``return_type``, or None if it is not plain."""
        collected = self.collect_subfields(return_type, field_details_list)
        key = id(collected)
        if key in self._plans:
            return self._plans[key]
        plan: Completer | None = None
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
                plan = _memoizing(_compile(tuple(f for f in fields if f is not None)))
        self._plans[key] = plan
        return plan

    def complete_list_value(
        self,
        return_type: GraphQLList[Any],
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo[Any],
        path: Path,
        result: Any,
        position_context: Any,
    ) -> Any:
        """A list of plain objects in one loop, without per-item paths and completion calls."""
        item_type = return_type.of_type
        non_null = isinstance(item_type, GraphQLNonNull)
        object_type = item_type.of_type if non_null else item_type
        if (
            isinstance(object_type, GraphQLObjectType)
            and isinstance(result, list | tuple)
            and not any(d.node.directives for d in field_details_list)  # @stream
        ):
            complete = self._plan(object_type, field_details_list)
            if complete is not None:
                try:
                    return [_complete_item(complete, item, non_null) for item in result]
                except Exception:  # the general path below reports it, as it always did
                    pass
        return super().complete_list_value(
            return_type, field_details_list, info, path, result, position_context
        )

    def complete_object_value(
        self,
        return_type: GraphQLObjectType,
        field_details_list: FieldDetailsList,
        info: GraphQLResolveInfo[Any],
        path: Path,
        result: Any,
        position_context: Any,
    ) -> Any:
        complete = self._plan(return_type, field_details_list)
        if complete is not None:
            try:
                return complete(result)
            except Exception:  # the general path below reports it, as it always did
                pass
        return super().complete_object_value(
            return_type, field_details_list, info, path, result, position_context
        )


def _complete_item(complete: Completer, item: Any, non_null: bool) -> Any:
    if item is None:
        if non_null:
            raise GiveUp
        return None
    if isinstance(item, Exception):
        raise GiveUp  # graphql-core raises it as the item's error
    return complete(item)


@functools.lru_cache(maxsize=256)  # plans are built from the schema, so few distinct ones
def _compile(plan: tuple[_PlainField, ...]) -> Completer:
    """A function completing one object of ``plan``, written out field by field (as
    ``dataclasses`` writes ``__init__``): a third of the cost of interpreting the plan per
    object. Only names the schema defines reach the source text (attributes that are Python
    identifiers); response names and functions are bound as constants."""
    namespace: dict[str, Any] = {
        "Undefined": Undefined,
        "Fallback": GiveUp,
        "MIN": _INT_MIN,
        "MAX": _INT_MAX,
    }
    lines = ["def complete(source):"]
    for i, (name, attr, read, kind, non_null, items_non_null, exact, coerce) in enumerate(plan):
        namespace[f"N{i}"], namespace[f"R{i}"], namespace[f"C{i}"] = name, read, coerce
        plain_attr = attr is not None and attr.isidentifier() and not keyword.iskeyword(attr)
        lines.append(f"    v = source.{attr}" if plain_attr else f"    v = R{i}(source)")
        lines.append("    if v is None or v is Undefined:")
        lines.append("        raise Fallback" if non_null else f"        v{i} = None")
        lines.append("    else:")
        if kind == 0:
            lines.append(f"        if {_needs_coercion('v', exact)}:")
            lines.append(f"            v = C{i}(v)")
            lines.append(f"        v{i} = v")
        else:
            item = f"C{i}(x) if {_needs_coercion('x', exact)} else x"
            if not items_non_null:
                item = f"None if x is None else ({item})"
            lines.append("        if not isinstance(v, (list, tuple)):")
            lines.append("            raise Fallback  # other iterables: graphql-core decides")
            lines.append(f"        v{i} = [{item} for x in v]")
    lines.append("    return {" + ", ".join(f"N{i}: v{i}" for i in range(len(plan))) + "}")
    exec("\n".join(lines), namespace)  # source built above from the plan only
    complete: Completer = namespace["complete"]
    return complete


@functools.lru_cache(maxsize=256)  # one per compiled completer
def _memoizing(complete: Completer) -> Completer:
    """``complete``, reusing its result for an instance of an immutable type seen before. The
    memo (one for all completers, bounded) holds each instance it keys by ``id`` and the
    completer that made the entry, so neither id can be reused while it is cached."""
    memo = _MEMO
    immutable = _IMMUTABLE
    mine = id(complete)

    def completed(source: Any) -> Any:
        if type(source) not in immutable:
            return complete(source)
        key = (id(source), mine)
        entry = memo.get(key)
        if entry is not None and entry[0] is source and entry[1] is complete:
            return entry[2]
        out = complete(source)  # raises GiveUp for what it cannot complete: not cached
        if len(memo) >= _MEMO_SIZE:
            memo.clear()
        memo[key] = (source, complete, out)
        return out

    return completed


def _needs_coercion(var: str, exact: type | None) -> str:
    """Source of the test that ``var`` is not returned unchanged by the scalar's coercion."""
    if exact is int:
        return f"type({var}) is not int or not MIN <= {var} <= MAX"
    if exact is str:
        return f"type({var}) is not str"
    return "True"
