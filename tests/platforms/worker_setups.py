"""What the delivery worker's tests run first in its process (``DeliveryProcess``'s ``setup``):
small and importable on their own, since a spawned process imports them by name."""

from __future__ import annotations

import atexit
import time
from pathlib import Path


def slow_exit(marker: Path, seconds: float) -> None:
    """At the worker's exit, after its loop has closed: say so in ``marker``, then linger."""

    def linger() -> None:
        marker.write_text("exiting")
        time.sleep(seconds)

    atexit.register(linger)
