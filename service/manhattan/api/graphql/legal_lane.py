"""``legalMoves`` alone, answered from bytes kept per state: GraphQL's twin of REST's body.

A planned query whose one root field is ``legalMoves(state: $s)``, with ``$s: StateRef!`` its
only variable, answers ``{"data": {<name>: [<moves>]}}``: a pure result of the state and of the
selection. Its lane writes those bytes with the plan's own completer and the view's own JSON
encoder, and keeps them where REST keeps its legal moves' body
(``Operations.legal_moves_encoded``: by the parsed state object, and under a state's id in the
cache), under a kind named after the selection. A state asked about again then costs a lookup,
not a completion of every move and an encoding; a new one skips the executor's steps (the
variables' coercion, the resolve info, the argument objects).

The lane takes only a state reference as graphql-core would coerce it (exactly one of
``json``, ``id`` and ``token``, not null, an id or token a string) and a request within the
plan's limits; anything else goes to the plan. What the operation raises (a state refused, a
malformed header, an unknown id) is reported as the plan reports a resolver's failure, so a
failing request runs once; a move the completer cannot complete makes the plan answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from graphql import GraphQLNonNull, VariableNode, print_ast
from graphql.error import located_error
from starlette.requests import Request

from manhattan.api.encoding import dump_json, header
from manhattan.api.graphql.compiled import CompiledQueries, Plan, PlanResult
from manhattan.api.graphql.execution import Completer
from manhattan.api.graphql.immutable import IMMUTABLE
from manhattan.api.graphql.limits import InputLimits, cost_error
from manhattan.games import GAME_HEADER, NO_CALLER, PLAYER_HEADER, Caller, Operations, StateRef

_REF_KEYS = frozenset({"json", "id", "token"})
#: Moves whose JSON a lane keeps (cleared when full, as the completion's memo is).
_KEPT_MOVES = 10_000


@dataclass(frozen=True, slots=True)
class LegalLane:
    """The lane of one plan: its variable, the name it answers under, its completer."""

    plan: Plan
    variable: str
    response_name: str
    complete: Completer
    kind: str  # the encoding's name in the cache: the selection's digest
    opening: bytes  # the answer's bytes before its moves: ``{"data":{"<name>":[``
    #: Whether the plan's limits refuse every request the lane takes (None: they depend on the
    #: variables, checked per request).
    refused: bool | None = None
    #: Each move's JSON, kept by the move object (held, so its id stays its own).
    fragments: dict[int, tuple[Any, bytes]] = field(default_factory=dict)

    def ref(self, variables: dict[str, Any] | None) -> StateRef | None:
        """The state reference graphql-core would coerce ``$s`` to, or None: it would refuse
        it (or the lane does not take it)."""
        value = None if variables is None else variables.get(self.variable)
        if not isinstance(value, dict) or len(value) != 1:
            return None
        ((key, given),) = value.items()
        if key not in _REF_KEYS or given is None:
            return None
        if key == "json":
            return StateRef.from_wire(given)  # as ``StateRefInput.to_ref``
        if not isinstance(given, str):
            return None
        return StateRef(id=given) if key == "id" else StateRef(token=given)

    def encode(self, moves: Sequence[Any]) -> bytes:
        """The answer's bytes, as the plan completes the moves and the view encodes them: the
        compact JSON of ``{"data": {<name>: [<move>, ...]}}``, written as its parts. The engine
        hands out the same move objects from state to state, so each immutable move's JSON is
        kept (by the object, as the completion keeps its result)."""
        kept = self.fragments
        parts = []
        for move in moves:
            fragment = kept.get(id(move))
            if fragment is None or fragment[0] is not move:
                try:
                    completed = self.complete(move)
                except Exception as exc:  # (GiveUp above all: the plan gives up too)
                    raise _NotCompleted from exc
                fragment = (move, dump_json(completed))
                if type(move) in IMMUTABLE:
                    if len(kept) >= _KEPT_MOVES:
                        kept.clear()
                    kept[id(move)] = fragment
            parts.append(fragment[1])
        return self.opening + b",".join(parts) + b"]}}"

    async def answer(
        self, request: Request, variables: dict[str, Any] | None, queries: CompiledQueries
    ) -> bytes | PlanResult | None:
        """The whole answer's bytes; or the field's failure, as the plan reports it (located
        at the field, ``data`` null: the field is non-null); or None: the plan answers."""
        ref = self.ref(variables)
        if ref is None:
            return None
        refused = self.refused
        if refused is None:
            refused = queries.refused(self.plan, variables)
        if refused:
            return None
        (field,) = self.plan.fields
        try:
            operations: Operations = request.app.state.operations
            bound = ref.bound(_caller(request))
            return await operations.legal_moves_encoded(bound, self.kind, self.encode)
        except _NotCompleted:
            return None
        except Exception as exc:  # what the resolver raises, as ``CompiledQueries.execute``
            return PlanResult(None, [located_error(exc, [field.node], [field.response_name])])


def _caller(request: Request) -> Caller:
    """``inputs.caller``: the ``Manhattan-Game`` / ``Manhattan-Player`` headers; without them
    (most requests), without reading every header."""
    if header(request, GAME_HEADER) is None and header(request, PLAYER_HEADER) is None:
        return NO_CALLER
    return Caller.from_headers(request.headers)


class _NotCompleted(Exception):
    """A move the completer could not complete: the plan gives up on it as well."""


#: The values ``limits.input_size_error`` counts in a reference the lane takes: the ``StateRef``
#: object and its one field (an inline state is one JSON value).
_REF_VALUES = 2


def legal_lane(plan: Plan, limits: InputLimits | None = None) -> LegalLane | None:
    """The lane of ``plan``, or None when it is not ``legalMoves(state: $s)`` alone; with
    ``limits``, whether they refuse what it takes is known once (its cost is fixed)."""
    if len(plan.fields) != 1 or len(plan.variable_types) != 1:
        return None
    (root,) = plan.fields
    ((variable, declared),) = plan.variable_types
    node = root.node
    arguments = node.arguments or ()
    if (
        node.name.value != "legalMoves"
        or root.field_def is None
        or not (root.is_list and root.non_null and root.items_non_null)
        or not isinstance(declared, GraphQLNonNull)
        or getattr(declared.of_type, "name", None) != "StateRef"
        or len(arguments) != 1
        or arguments[0].name.value != "state"
        or not isinstance(arguments[0].value, VariableNode)
        or arguments[0].value.name.value != variable
    ):
        return None
    digest = hashlib.sha256(print_ast(node).encode()).hexdigest()[:24]
    refused = None
    if limits is not None and plan.cost is not None:
        refused = limits.max_values < _REF_VALUES or cost_error(plan.cost, limits) is not None
    opening = b'{"data":{' + dump_json(root.response_name) + b":["
    return LegalLane(
        plan,
        variable,
        root.response_name,
        root.complete,
        f"graphql:{digest}",
        opening,
        refused,
    )


class LegalLanes:
    """Each plan's lane (or its absence), found once per plan."""

    def __init__(self, limits: InputLimits | None = None, max_plans: int = 256) -> None:
        self.limits = limits
        self.max_plans = max_plans
        self._lanes: dict[int, tuple[Plan, LegalLane | None]] = {}

    def of(self, plan: Plan) -> LegalLane | None:
        known = self._lanes.get(id(plan))
        if known is not None and known[0] is plan:  # (the entry holds its plan: ids stay)
            return known[1]
        lane = legal_lane(plan, self.limits)
        if len(self._lanes) >= self.max_plans:
            self._lanes.clear()
        self._lanes[id(plan)] = (plan, lane)
        return lane
