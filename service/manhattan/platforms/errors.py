"""The platforms' failures (DESIGN §10), each with its stable code (``wire/codes.py``)."""

from __future__ import annotations

from manhattan.wire.codes import PLATFORM_CODES, CodedError

__all__ = ["PLATFORM_CODES", "PlatformError"]


class PlatformError(CodedError):
    """An expected failure of a platform call: ``BAD_KEY``, ``SEAT_RESERVED``,
    ``WEBHOOK_URL_REFUSED``, ``PLAYER_NOT_FOUND``."""
