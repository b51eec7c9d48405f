"""Manhattan rules-as-a-service: the rules engine's public API (DESIGN §3)."""

from .engine import *  # noqa: F403
from .engine import __all__ as __all__
