"""Sealed state tokens (DESIGN §7): the full state, encrypted and authenticated with AES-GCM.

A token is ``<kid>.<game>.<base64url(nonce || ciphertext || tag)>``. The key id names the key
that sealed it, so keys can rotate: the service seals with its current key and opens tokens sealed
with the current key or any accepted old key. ``game`` is the game id (32 hex characters, derived
from the game's setup: see ``manhattan.games.refs.game_id``); it is readable so that a
platform can route or check a token without the service, and it is bound with the key id and the
format version as AES-GCM associated data, so a token cannot be relabelled under another key or
presented as another game's. The plaintext is msgpack ``[2, player, state]`` followed by zero
bytes of padding, where ``state`` is the canonical msgpack of the state and ``player`` is the seat
the token was issued to (or None for a full-information token). The padding lets the caller make
a token's length independent of hidden parts of variable size (the seed).

Any failure to open a token (unknown key id, tampering, truncation, oversize, wrong shape, another
game than the one expected) is ``BadTokenError``: a client error with code ``BAD_TOKEN``, never a
server error.
"""

from __future__ import annotations

import base64
import binascii
import logging
import os
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import msgpack
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

TOKEN_VERSION = 2
NONCE_BYTES = 12
TAG_BYTES = 16
_KID = re.compile(r"[A-Za-z0-9_-]{1,32}")
_GAME = re.compile(r"[0-9a-f]{32}")
_AAD_PREFIX = b"manhattan/token@2|"
_MAX_PADDING = 4096
_MAX_PLAINTEXT = 1 << 20


class BadTokenError(ValueError):
    """A token the service cannot open: code ``BAD_TOKEN``."""

    code = "BAD_TOKEN"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SealingKeyError(ValueError):
    """A configured key that cannot be used (wrong format or length)."""


@dataclass(frozen=True, slots=True)
class SealingKey:
    kid: str
    key: bytes

    @classmethod
    def parse(cls, text: str) -> SealingKey:
        """Read ``kid:base64url-key``; the key is 16, 24 or 32 bytes (AES-128/192/256)."""
        kid, sep, encoded = text.partition(":")
        if not sep or not _KID.fullmatch(kid):
            raise SealingKeyError(
                "a token key is 'kid:base64url-key' with a kid of 1-32 letters, digits, - or _"
            )
        try:
            key = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
        except (binascii.Error, ValueError):
            raise SealingKeyError(f"token key {kid!r} is not base64url") from None
        if len(key) not in (16, 24, 32):
            raise SealingKeyError(f"token key {kid!r} must be 16, 24 or 32 bytes, not {len(key)}")
        return cls(kid, key)

    @classmethod
    def generate(cls, kid: str | None = None) -> SealingKey:
        return cls(kid or f"e{secrets.token_hex(4)}", AESGCM.generate_key(bit_length=256))

    def to_text(self) -> str:
        return f"{self.kid}:{base64.urlsafe_b64encode(self.key).decode().rstrip('=')}"


@dataclass(frozen=True, slots=True)
class Unsealed:
    """What a token carries: the canonical msgpack of a state, the player it was issued to and
    the game it belongs to."""

    state: bytes
    player: int | None
    kid: str
    game: str


class Sealer:
    """Seals with ``current``; opens tokens of ``current`` or any of ``accepted``."""

    def __init__(
        self,
        current: SealingKey,
        accepted: Iterable[SealingKey] = (),
        *,
        ephemeral: bool = False,
        max_token_chars: int = 16_384,
    ) -> None:
        self.current = current
        self.ephemeral = ephemeral
        self.max_token_chars = max_token_chars
        self._ciphers = {current.kid: AESGCM(current.key)}
        for key in accepted:
            self._ciphers.setdefault(key.kid, AESGCM(key.key))

    @classmethod
    def from_settings(
        cls,
        token_key: str,
        old_keys: Iterable[str],
        *,
        max_token_chars: int = 16_384,
        key_dir: Path | None = None,
    ) -> Sealer:
        """The configured keys; without ``token_key``, the key kept in ``key_dir`` (made there
        on first use), or an ephemeral key when there is no ``key_dir`` either."""
        accepted = [_parse_setting("MANHATTAN_TOKEN_OLD_KEYS", text) for text in old_keys]
        if token_key:
            current = _parse_setting("MANHATTAN_TOKEN_KEY", token_key)
            sealer = cls(current, accepted, max_token_chars=max_token_chars)
            if key_dir is not None:
                _warn_of_a_dropped_kept_key(key_dir / KEY_FILE, sealer.key_ids)
            return sealer
        if key_dir is not None:
            return cls(stored_key(key_dir), accepted, max_token_chars=max_token_chars)
        return cls(SealingKey.generate(), accepted, ephemeral=True, max_token_chars=max_token_chars)

    @property
    def key_ids(self) -> list[str]:
        return list(self._ciphers)

    def seal(self, state: bytes, player: int | None, game: str, *, padding: int = 0) -> str:
        """A token for ``state`` (canonical msgpack) of ``game``, issued to ``player`` (None: a
        full-information token); ``padding`` zero bytes are added before encryption."""
        if not _GAME.fullmatch(game):
            raise ValueError("a game id is 32 lowercase hex characters")
        if not 0 <= padding <= _MAX_PADDING:
            raise ValueError(f"padding is 0 to {_MAX_PADDING} bytes")
        content: bytes = msgpack.packb([TOKEN_VERSION, player, state], use_bin_type=True)
        nonce = os.urandom(NONCE_BYTES)
        kid = self.current.kid
        sealed = self._ciphers[kid].encrypt(
            nonce, content + bytes(padding), _associated_data(kid, game)
        )
        return f"{kid}.{game}.{base64.urlsafe_b64encode(nonce + sealed).decode().rstrip('=')}"

    def unseal(self, token: object, *, game: str | None = None) -> Unsealed:
        """Open a token; with ``game``, a token of any other game is refused too."""
        if not isinstance(token, str) or not token:
            raise BadTokenError("a token is a non-empty string this service issued")
        if len(token) > self.max_token_chars:
            raise BadTokenError(f"a token is at most {self.max_token_chars} characters")
        parts = token.split(".")
        if len(parts) != 3 or not _GAME.fullmatch(parts[1]):
            raise BadTokenError("the token is not one this service issued (kid.game.sealed)")
        kid, token_game, body = parts
        cipher = self._ciphers.get(kid)
        if cipher is None:
            raise BadTokenError("the token was not sealed with a key this service accepts")
        if game is not None and token_game != game:
            raise BadTokenError(f"the token belongs to game {token_game}, not {game}")
        try:
            raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        except (binascii.Error, ValueError):
            raise BadTokenError("the token is not valid base64url") from None
        # The decoder skips foreign characters and ignores spare bits: only the one canonical
        # spelling of the sealed bytes is a token, so any altered character is refused.
        if base64.urlsafe_b64encode(raw).decode().rstrip("=") != body:
            raise BadTokenError("the token is not valid base64url")
        if len(raw) < NONCE_BYTES + TAG_BYTES:
            raise BadTokenError("the token is truncated")
        try:
            plaintext = cipher.decrypt(
                raw[:NONCE_BYTES], raw[NONCE_BYTES:], _associated_data(kid, token_game)
            )
        except InvalidTag:
            raise BadTokenError("the token was altered or truncated") from None
        return _read_plaintext(plaintext, kid, token_game)


