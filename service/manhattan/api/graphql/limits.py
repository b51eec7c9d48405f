"""GraphQL's request limits, in one schema extension: the query's length, the token limit, the
depth and alias rules, then, before graphql-core coerces a value, the raw variables along their
declared types and the operation's cost (``cost``); with the parse and validation cache
(``documents``). The HTTP limits are elsewhere: the body's size in ``middleware.py``, the rate
in ``rate_limit.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    GraphQLError,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLSchema,
    NameNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    ValidationContext,
    ValidationRule,
)
from graphql.utilities import get_operation_ast, type_from_ast
from graphql.validation import NoSchemaIntrospectionCustomRule
from strawberry.extensions import SchemaExtension
from strawberry.extensions.max_aliases import create_validator as alias_validator
from strawberry.extensions.query_depth_limiter import IgnoreContext
from strawberry.extensions.query_depth_limiter import create_validator as depth_validator
from strawberry.types import ExecutionContext

from manhattan.api.graphql.cost import operation_cost
from manhattan.api.graphql.documents import ValidatedDocuments, check_document

TOO_COMPLEX = "QUERY_TOO_COMPLEX"
TOO_LARGE = "PAYLOAD_TOO_LARGE"


@dataclass(frozen=True, slots=True)
class InputLimits:
    """What a GraphQL request may send before any of it is converted: the variables' values in
    total, the items of any one list (moves, above all), and a cost per operation that aliases
    cannot multiply (see ``operation_cost``)."""

    max_list_items: int = 2_000
    max_values: int = 20_000
    max_cost: int = 4_000
    #: Characters of a query document. graphql-core's lexer reads a string literal a character
    #: at a time in Python: a 250 KB query took some 150 ms of the event loop to parse.
    max_query_chars: int = 32_768


DEFAULT_INPUT_LIMITS = InputLimits()


def variable_types(
    schema: GraphQLSchema, operation: OperationDefinitionNode
) -> tuple[tuple[str, Any], ...]:
    """The operation's variables and their types (a compiled plan keeps them: reading them from
    the syntax tree was a tenth of a small request's cost)."""
    found = (
        (d.variable.name.value, type_from_ast(schema, d.type))
        for d in operation.variable_definitions or ()
    )
    return tuple((name, type_) for name, type_ in found if type_ is not None)


def input_size_error(
    schema: GraphQLSchema,
    operation: OperationDefinitionNode,
    variables: object,
    limits: InputLimits,
    types: tuple[tuple[str, Any], ...] | None = None,
) -> GraphQLError | None:
    """An error if the raw (decoded JSON) ``variables`` the operation declares exceed
    ``limits``, else None.

    graphql-core coerces every list item and strawberry converts every one again (once per
    field that uses the variable) before a resolver could check a count: 80,000 empty moves in
    a 240 KB body kept the event loop busy for seconds. This walk follows the declared types,
    so it counts what will be converted item by item (a JSON scalar, such as an inline state,
    is one value: it is parsed later, by its own decoder); it stops at the first list that is
    too long (its length is known without looking at the items) or at the value past the
    total, so it costs at most ``max_values`` steps."""
    if not isinstance(variables, dict) or not variables:
        return None
    budget = limits.max_values
    stack: list[tuple[object, Any]] = [
        (variables[name], type_)
        for name, type_ in (types if types is not None else variable_types(schema, operation))
        if name in variables
    ]
    while stack:
        value, type_ = stack.pop()
        budget -= 1
        if budget < 0:
            return _too_large(f"the variables hold more than {limits.max_values} values")
        if isinstance(type_, GraphQLNonNull):
            type_ = type_.of_type
        if isinstance(type_, GraphQLList):
            if isinstance(value, list):
                if len(value) > limits.max_list_items:
                    return _too_large(
                        f"a list in the variables has more than {limits.max_list_items} items"
                    )
                stack.extend((item, type_.of_type) for item in value)
            else:
                stack.append((value, type_.of_type))  # one value stands for a list of one
        elif isinstance(type_, GraphQLInputObjectType) and isinstance(value, dict):
            fields = type_.fields
            for key, item in value.items():
                field = fields.get(key)
                if field is None:
                    budget -= 1  # refused by graphql-core, after it looks for a suggestion
                else:
                    stack.append((item, field.type))
    if budget < 0:
        return _too_large(f"the variables hold more than {limits.max_values} values")
    return None


def request_error(
    schema: GraphQLSchema,
    document: DocumentNode,
    operation_name: str | None,
    variables: object,
    limits: InputLimits,
) -> GraphQLError | None:
    """The first bound a validated request exceeds (its variables, then its cost), or None.
    Nothing of the request has been coerced or converted yet."""
    operation = get_operation_ast(document, operation_name)
    if operation is None:
        return None  # graphql-core reports it
    too_large = input_size_error(schema, operation, variables, limits)
    if too_large is not None:
        return too_large
    raw = variables if isinstance(variables, dict) else None
    return cost_error(operation_cost(document, operation_name, raw), limits)


def _stand_in(operation_name: str | None) -> DocumentNode:
    """A document of one query named ``operation_name``, to stand in for a refused one."""
    operation = OperationDefinitionNode(
        operation=OperationType.QUERY,
        name=None if operation_name is None else NameNode(value=operation_name),
        variable_definitions=(),
        directives=(),
        selection_set=SelectionSetNode(
            selections=(FieldNode(name=NameNode(value="__typename"), arguments=(), directives=()),)
        ),
    )
    return DocumentNode(definitions=(operation,))


