"""Request limits: GraphQL complexity rules, and a per-client token bucket for rate limiting.

The body-size limit lives in the ASGI middleware (``middleware.py``), which must see the body
before anything parses it.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from graphql import (
    DocumentNode,
    FieldNode,
    FloatValueNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    NameNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    ValidationContext,
    ValidationRule,
    parse,
    value_from_ast_untyped,
)
from graphql.language import Visitor, visit
from graphql.utilities import get_operation_ast, type_from_ast
from graphql.validation import NoSchemaIntrospectionCustomRule
from strawberry.extensions import SchemaExtension
from strawberry.extensions.max_aliases import create_validator as alias_validator
from strawberry.extensions.query_depth_limiter import IgnoreContext
from strawberry.extensions.query_depth_limiter import create_validator as depth_validator
from strawberry.schema.schema import validate_document

TOO_COMPLEX = "QUERY_TOO_COMPLEX"
TOO_LARGE = "PAYLOAD_TOO_LARGE"
#: Digits in a number literal of a query. Python refuses to read integers of more than 4,300
#: digits, and no argument of this schema needs more than a few: longer literals are refused
#: before anything reads them.
MAX_LITERAL_DIGITS = 100


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


def input_size_error(
    schema: GraphQLSchema,
    operation: OperationDefinitionNode,
    variables: object,
    limits: InputLimits,
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
    stack: list[tuple[object, Any]] = []
    for definition in operation.variable_definitions or ():
        name = definition.variable.name.value
        type_ = type_from_ast(schema, definition.type)
        if name in variables and type_ is not None:
            stack.append((variables[name], type_))
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


# -- cost --------------------------------------------------------------------------------------
FieldCost = Callable[[Callable[[str], Any]], int]


def _constant(cost: int) -> FieldCost:
    def constant(_: Callable[[str], Any]) -> int:
        return cost

    return constant


def _moves_of(*path: str) -> FieldCost:
    """One per move in the list argument at ``path`` (an argument, then input fields), plus one."""

    def moves(argument: Callable[[str], Any]) -> int:
        value = argument(path[0])
        for key in path[1:]:
            value = value.get(key) if isinstance(value, dict) else None
        return 1 + (len(value) if isinstance(value, list) else 0)

    return moves


#: What a root field costs, in moves applied (the unit): a replay costs its moves, a preview of
#: every legal move about as much as playing them, a bot its hand-off (below). Fields not listed
#: cost 1. Tunable only as a whole, through ``MANHATTAN_GRAPHQL_MAX_COST``.
FIELD_COSTS: dict[str, FieldCost] = {
    "replay": _moves_of("game", "moves"),
    "applyMoves": _moves_of("moves"),
    "previewAll": _constant(50),
    "preview": _constant(5),
    "analysis": _constant(5),
    "threats": _constant(20),
    "boardSvg": _constant(5),
    # A request's bot work shares one wall-clock deadline in the bot pool, however many fields
    # ask for it (bot_pool), so a bot field costs its hand-off (a state to a worker, a view)
    # rather than its search: 15 aliases of suggestMove fit, a long replay beside them does not.
    "suggestMove": _constant(200),
    "advance": _constant(250),
}


def operation_cost(
    document: DocumentNode, operation_name: str | None, variables: dict[str, Any] | None
) -> int:
    """The cost of the operation ``document`` runs: the sum over its root fields, however they
    are aliased or spread through fragments (each use counts). Arguments are read from the
    syntax tree and the raw variables, as the resolvers would see them after coercion, so the
    cost is known before anything is converted. 0 when there is no such operation (graphql-core
    reports that)."""
    operation = get_operation_ast(document, operation_name)
    if operation is None:
        return 0
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    return _selection_cost(operation.selection_set, fragments, variables or {}, {})


def _selection_cost(
    selection_set: SelectionSetNode,
    fragments: dict[str, FragmentDefinitionNode],
    variables: dict[str, Any],
    memo: dict[str, int],
) -> int:
    total = 0
    for node in selection_set.selections:
        if isinstance(node, FieldNode):
            cost = FIELD_COSTS.get(node.name.value)
            total += 1 if cost is None else cost(_arguments(node, variables))
        elif isinstance(node, InlineFragmentNode):
            total += _selection_cost(node.selection_set, fragments, variables, memo)
        elif isinstance(node, FragmentSpreadNode):
            # Each fragment costed once (spreads of spreads would be exponential); a fragment
            # met again while being costed (a cycle: validation refuses those) counts 0.
            name = node.name.value
            if name not in memo:
                fragment = fragments.get(name)
                memo[name] = 0
                if fragment is not None:
                    memo[name] = _selection_cost(fragment.selection_set, fragments, variables, memo)
            total += memo[name]
    return total


def _arguments(node: FieldNode, variables: dict[str, Any]) -> Callable[[str], Any]:
    def argument(name: str) -> Any:
        for arg in node.arguments or ():
            if arg.name.value == name:
                return value_from_ast_untyped(arg.value, variables)
        return None

    return argument


def cost_error(cost: int, limits: InputLimits) -> GraphQLError | None:
    if cost <= limits.max_cost:
        return None
    return GraphQLError(
        f"this operation costs {cost} (moves applied, bot searches, previews); at most "
        f"{limits.max_cost} in one request",
        extensions={"code": TOO_COMPLEX},
    )


class _Survey(Visitor):
    """One walk over a parsed document: its number of nodes (its size in memory is about
    ``NODE_BYTES`` each) and its first number literal too long to read."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes = 0
        self.too_long: IntValueNode | FloatValueNode | None = None

    def enter(self, node: Any, *_: Any) -> None:
        self.nodes += 1
        if (
            self.too_long is None
            and isinstance(node, IntValueNode | FloatValueNode)
            and len(node.value) > MAX_LITERAL_DIGITS
        ):
            self.too_long = node