def _associated_data(kid: str, game: str) -> bytes:
    return _AAD_PREFIX + kid.encode() + b"|" + game.encode()


def _read_plaintext(plaintext: bytes, kid: str, game: str) -> Unsealed:
    # Authenticated, so only a bug or a future format reaches the errors below; still a
    # BAD_TOKEN rather than a 500.
    try:
        content = _unpack(plaintext)
    except (ValueError, TypeError, msgpack.FormatError, msgpack.StackError):
        raise BadTokenError("the token's content cannot be read") from None
    if (
        not isinstance(content, list)
        or len(content) != 3
        or content[0] != TOKEN_VERSION
        or not (content[1] is None or (type(content[1]) is int and 0 <= content[1] < 4))
        or not isinstance(content[2], bytes)
    ):
        raise BadTokenError("the token's content has an unknown format")
    return Unsealed(state=content[2], player=content[1], kid=kid, game=game)


def _unpack(plaintext: bytes) -> object:
    """The msgpack object at the start of ``plaintext``; what follows must be zero padding."""
    try:
        return msgpack.unpackb(
            plaintext,
            raw=False,
            strict_map_key=True,
            max_bin_len=_MAX_PLAINTEXT,
            max_str_len=0,
            max_array_len=3,
            max_map_len=0,
            max_ext_len=0,
        )
    except msgpack.ExtraData as extra:
        if any(extra.extra):
            raise ValueError("non-zero padding") from None
        return extra.unpacked


__all__ = [
    "KEY_FILE",
    "BadTokenError",
    "Sealer",
    "SealingKey",
    "SealingKeyError",
    "Unsealed",
    "stored_key",
]


#: The token key's file in a data directory: ``kid:base64url-key`` and a newline, mode 0600.
KEY_FILE = "token-key"


def stored_key(directory: Path) -> SealingKey:
    """The key kept in ``directory``, generated and written there (mode 0600) the first time.
    The file appears whole or not at all (written aside, then linked into place), so two
    processes starting at once agree on one key."""
    path = directory / KEY_FILE
    if not path.exists():
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        spare = directory / f".{KEY_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
        descriptor = os.open(spare, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(SealingKey.generate(f"d{secrets.token_hex(4)}").to_text() + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(spare, path)
        except FileExistsError:
            pass  # another process was first: its key it is
        finally:
            spare.unlink()
    if path.stat().st_mode & 0o077:
        raise SealingKeyError(f"{path} is readable by others: chmod 600 it (it seals tokens)")
    try:
        return SealingKey.parse(path.read_text().strip())
    except SealingKeyError as exc:
        raise SealingKeyError(f"{path}: {exc}") from None


def _warn_of_a_dropped_kept_key(path: Path, accepted: list[str]) -> None:
    """A key in the environment over a kept key it does not accept: every token the kept key
    sealed (the seats of the directory's tables) is refused from now on. That is right after a
    leak and a silent loss otherwise, so it is said once at the start, never refused."""
    try:
        kept = SealingKey.parse(path.read_text().strip())
    except (OSError, SealingKeyError):
        return  # no kept key (or one the start checks refuse on their own)
    if kept.kid not in accepted:
        logging.getLogger("manhattan.sealing").warning(
            "MANHATTAN_TOKEN_KEY replaces the key kept in %s (id %s) and "
            "MANHATTAN_TOKEN_OLD_KEYS does not name it: the tokens it sealed (the seats of the "
            "tables stored beside it) are refused; give that file's contents in "
            "MANHATTAN_TOKEN_OLD_KEYS to keep them",
            path,
            kept.kid,
        )


def _parse_setting(variable: str, text: str) -> SealingKey:
    """A key from a setting; the error names the variable (never the key itself)."""
    try:
        return SealingKey.parse(text)
    except SealingKeyError as exc:
        raise SealingKeyError(f"{variable}: {exc}") from None
