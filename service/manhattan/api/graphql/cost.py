"""What a GraphQL operation costs, in moves applied, read from its syntax tree and raw
variables before anything is converted (the bound is ``InputLimits.max_cost``, in ``limits``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    SelectionSetNode,
    value_from_ast_untyped,
)
from graphql.utilities import get_operation_ast

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
#: The root fields whose cost depends on their arguments (``_moves_of``); every other field's is
#: known from the document alone.
ARGUMENT_COSTS = frozenset({"replay", "applyMoves"})


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


def fixed_cost(document: DocumentNode, operation_name: str | None) -> int | None:
    """The operation's cost when no root field's cost depends on its arguments (a compiled plan
    keeps it), else None: ``operation_cost`` with the request's variables decides."""
    operation = get_operation_ast(document, operation_name)
    if operation is None or _names(operation.selection_set, document) & ARGUMENT_COSTS:
        return None
    return operation_cost(document, operation_name, None)


def _names(selection_set: SelectionSetNode, document: DocumentNode) -> set[str]:
    """The root field names a selection selects, through fragments (spreads: every fragment's)."""
    names: set[str] = set()
    for node in selection_set.selections:
        if isinstance(node, FieldNode):
            names.add(node.name.value)
        elif isinstance(node, InlineFragmentNode):
            names |= _names(node.selection_set, document)
        elif isinstance(node, FragmentSpreadNode):
            for d in document.definitions:
                if isinstance(d, FragmentDefinitionNode):
                    names |= _names(d.selection_set, document)
    return names
