"""Manhattan rules-as-a-service: the rules engine's public API (DESIGN §3)."""

from manhattan.engine import *  # noqa: F403
from manhattan.engine import __all__ as __all__
