"""The platform methods of ``Client`` and ``AsyncClient`` (DESIGN §10): each a ``Call`` of
``_platforms`` run by the client's ``_run``, with the client's key (``Client(key=...)``)."""

from __future__ import annotations

from typing import TypeVar

from manhattan_client import _platforms as calls
from manhattan_client._calls import Call
from manhattan_client._platforms import Rating, RatingPage
from manhattan_client._tables import Table

T = TypeVar("T")


class SyncPlatformMethods:
    def _run(self, call: Call[T]) -> T:
        raise NotImplementedError

    def my_tables(self, player: str) -> list[Table]:
        """The key's tables where ``player`` holds a seat: waiting and playing first, then the
        last finished ones."""
        return self._run(calls.my_tables(player))

    def rating(self, player: str) -> Rating:
        """``player``'s rating at the key (``PlayerNotFoundError`` before a first rated game)."""
        return self._run(calls.rating(player))

    def ratings(self, *, limit: int | None = None, cursor: str | None = None) -> RatingPage:
        """A page of the key's ratings, best ordinal first; pass ``page.next`` as ``cursor``."""
        return self._run(calls.ratings(limit, cursor))


class AsyncPlatformMethods:
    async def _run(self, call: Call[T]) -> T:
        raise NotImplementedError

    async def my_tables(self, player: str) -> list[Table]:
        return await self._run(calls.my_tables(player))

    async def rating(self, player: str) -> Rating:
        return await self._run(calls.rating(player))

    async def ratings(self, *, limit: int | None = None, cursor: str | None = None) -> RatingPage:
        return await self._run(calls.ratings(limit, cursor))