#: Bytes a parsed document holds per syntax node (its location, token and value included),
#: measured with tracemalloc on graphql-core 3.3: 500 for a small query, less for long ones.
NODE_BYTES = 500


def check_document(
    schema: Any, query: str, options: Mapping[str, Any], rules: tuple[Any, ...]
) -> CheckedDocument:
    """Parse ``query`` (raises ``GraphQLError`` on a syntax error), weigh the document, refuse
    a number literal too long to read before any rule reads it, then validate."""
    document = parse(query, **options)
    survey = _Survey()
    visit(document, survey)
    weight = len(query) + NODE_BYTES * survey.nodes
    if survey.too_long is not None:
        error = GraphQLError(
            f"a number literal has more than {MAX_LITERAL_DIGITS} characters",
            nodes=[survey.too_long],
            extensions={"code": "INVALID_REQUEST"},
        )
        return CheckedDocument(document, [error], weight)
    return CheckedDocument(document, validate_document(schema, document, rules), weight)


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class WeighedLRU(Generic[K, V]):
    """A least-recently-used map bounded in bytes (each entry weighed when it is put) and in
    entries. Keys of GraphQL caches are query texts from clients, up to a body's size each, so a
    bound in entries alone let 600 distinct 250 KB queries hold some 150 MB."""

    def __init__(self, max_bytes: int, max_entries: int = 1_024) -> None:
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self.bytes = 0
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> V | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[0]

    def put(self, key: K, value: V, weight: int) -> None:
        """Keep ``value``; one heavier than an eighth of the budget is not kept at all."""
        old = self._entries.pop(key, None)
        if old is not None:
            self.bytes -= old[1]
        if weight > self.max_bytes // 8:
            return
        self._entries[key] = (value, weight)
        self.bytes += weight
        while self.bytes > self.max_bytes or len(self._entries) > self.max_entries:
            _, (_, dropped) = self._entries.popitem(last=False)
            self.bytes -= dropped


@dataclass(frozen=True, slots=True)
class CheckedDocument:
    """A query's parsed document, its validation errors and its weight in bytes."""

    document: DocumentNode
    errors: list[GraphQLError]
    weight: int


class ValidatedDocuments:
    """Documents parsed and validated on the general path, by query text (with the parse
    options and rules they were checked with): the parse and validation caches in one, bounded
    in bytes. Compiled plans (``graphql_compiled``) are made from the ones without errors."""

    def __init__(self, max_bytes: int, max_entries: int = 1_024) -> None:
        self.max_bytes = max_bytes
        self._cache: WeighedLRU[str, tuple[object, CheckedDocument]] = WeighedLRU(
            max_bytes, max_entries
        )
        self.hits = 0  # for tests and metrics

    @property
    def bytes(self) -> int:
        return self._cache.bytes

    def __len__(self) -> int:
        return len(self._cache)

    def check(self, query: str, key: object, run: Callable[[], CheckedDocument]) -> CheckedDocument:
        """The checked document of ``query`` for ``key`` (options and rules), from the cache or
        from ``run`` (which may raise: nothing is kept then)."""
        entry = self._cache.get(query)
        if entry is not None and entry[0] == key:
            self.hits += 1
            return entry[1]
        checked = run()
        self._cache.put(query, (key, checked), checked.weight)
        return checked

    def get(self, query: str) -> tuple[DocumentNode, int] | None:
        """A document that validated without errors, and its weight."""
        entry = self._cache.get(query)
        if entry is None or entry[1].errors:
            return None
        return entry[1].document, entry[1].weight


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
                # Before graphql-core reads a character. strawberry parses the query even when
                # errors are already set: a stand-in document keeps it from reading this one.
                too_large = _too_large(
                    f"the query has more than {input_limits.max_query_chars} characters"
                )
                context.graphql_document = _stand_in(context.operation_name)
                context.pre_execution_errors = [too_large]
                yield
                return
            if query and context.graphql_document is None:
                options = context.parse_options
                rules = tuple(context.validation_rules)
                schema = context.schema._schema
                try:
                    checked = ServiceLimits.validated_documents.check(
                        query,
                        (schema, tuple(sorted(options.items())), rules),
                        lambda: check_document(schema, query, options, rules),
                    )
                except GraphQLError:  # a syntax error: strawberry parses again and reports it
                    pass
                else:
                    context.graphql_document = checked.document
                    errors = checked.errors
                    if not errors:
                        # Before graphql-core coerces a single variable value.
                        refused = request_error(
                            schema,
                            checked.document,
                            context.operation_name,
                            context.variables,
                            input_limits,
                        )
                        errors = [] if refused is None else [refused]
                    context.pre_execution_errors = errors
            yield

    return [ServiceLimits]


class RateLimiter:
    """A token bucket per client key: ``rate`` requests per second, bursts up to ``burst``.

    In-process, so with several replicas each enforces its own share; a shared limit belongs in
    the ingress. Bounded to ``max_clients`` keys (least recently seen dropped).
    """

    def __init__(
        self,
        rate: float,
        burst: int,
        *,
        max_clients: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.max_clients = max_clients
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, client: str) -> float:
        """0.0 if the request may proceed, else the seconds until it may."""
        now = self._clock()
        tokens, last = self._buckets.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        if tokens >= 1.0:
            self._buckets[client] = (tokens - 1.0, now)
            wait = 0.0
        else:
            self._buckets[client] = (tokens, now)
            wait = (1.0 - tokens) / self.rate
        self._buckets.move_to_end(client)
        while len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)
        return wait
