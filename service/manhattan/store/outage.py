"""Warnings during an outage: one line per kind of failure with a count, not one per request.

The first failure of each kind (the exception's class: ``ConnectionError``, ``TimeoutError``,
...) is logged when it happens; later ones of that kind are counted, and the counts are logged
in one line per kind every ``every`` seconds while the outage lasts and once more, with its
length, when the store answers again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field


@dataclass(eq=False)
class OutageLog:
    """The warnings of one thing that can be unavailable (``what``: "the lobby index")."""

    log: logging.Logger
    what: str
    _: KW_ONLY
    every: float = 30.0
    clock: Callable[[], float] = time.monotonic
    #: When the outage began (None: there is none), and when its counts are next logged.
    _since: float | None = field(default=None, init=False, repr=False)
    _next_report: float = field(default=0.0, init=False, repr=False)
    #: Failures by kind: not yet logged, and since the outage began.
    _unreported: dict[str, int] = field(default_factory=dict, init=False, repr=False)
    _totals: dict[str, int] = field(default_factory=dict, init=False, repr=False)

    @property
    def active(self) -> bool:
        return self._since is not None

    def failed(self, exc: BaseException, kind: str | None = None) -> None:
        """One failure; ``kind`` defaults to the exception's class name."""
        kind = kind or type(exc).__name__
        now = self.clock()
        if self._since is None:
            self._since = now
            self._next_report = now + self.every
        first = kind not in self._totals
        self._totals[kind] = self._totals.get(kind, 0) + 1
        if first:
            self.log.warning(
                "%s unavailable (%s)", self.what, kind, extra={"kind": kind, "error": repr(exc)}
            )
        else:
            self._unreported[kind] = self._unreported.get(kind, 0) + 1
        if now >= self._next_report:
            self._next_report = now + self.every
            self._report(f"still unavailable after {now - self._since:.0f} s")

    def recovered(self) -> None:
        """The store answered: the outage (if any) is over."""
        if self._since is None:
            return
        seconds = self.clock() - self._since
        self.log.warning("%s is back after %.1f s", self.what, seconds)
        self._per_kind(
            self._totals,
            "%(what)s was unavailable: %(count)d failures (%(kind)s)",
            seconds=round(seconds, 1),
        )
        self._since = None
        self._totals.clear()
        self._unreported.clear()

    def _report(self, state: str) -> None:
        self.log.warning("%s %s", self.what, state)
        self._per_kind(self._unreported, "%(what)s unavailable (%(kind)s): %(count)d more failures")
        self._unreported.clear()

    def _per_kind(self, counts: dict[str, int], message: str, **extra: float) -> None:
        """One warning per kind of failure, by kind: ``message`` formats ``what``, ``kind`` and
        ``count`` by name; the record's extra fields are ``kind``, ``count`` and ``extra``."""
        for kind, count in sorted(counts.items()):
            fields = {"what": self.what, "kind": kind, "count": count}
            self.log.warning(message, fields, extra={"kind": kind, "count": count, **extra})


__all__ = ["OutageLog"]