def _too_large(message: str) -> GraphQLError:
    return GraphQLError(message, extensions={"code": TOO_LARGE})


def cost_error(cost: int, limits: InputLimits) -> GraphQLError | None:
    if cost <= limits.max_cost:
        return None
    return GraphQLError(
        f"this operation costs {cost} (moves applied, bot searches, previews); at most "
        f"{limits.max_cost} in one request",
        extensions={"code": TOO_COMPLEX},
    )


def _coded(rule: type[ValidationRule], code: str) -> type[ValidationRule]:
    """``rule`` with ``extensions.code`` on every error it reports, whether it reports through
    ``report_error`` or (strawberry's rules) through the context while it is constructed."""

    class CodedRule(rule):  # type: ignore[valid-type,misc]
        def __init__(self, context: ValidationContext) -> None:
            report = context.report_error

            def with_code(error: GraphQLError) -> None:
                error.extensions = {**(error.extensions or {}), "code": code}
                report(error)

            context.report_error = with_code  # type: ignore[method-assign]
            try:
                super().__init__(context)
            finally:
                context.report_error = report  # type: ignore[method-assign]

        def report_error(self, error: GraphQLError) -> None:
            error.extensions = {**(error.extensions or {}), "code": code}
            super().report_error(error)

    CodedRule.__name__ = f"Coded{rule.__name__}"
    return CodedRule


def _is_introspection(ignore: IgnoreContext) -> bool:
    # Introspection is deep by nature (ofType chains); the token limit bounds it instead.
    return ignore.field_name.startswith("__")


def refuse_long_query(context: ExecutionContext, max_chars: int) -> None:
    """Refuse a query longer than ``max_chars`` before graphql-core reads a character. strawberry
    parses the query even when errors are already set: a stand-in document keeps it from reading
    this one."""
    context.graphql_document = _stand_in(context.operation_name)
    context.pre_execution_errors = [_too_large(f"the query has more than {max_chars} characters")]


def check_request(
    context: ExecutionContext, query: str, documents: ValidatedDocuments, limits: InputLimits
) -> None:
    """Parse and validate ``query`` through the cache, then bound its raw variables and cost,
    leaving the document and its errors where strawberry finds them (and then skips parsing and
    validating). A query that does not parse is left to strawberry, which parses it again and
    reports the error as usual."""
    options = context.parse_options
    rules = tuple(context.validation_rules)
    schema = context.schema._schema
    try:
        checked = documents.check(
            query,
            (schema, tuple(sorted(options.items())), rules),
            lambda: check_document(schema, query, options, rules),
        )
    except GraphQLError:  # a syntax error: strawberry parses again and reports it
        return
    context.graphql_document = checked.document
    errors = checked.errors
    if not errors:  # before graphql-core coerces a single variable value
        refused = request_error(
            schema, checked.document, context.operation_name, context.variables, limits
        )
        errors = [] if refused is None else [refused]
    context.pre_execution_errors = errors


def graphql_limits(
    max_depth: int,
    max_aliases: int,
    max_tokens: int,
    introspection: bool,
    cache_bytes: int = 8 << 20,
    inputs: InputLimits | None = None,
) -> list[Callable[[], SchemaExtension]]:
    """Extension factories for the schema: the limits, and the parse and validation caches.

    The rule classes are created here, once: a factory that built new rule classes per request
    would miss the validation cache every time (strawberry issue #4635). The cache holds at
    most ``cache_bytes`` of documents (estimated, see ``NODE_BYTES``)."""
    rules: list[type[Any]] = [
        _coded(depth_validator(max_depth, _is_introspection, None), TOO_COMPLEX),
        _coded(alias_validator(max_aliases), TOO_COMPLEX),
    ]
    if not introspection:
        rules.append(_coded(NoSchemaIntrospectionCustomRule, "INTROSPECTION_DISABLED"))
    frozen_rules = tuple(rules)
    input_limits = inputs or InputLimits()

    class ServiceLimits(SchemaExtension):
        """The token limit, the rules above and the parse and validation caches in one
        extension and one hook (what strawberry's ``MaxTokensLimiter``, ``AddValidationRules``,
        ``ParserCache`` and ``ValidationCache`` do in four extensions and four hooks): every
        hook costs a context manager on every request.

        The operation hook runs before strawberry parses and validates, and strawberry skips
        both when a document and the validation errors are already there. A query that does not
        parse is left to strawberry, which parses it again and reports the error as usual.
        """

        limits = input_limits
        # The parse and validation cache; compiled plans (graphql_compiled) are made from the
        # documents that passed.
        validated_documents = ValidatedDocuments(cache_bytes)

        def on_operation(self) -> Iterator[None]:
            context = self.execution_context
            context.parse_options["max_tokens"] = max_tokens
            context.validation_rules = context.validation_rules + frozen_rules
            query = context.query
            if query and len(query) > input_limits.max_query_chars:
                refuse_long_query(context, input_limits.max_query_chars)
            elif query and context.graphql_document is None:
                check_request(context, query, ServiceLimits.validated_documents, input_limits)
            yield

    return [ServiceLimits]
