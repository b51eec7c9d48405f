"""Platforms (DESIGN §10): keys, reserved seats, webhooks and ratings for a site that seats its
own players. Everything here is an addition to tables: without a key, §9 works as it is."""

from manhattan.platforms.errors import PLATFORM_CODES, PlatformError
from manhattan.platforms.keys import KEY_HEADER, ApiKeys
from manhattan.platforms.service import Platforms

__all__ = ["KEY_HEADER", "PLATFORM_CODES", "ApiKeys", "PlatformError", "Platforms"]
