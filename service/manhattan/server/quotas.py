"""Quotas for anonymous callers: table creations, stream tickets, joins and chat
messages per client address and window, each refused with 429 ``RATE_LIMITED`` and
``Retry-After``.

The address is ``client_address`` (trusted proxies' ``X-Forwarded-For`` included). A caller
with a platform key (``Manhattan-Key``, ``platforms/keys.py``) is exempt: the platform answers
for its players (``exempt``). Counts live where the tables do (``store/counters.py``): on
Redis every replica counts against one quota; embedded, the one process counts. A store that
cannot count lets the request through: the table operation that follows meets the outage
itself, with its own code. GraphQL calls ``check`` once per field, so each alias of
``createTable`` counts as one creation.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from manhattan.api.client_address import client_address
from manhattan.api.errors import ApiError
from manhattan.platforms.keys import ApiKeys
from manhattan.settings import Settings
from manhattan.store.cache import StoreUnavailable
from manhattan.store.cas import VersionedStore
from manhattan.store.counters import Counters, make_counters
from manhattan.tables.records import PREFIX

log = logging.getLogger("manhattan.api")

#: Each quota: what it counts, as the refusal names it.
KINDS: dict[str, str] = {
    "creates": "table creations",
    "tickets": "stream tickets",
    "joins": "joins",
    "chat": "chat messages",
}


@dataclass(frozen=True, slots=True)
class QuotaLimits:
    """Per client address and ``window`` seconds; 0 turns a quota off. The defaults are the
    settings' (``from_settings``)."""

    creates: int
    tickets: int
    joins: int
    chat: int
    window: float

    @classmethod
    def from_settings(cls, settings: Settings) -> QuotaLimits:
        """Each limit is the setting of its name with ``quota_`` before it."""
        return cls(**{f.name: getattr(settings, f"quota_{f.name}") for f in fields(cls)})

    def of(self, kind: str) -> int:
        limit: int = getattr(self, kind)
        return limit


class Quotas:
    def __init__(self, limits: QuotaLimits, counters: Counters, keys: ApiKeys) -> None:
        self.limits = limits
        self.counters = counters
        self.keys = keys

    @classmethod
    def from_settings(cls, settings: Settings, store: VersionedStore) -> Quotas:
        return cls(
            QuotaLimits.from_settings(settings),
            make_counters(store, f"{PREFIX}:quota"),
            ApiKeys.from_settings(settings),
        )

    def exempt(self, headers: Mapping[str, str]) -> bool:
        """The quota exemption hook: a caller with a platform key (an unknown key is
        ``BAD_KEY``, raised here as everywhere a key is read)."""
        return bool(self.keys) and self.keys.caller(headers) is not None

    async def check(self, kind: str, scope: Mapping[str, Any], headers: Mapping[str, str]) -> None:
        """Counts one ``kind`` for the caller; ``RATE_LIMITED`` beyond its quota."""
        limit = self.limits.of(kind)
        if limit <= 0 or self.exempt(headers):
            return
        address = client_address(scope)
        try:
            count, left = await self.counters.count(f"{kind}:{address}", self.limits.window)
        except StoreUnavailable:
            return
        if count > limit:
            wait = max(1, int(left + 0.999))
            window = f"{self.limits.window:g}"
            raise ApiError(
                "RATE_LIMITED",
                f"too many {KINDS[kind]} from this address: {limit} per {window} s; "
                f"retry in {wait} s",
                headers={"Retry-After": str(wait)},
            )
