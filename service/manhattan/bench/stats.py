"""Small statistics for tournaments: the Wilson score interval of a win rate."""

from __future__ import annotations

import math

Z_95 = 1.959964


def wilson_interval(wins: float, games: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 1) with no games."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denominator = 1 + z * z / games
    center = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, center - half), min(1.0, center + half)
