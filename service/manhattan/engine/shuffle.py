"""The deterministic shuffle: every random choice of the game comes from the state's seed.

It is language-neutral so that other implementations can reproduce a game exactly:
a byte stream ``SHA-256(seed || ":" || label || ":" || counter)`` for counter = 0, 1, ...
(counter as decimal ASCII) is read as big-endian 32-bit words; ``below(n)`` takes words until one
is under the largest multiple of n that fits in 2**32 and returns it modulo n (no bias); the
shuffle is Fisher-Yates from the last index down: for i = len-1 .. 1, swap i with below(i + 1).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

_WORD = 1 << 32


class SeedStream:
    """Uniform integers drawn from ``seed`` and a ``label`` naming the purpose of the draw."""

    __slots__ = ("_words",)

    def __init__(self, seed: str, label: str) -> None:
        self._words = self._generate(f"{seed}:{label}:".encode())

    @staticmethod
    def _generate(prefix: bytes) -> Iterator[int]:
        counter = 0
        while True:
            block = hashlib.sha256(prefix + str(counter).encode()).digest()
            for i in range(0, 32, 4):
                yield int.from_bytes(block[i : i + 4], "big")
            counter += 1

    def below(self, n: int) -> int:
        limit = _WORD - _WORD % n
        for word in self._words:
            if word < limit:
                return word % n
        raise AssertionError("unreachable: the stream is infinite")


def shuffled(items: Sequence[T], seed: str, label: str) -> list[T]:
    """A new list with ``items`` in the order the seed gives for ``label``."""
    out = list(items)
    stream = SeedStream(seed, label)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out
