"""The parse and validation cache of GraphQL documents, bounded in bytes: a document is parsed,
weighed, refused if it holds a number literal too long to read, validated, and kept by its
query text (the keys are the clients' texts, so the bound is in bytes, not entries)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from graphql import DocumentNode, FloatValueNode, GraphQLError, IntValueNode, parse
from graphql.language import Visitor, visit
from strawberry.schema.schema import validate_document

#: Digits in a number literal of a query. Python refuses to read integers of more than 4,300
#: digits, and no argument of this schema needs more than a few: longer literals are refused
#: before anything reads them.
MAX_LITERAL_DIGITS = 100


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
