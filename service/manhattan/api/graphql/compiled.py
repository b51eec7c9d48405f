"""Compiled plans for simple GraphQL queries: the common request without the general executor.

Most requests a game client sends are one small query over and over, e.g. ``legalMoves(state:
$s) { type card neighborhood floors ... }``: root fields with arguments, each returning an
object or a list of objects whose selected fields are plain data. For such a document,
strawberry's and graphql-core's general machinery (extension hooks, an execution context,
field collection, per-field resolve info, completion) costs several times the resolver's own
work. A *plan* does the same steps written out for that one document:

1. the variables are coerced by graphql-core's ``get_variable_values`` and each field's
   arguments by its ``get_argument_values``, exactly as the executor does;
2. each root field's resolver is called with a resolve info built as graphql-core builds it:
   through strawberry's own wrapper, or, for a field without extensions (permissions are
   extensions) or special argument types, through a ``DirectResolver`` (``resolvers``)
   that converts the arguments and makes the ``Info`` as the wrapper does, with the argument
   types walked once instead of on every call;
3. the value is completed by the plain-data completer of ``execution``.

A plan is only made for a document that has already passed parsing and validation with the
service's limits on the general path (``ServiceLimits`` records it), and only when the whole
operation is a query of that simple shape: no named fragments, directives, introspection or
interfaces, no repeated response names; a root field of a union type (a result or
``MoveRejected``) is planned when its selection is ``__typename`` and inline fragments on the
members (``union_completer``). Anything a plan does not handle the way the general
path would (a variable that does not coerce, a resolver that raises, a null in a non-null
position, a value that does not serialize) makes it give up and the request runs on the general
path from the start, which reports it as it always did; a resolver that raises is reported by
the plan itself, as graphql-core reports it, so a failing request runs once. Only root fields
the service lists as reading are planned (``fast``), so a resolver run again on the
general path writes nothing.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeGuard

from graphql import (
    DocumentNode,
    FieldNode,
    GraphQLError,
    GraphQLField,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLResolveInfo,
    GraphQLSchema,
    GraphQLUnionType,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    SelectionNode,
)
from graphql.error import located_error
from graphql.execution.values import get_argument_values, get_variable_values
from graphql.pyutils import Path
from graphql.type.definition import GraphQLResolveInfoHelpers
from graphql.utilities import get_operation_ast
from strawberry.schema.schema_converter import GraphQLCoreConverter

from manhattan.api.graphql.cost import fixed_cost, operation_cost
from manhattan.api.graphql.documents import ValidatedDocuments, WeighedLRU
from manhattan.api.graphql.execution import Completer, GiveUp, plain_completer, plain_scalar
from manhattan.api.graphql.limits import (
    InputLimits,
    cost_error,
    input_size_error,
    variable_types,
)
from manhattan.api.graphql.resolvers import DirectResolver, DirectResolvers


@dataclass(frozen=True, slots=True)
class _RootField:
    response_name: str
    node: FieldNode
    field_def: GraphQLField | None  # None: __typename
    is_list: bool
    non_null: bool
    items_non_null: bool
    complete: Completer
    direct: DirectResolver | None = None  # None: strawberry's wrapper (field_def.resolve)


@dataclass(frozen=True, slots=True)
class Plan:
    document: DocumentNode  # held, so the nodes below stay the ones validated
    operation: OperationDefinitionNode
    operation_name: str | None
    fields: tuple[_RootField, ...]
    #: The operation's variables and their types, and its cost when the variables do not
    #: change it (None: read from them), for the input limits (``limits``).
    variable_types: tuple[tuple[str, Any], ...] = ()
    cost: int | None = None


def make_plan(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation_name: str | None,
    resolvers: DirectResolvers | None = None,
    plannable: frozenset[str] | None = None,
) -> Plan | None:
    """The plan of ``document``'s operation, or None when it is not of the simple shape or
    selects a root field not in ``plannable`` (None: any; the service lists the fields that
    only read); ``resolvers`` makes direct calls where it can (without: strawberry's
    wrappers)."""
    operation = get_operation_ast(document, operation_name)
    if (
        operation is None
        or operation.operation is not OperationType.QUERY
        or operation.directives
        or schema.query_type is None
        or not all(isinstance(s, FieldNode) for s in operation.selection_set.selections)
    ):
        return None
    root = schema.query_type
    if root.is_type_of is not None:
        return None
    fields: list[_RootField] = []
    seen: set[str] = set()
    for node in operation.selection_set.selections:
        assert isinstance(node, FieldNode)
        name = node.name.value
        response_name = node.alias.value if node.alias else name
        if node.directives or response_name in seen:
            return None
        seen.add(response_name)
        if name == "__typename":
            if node.selection_set or node.arguments:
                return None
            typename = _constant(root.name)
            fields.append(_RootField(response_name, node, None, False, True, False, typename))
            continue
        if name.startswith("__"):
            return None  # introspection: the general path
        field_def = root.fields.get(name)
        if field_def is None or field_def.resolve is None:
            return None
        if plannable is not None and name not in plannable:
            return None  # a field that writes: the general path, always
        field = _root_field(response_name, node, field_def)
        if field is None:
            return None
        if resolvers is not None:
            field = replace(field, direct=resolvers.for_field(field_def))
        fields.append(field)
    if not fields:
        return None
    types = variable_types(schema, operation)
    return Plan(
        document,
        operation,
        operation_name,
        tuple(fields),
        types,
        fixed_cost(document, operation_name),
    )


def _constant(value: str) -> Completer:
    def constant(_: Any) -> str:
        return value

    return constant


def _root_field(response_name: str, node: FieldNode, field_def: GraphQLField) -> _RootField | None:
    type_: Any = field_def.type
    non_null = isinstance(type_, GraphQLNonNull)
    inner = type_.of_type if non_null else type_
    is_list = isinstance(inner, GraphQLList)
    items_non_null = False
    if is_list:
        item: Any = inner.of_type
        items_non_null = isinstance(item, GraphQLNonNull)
        inner = item.of_type if items_non_null else item
    complete: Completer | None
    if isinstance(inner, GraphQLObjectType):
        if node.selection_set is None or inner.is_type_of is not None:
            return None
        complete = plain_completer(inner, node.selection_set.selections)
    elif isinstance(inner, GraphQLUnionType):
        if node.selection_set is None:
            return None
        complete = union_completer(inner, node.selection_set.selections)
    else:
        if node.selection_set is not None or is_list:
            return None
        complete = plain_scalar(inner)
    if complete is None:
        return None
    return _RootField(response_name, node, field_def, is_list, non_null, items_non_null, complete)


def union_completer(
    union: GraphQLUnionType, selections: Sequence[SelectionNode]
) -> Completer | None:
    """The completer of a selection on a union of strawberry object types, such as ``{
    __typename ... on Score { round } ... on MoveRejected { code message } }``: ``__typename``
    and inline fragments on member types, each of plain fields only. Or None for any other
    selection (named fragments, directives, a fragment without a type or on the union itself).

    graphql-core collects the fields that apply to the value's type in document order and
    completes them as one object; so does this, with the fields for each member collected
    once. The member is found by the value's exact class, the class strawberry made the type
    from (strawberry accepts subclasses and casts too: such a value makes the plan give up)."""
    members = {t.name: t for t in union.types}
    for node in selections:
        if isinstance(node, FieldNode):
            if node.name.value != "__typename":
                return None  # only __typename is a field of a union
        elif not (
            isinstance(node, InlineFragmentNode)
            and not node.directives
            and node.type_condition is not None
            and node.type_condition.name.value in members
            and all(isinstance(s, FieldNode) for s in node.selection_set.selections)
        ):
            return None
    by_class: dict[type, Completer] = {}
    for member in members.values():
        definition = (member.extensions or {}).get(GraphQLCoreConverter.DEFINITION_BACKREF)
        origin = getattr(definition, "origin", None)
        if not isinstance(origin, type) or member.is_type_of is not None:
            return None
        nodes: list[SelectionNode] = []
        for node in selections:
            if isinstance(node, FieldNode):
                nodes.append(node)
            elif (
                isinstance(node, InlineFragmentNode)
                and node.type_condition is not None
                and node.type_condition.name.value == member.name
            ):
                nodes.extend(node.selection_set.selections)
        complete = plain_completer(member, nodes) if nodes else _EMPTY
        if complete is None:
            return None
        by_class[origin] = complete

    def completed(value: Any) -> Any:
        complete = by_class.get(type(value))
        if complete is None:
            raise GiveUp  # a value of another class: strawberry's type resolution decides
        return complete(value)

    return completed


def _empty(_: Any) -> dict[str, Any]:
    return {}  # a member the selection asks nothing of, as graphql-core completes it


_EMPTY: Completer = _empty


async def _gather(values: Sequence[Awaitable[Any]]) -> list[Any]:
    return list(await asyncio.gather(*values))


def _track(values: Sequence[Any]) -> None:
    raise GiveUp  # background work a resolver hands the executor: the general path tracks it


_HELPERS = GraphQLResolveInfoHelpers(_gather, _track)


class _NoPlan:
    """A document known not to have a plan (not None, which a cache lookup returns on a miss)."""


_NO_PLAN = _NoPlan()


class CompiledQueries:
    """Plans by (query text, operation name), made on first use from validated documents
    (bounded in bytes like the documents, least recently used dropped)."""

    def __init__(
        self,
        schema: GraphQLSchema,
        validated: ValidatedDocuments,
        max_bytes: int = 8 << 20,
        resolvers: DirectResolvers | None = None,
        limits: InputLimits | None = None,
        plannable: frozenset[str] | None = None,
    ) -> None:
        self.plannable = plannable
        self.limits = limits or InputLimits()
        self.schema = schema
        self.validated = validated
        self.resolvers = resolvers
        # A plan holds its document: weighed as the document is (None, no plan: the key only).
        self._plans: WeighedLRU[tuple[str, str | None], Plan | _NoPlan] = WeighedLRU(max_bytes)

    def plan(self, query: str, operation_name: str | None) -> Plan | None:
        key = (query, operation_name)
        known = self._plans.get(key)
        if known is not None:
            return known if isinstance(known, Plan) else None
        validated = self.validated.get(query)
        if validated is None:
            return None  # not validated yet (or with errors): the general path; ask again later
        document, weight = validated
        plan = make_plan(self.schema, document, operation_name, self.resolvers, self.plannable)
        self._plans.put(key, _NO_PLAN if plan is None else plan, weight if plan else len(query))
        return plan

    def refused(self, plan: Plan, variables: dict[str, Any] | None) -> bool:
        """``limits.request_error``, with what the plan knows of its operation."""
        limits = self.limits
        types = plan.variable_types
        if input_size_error(self.schema, plan.operation, variables, limits, types) is not None:
            return True
        cost = plan.cost
        if cost is None:
            cost = operation_cost(plan.document, plan.operation_name, variables)
        return cost_error(cost, limits) is not None

    async def execute(
        self, plan: Plan, variables: dict[str, Any] | None, context: Any
    ) -> PlanResult | None:
        """The response's ``data`` and errors, or None: the general path must answer.

        A field whose arguments or resolver raise is answered here, as graphql-core answers it
        (the error located at the field, the field null, or ``data`` null if the field is
        non-null), so a failing request runs once: the general path would run every resolver
        again, and decode an invalid state twice. Only a value the completion cannot handle
        (a null in a non-null position, a value that does not serialize: bugs) hands the
        request to the general path, which reports it as it always did."""
        schema = self.schema
        if self.refused(plan, variables):
            return None  # the general path refuses it, with the same checks
        coerced = get_variable_values(
            schema, plan.operation.variable_definitions or (), variables or {}, max_errors=50
        )
        if isinstance(coerced, list):
            return None  # variable errors: reported by the general path
        root = schema.query_type
        assert root is not None
        data: dict[str, Any] = {}
        errors: list[GraphQLError] = []
        data_is_null = False
        for field in plan.fields:
            if field.field_def is None:
                data[field.response_name] = field.complete(None)
                continue
            try:
                args = get_argument_values(field.field_def, field.node, coerced)
                info = GraphQLResolveInfo(
                    field.node.name.value,
                    [field.node],
                    field.field_def.type,
                    root,
                    Path(None, field.response_name, root.name),
                    schema,
                    {},
                    None,
                    plan.operation,
                    coerced,
                    context,
                    _is_awaitable,
                    None,
                    _HELPERS,
                )
                if field.direct is not None:
                    value = field.direct(None, info, args)
                else:
                    resolve: Callable[..., Any] = field.field_def.resolve  # type: ignore[assignment]
                    value = resolve(None, info, **args)
                if inspect.isawaitable(value):
                    value = await value
            except GiveUp:
                return None
            except Exception as exc:  # the field's error, as graphql-core reports it
                errors.append(located_error(exc, [field.node], [field.response_name]))
                data_is_null = data_is_null or field.non_null
                data[field.response_name] = None
                continue
            try:
                data[field.response_name] = _complete(field, value)
            except Exception:  # anything unusual: the general path runs and reports it
                return None
        return PlanResult(None if data_is_null else data, errors)


@dataclass(frozen=True, slots=True)
class PlanResult:
    data: dict[str, Any] | None
    errors: list[GraphQLError]


def _is_awaitable(value: Any) -> TypeGuard[Awaitable[Any]]:
    return inspect.isawaitable(value)


def _complete(field: _RootField, value: Any) -> Any:
    if value is None:
        if field.non_null:
            raise GiveUp
        return None
    if isinstance(value, Exception):
        raise GiveUp
    if not field.is_list:
        return field.complete(value)
    if not isinstance(value, list | tuple):
        raise GiveUp
    complete = field.complete
    out: list[Any] = []
    for item in value:
        if item is None or isinstance(item, Exception):
            if field.items_non_null or item is not None:
                raise GiveUp
            out.append(None)
        else:
            out.append(complete(item))
    return out
