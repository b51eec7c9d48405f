"""Types whose GraphQL completions may be reused: a registry that needs no library internals,
so the types module fills it whether the fast path is on or not, and the plain-data completion
(``execution``) reads it."""

from __future__ import annotations

#: Types whose instances the completion may reuse (see ``execution``).
IMMUTABLE: set[type] = set()


def complete_by_identity(cls: type) -> None:
    """Declare ``cls`` immutable: its instances' completions may be reused."""
    IMMUTABLE.add(cls)
