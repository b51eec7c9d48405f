"""The GraphQL fast path, behind this one module and one setting (``MANHATTAN_GRAPHQL_FAST_PATH``).

Three pieces make the common GraphQL request several times cheaper than strawberry's and
graphql-core's general machinery (figures in the README): a one-loop completion of plain data
objects (``execution``), compiled plans for simple queries (``compiled``) and direct resolver
calls (``resolvers``); and a plan of ``legalMoves`` alone answers from bytes kept per state
(``legal_lane``). All of them read strawberry's and graphql-core's
internals, which change between minor versions without notice. So:

- ``pyproject.toml`` pins both to the minor versions below, the ones the tests ran against;
- at start, another version installed anyway (an override, a newer lock) turns the fast path
  off with a warning instead of letting it misbehave: the general path answers everything the
  fast path would, only slower;
- the setting turns it off by hand;
- only root fields listed as reading (``plannable``) are ever planned: a field that writes (a
  state stored, a position claimed) always runs on the general path.

Nothing else in the service imports those modules; the schema and the view ask this one. They import
nothing of this one (the registry of immutable types is ``immutable``), so the dependency is
one-way; importing them runs nothing, only turning the fast path on does.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from importlib import metadata
from typing import Any

from manhattan.api.graphql.compiled import CompiledQueries, Plan, PlanResult
from manhattan.api.graphql.documents import ValidatedDocuments
from manhattan.api.graphql.execution import PlainDataExecutionContext
from manhattan.api.graphql.legal_lane import LegalLanes
from manhattan.api.graphql.limits import InputLimits
from manhattan.api.graphql.resolvers import DirectResolvers

log = logging.getLogger("manhattan.api")

__all__ = ["CompiledQueries", "LegalLanes", "Plan", "PlanResult", "compiled_queries", "enabled"]

#: Distribution -> the ``major.minor`` the fast path is tested against (``pyproject.toml`` pins
#: the same range).
TESTED_VERSIONS = {"strawberry-graphql": "0.341", "graphql-core": "3.3"}


def unsupported(versions: dict[str, str] | None = None) -> str | None:
    """Why the fast path cannot run with the installed libraries, or None if it can."""
    for name, tested in TESTED_VERSIONS.items():
        try:
            installed = (versions or {}).get(name) or metadata.version(name)
        except metadata.PackageNotFoundError:
            return f"{name} is not installed as a distribution"
        if ".".join(installed.split(".")[:2]) != tested:
            return f"{name} {installed} is installed; the fast path is tested on {tested}.x"
    return None


def enabled(wanted: bool) -> bool:
    """Whether the fast path runs: ``wanted`` (the setting) and the versions it is tested on.
    Says so loudly when the versions keep it off."""
    if not wanted:
        return False
    reason = unsupported()
    if reason is not None:
        log.warning("GraphQL fast path off: %s", reason, extra={"reason": reason})
        return False
    return True


def execution_context_class(on: bool) -> type | None:
    """The execution context for the schema: the plain-data completion, or strawberry's own."""
    return PlainDataExecutionContext if on else None


def compiled_queries(
    schema: Any, plannable: Iterable[str], *, on: bool = True
) -> CompiledQueries | None:
    """Compiled plans for a strawberry ``schema``, for the root fields named in ``plannable``
    (GraphQL names), if ``on`` and its only extension is the service's limits (whose one hook
    only supplies the cached, validated document): any other extension may need to see every
    request go through the general executor."""
    if not on:
        return None
    classes = {e if isinstance(e, type) else type(e) for e in schema.extensions}
    if len(classes) != 1:
        return None
    extension = classes.pop()
    validated = getattr(extension, "validated_documents", None)
    limits = getattr(extension, "limits", None)
    if not isinstance(validated, ValidatedDocuments) or not isinstance(limits, InputLimits):
        return None
    return CompiledQueries(
        schema._schema,
        validated,
        max_bytes=validated.max_bytes,
        resolvers=DirectResolvers(schema),
        limits=limits,
        plannable=frozenset(plannable),
    )
