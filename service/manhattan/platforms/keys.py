"""Platform keys: ``name=secret`` pairs from ``MANHATTAN_API_KEYS`` and
``MANHATTAN_API_KEYS_FILE``; a caller names its key with the ``Manhattan-Key`` header.

The key's *name* is what the service keeps on a table, a webhook or a rating (never the
secret), so a secret can be rotated by giving the same name a new secret. Secrets are compared
in constant time against every key, so the time taken says nothing about which one was close.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from pathlib import Path

from manhattan.platforms.errors import PlatformError
from manhattan.settings import Settings, SettingsError

#: The request header that carries a platform's key (HTTP headers are case-insensitive).
KEY_HEADER = "manhattan-key"
#: A key's name: what tables, webhooks and ratings are kept under.
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
MIN_SECRET_CHARS = 16


class ApiKeys:
    """The keys this service accepts: secret -> name."""

    def __init__(self, pairs: Iterable[str] = ()) -> None:
        self._by_secret: dict[bytes, str] = {}
        for number, pair in enumerate(pairs, 1):
            name, secret = _parse_pair(pair, number)
            if name in self._by_secret.values():
                raise SettingsError(f"platform key {name!r} is given twice")
            other = self._by_secret.get(secret.encode())
            if other is not None:  # a call would be the later name's, silently
                raise SettingsError(
                    f"platform keys {other!r} and {name!r} have the same secret: give each key "
                    "its own"
                )
            self._by_secret[secret.encode()] = name

    @classmethod
    def from_settings(cls, settings: Settings) -> ApiKeys:
        pairs = list(settings.api_keys)
        if settings.api_keys_file:
            path = Path(settings.api_keys_file).expanduser()
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except OSError as exc:
                raise SettingsError(f"MANHATTAN_API_KEYS_FILE={path}: {exc.strerror}") from None
            pairs += [line.strip() for line in lines if line.strip() and not line.startswith("#")]
        return cls(pairs)

    def __bool__(self) -> bool:
        return bool(self._by_secret)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self._by_secret.values())

    def name_of(self, secret: str) -> str | None:
        """The key's name, or None for an unknown secret (compared with every key)."""
        given = secret.encode("utf-8", "surrogateescape")
        found = None
        for known, name in self._by_secret.items():
            if hmac.compare_digest(given, known):
                found = name
        return found

    def caller(self, headers: Mapping[str, str]) -> str | None:
        """The calling platform's key name; None without the header (an anonymous caller).
        An unknown or empty key is ``BAD_KEY``: a platform that sent one expects its rights."""
        secret = headers.get(KEY_HEADER)
        if secret is None:
            return None
        name = self.name_of(secret.strip())
        if name is None:
            raise PlatformError("BAD_KEY", "the Manhattan-Key header names no key of this service")
        return name


def _parse_pair(pair: str, number: int) -> tuple[str, str]:
    name, sep, secret = pair.partition("=")
    name, secret = name.strip(), secret.strip()
    if not sep or not name or not set(name) <= NAME_CHARS or len(name) > 64:
        raise SettingsError(
            f"platform key {number}: expected name=secret with a name of letters, digits, '-', '_'"
            " or '.' (1-64)"
        )
    if len(secret) < MIN_SECRET_CHARS or not secret.isprintable() or " " in secret:
        raise SettingsError(
            f"platform key {name!r}: a secret is at least {MIN_SECRET_CHARS} printable characters"
            " without spaces"
        )
    return name, secret
