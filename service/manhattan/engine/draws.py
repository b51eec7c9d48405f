"""Random draws on a ``random.Random`` that draw exactly what its own methods draw (the same
values from the same bits, so a seeded game is the same game), without the interpreted layers of
``random.py`` around ``getrandbits``: compiled with the kernel, they cost a few calls into C.
They follow CPython 3.11's ``_randbelow_with_getrandbits`` and ``shuffle``; a property test
holds them to the running Python's methods.
"""

from __future__ import annotations

import random
from typing import TypeVar

T = TypeVar("T")


def below(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)`` for ``n`` >= 1."""
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def shuffle(rng: random.Random, items: list[T]) -> None:
    """``rng.shuffle(items)``."""
    for i in range(len(items) - 1, 0, -1):
        j = below(rng, i + 1)
        items[i], items[j] = items[j], items[i]
