"""Request limits: GraphQL complexity rules, and a per-client token bucket for rate limiting.

The body-size limit lives in the ASGI middleware (``middleware.py``), which must see the body
before anything parses it.
"""

from __future__ import annotations

import functools
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from graphql import DocumentNode, GraphQLError, ValidationContext, ValidationRule, parse
from graphql.validation import NoSchemaIntrospectionCustomRule
from strawberry.extensions import SchemaExtension
from strawberry.extensions.max_aliases import create_validator as alias_validator
from strawberry.extensions.query_depth_limiter import IgnoreContext
from strawberry.extensions.query_depth_limiter import create_validator as depth_validator
from strawberry.schema.schema import validate_document

from .graphql_compiled import ValidatedDocuments

TOO_COMPLEX = "QUERY_TOO_COMPLEX"


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
    cache_size: int = 256,
) -> list[Callable[[], SchemaExtension]]:
    """Extension factories for the schema: the limits, and the parse and validation caches.

    The rule classes are created here, once: a factory that built new rule classes per request
    would miss the validation cache every time (strawberry issue #4635)."""
    rules: list[type[Any]] = [
        _coded(depth_validator(max_depth, _is_introspection, None), TOO_COMPLEX),
        _coded(alias_validator(max_aliases), TOO_COMPLEX),
    ]
    if not introspection:
        rules.append(_coded(NoSchemaIntrospectionCustomRule, "INTROSPECTION_DISABLED"))
    frozen_rules = tuple(rules)

    # Bounded LRU caches, as query texts come from clients, both keyed by the query text and the
    # parse options (and the validation cache by the schema and the rules too).
    @functools.lru_cache(maxsize=cache_size)
    def cached_parse(query: str, options: tuple[tuple[str, Any], ...]) -> DocumentNode:
        return parse(query, **dict(options))

    @functools.lru_cache(maxsize=cache_size)
    def cached_validate(
        schema: Any, query: str, options: tuple[Any, ...], rules: tuple[Any, ...]
    ) -> list[GraphQLError]:
        # Keyed by the query text (its hash is kept by the string), not by the document, whose
        # hash walks the whole syntax tree on every request; the document is the parse cache's.
        return validate_document(schema, cached_parse(query, options), rules)

    class ServiceLimits(SchemaExtension):
        """The token limit, the rules above and the parse and validation caches in one
        extension and one hook (what strawberry's ``MaxTokensLimiter``, ``AddValidationRules``,
        ``ParserCache`` and ``ValidationCache`` do in four extensions and four hooks): every
        hook costs a context manager on every request.

        The operation hook runs before strawberry parses and validates, and strawberry skips
        both when a document and the validation errors are already there. A query that does not
        parse is left to strawberry, which parses it again and reports the error as usual.
        """

        validation_cache = cached_validate  # for tests: cache_info()
        # What passed parsing and validation here, for compiled plans (graphql_compiled).
        validated_documents = ValidatedDocuments(cache_size)

        def on_operation(self) -> Iterator[None]:
            context = self.execution_context
            context.parse_options["max_tokens"] = max_tokens
            context.validation_rules = context.validation_rules + frozen_rules
            query = context.query
            if query and context.graphql_document is None:
                options = tuple(sorted(context.parse_options.items()))
                try:
                    document = cached_parse(query, options)
                    errors = cached_validate(
                        context.schema._schema, query, options, tuple(context.validation_rules)
                    )
                except (GraphQLError, TypeError):  # a syntax error, or unhashable options
                    pass
                else:
                    context.graphql_document = document
                    context.pre_execution_errors = errors
                    if not errors:
                        ServiceLimits.validated_documents.add(query, document)
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
