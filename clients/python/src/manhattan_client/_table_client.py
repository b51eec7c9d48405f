"""The table methods of ``Client`` and ``AsyncClient`` (DESIGN §9), kept apart from the pure
operations: each is a ``Call`` from ``_table_calls`` run by the client's ``_run``.

A seat's credential is its token (``Seating.seat_token``; the host's ``CreatedTable.host_token``
for ``start_table``), passed as ``token=`` and sent as ``Authorization: Bearer``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

import httpx

from manhattan_client import _table_calls as calls
from manhattan_client._calls import Call, MoveLike
from manhattan_client._events import (
    DEFAULT_IDLE_TIMEOUT,
    AsyncTableEvents,
    SyncTableEvents,
    _Stream,
)
from manhattan_client._retry import RetryPolicy
from manhattan_client._socket import TableSocket, socket_headers, socket_url
from manhattan_client._table_calls import DEFAULT, Default, SeatSpec
from manhattan_client._tables import (
    ChatSent,
    CreatedTable,
    Rematch,
    Seating,
    Table,
    TableHistory,
    TableMove,
    TableRecord,
    Ticket,
)

T = TypeVar("T")

#: Reconnects of an event stream: more patient than a request, since a stream lives for a game.
STREAM_RETRY = RetryPolicy(attempts=8, backoff=0.25, max_backoff=5.0)


class SyncTableMethods:
    _http: httpx.Client
    _sleep: Callable[[float], None]

    def _run(self, call: Call[T]) -> T:
        raise NotImplementedError

    def create_table(
        self,
        setup: Mapping[str, Any] | None = None,
        *,
        seats: Sequence[SeatSpec] | None = None,
        public: bool | None = None,
        turn_seconds: int | Default | None = DEFAULT,
        name: str | None = None,
        auto_start: bool | None = None,
        rated: bool | None = None,
        webhook: Mapping[str, Any] | None = None,
        remind_before: int | None = None,
    ) -> CreatedTable:
        """``POST /v1/tables``. ``setup`` is as for ``new_game`` (wire names; the service draws the
        seed); ``seats`` are ``"open"``, bot levels (``"greedy"``) or wire objects. With a
        platform key (``Client(key=...)``): ``reserved_seat(id, name)`` seats (their tokens in
        ``seat_tokens``), ``auto_start`` and ``rated``."""
        call = calls.create_table(
            setup, seats, public, turn_seconds, name, auto_start, rated, webhook, remind_before
        )
        return self._run(call)

    def list_tables(self) -> list[Table]:
        """The public tables waiting for players."""
        return self._run(calls.list_tables())

    def join_table(self, table_id: str, name: str, *, seat: int | None = None) -> Seating:
        return self._run(calls.join_table(table_id, name, seat))

    def start_table(self, table_id: str, *, token: str | None = None) -> Table:
        """Start the game with the seats filled so far (a seated player's or the host's token;
        without one, the platform key that created the table)."""
        return self._run(calls.start_table(table_id, token))

    def table_move(
        self,
        table_id: str,
        move: MoveLike,
        version: int,
        *,
        token: str,
        move_id: str | None = None,
    ) -> TableMove:
        """Play ``move`` against table ``version``. The request carries a ``moveId`` (a fresh one
        unless given) and is sent again, with the same id, after any transport failure: the
        service answers a repeat as the first time and never applies a move twice."""
        move_id = move_id or calls.new_move_id()
        return self._run(calls.table_move(table_id, move, version, move_id, token))

    def leave_table(self, table_id: str, *, token: str) -> Table:
        """Give up the seat: before the start it opens, after it a bot plays it to the end; the
        token is revoked either way. The answer is the table as anyone sees it."""
        return self._run(calls.leave_table(table_id, token))

    def chat(self, table_id: str, text: str, *, token: str) -> ChatSent:
        return self._run(calls.chat(table_id, text, token))

    def rematch(self, table_id: str, *, token: str) -> Rematch:
        """A new table for the same people (after the game is over)."""
        return self._run(calls.rematch(table_id, token))

    def get_table(self, table_id: str, *, token: str | None = None) -> Table:
        """The table as a seat (with its token) or anyone else (the public view) sees it."""
        return self._run(calls.get_table(table_id, token))

    def table_record(self, table_id: str) -> TableRecord:
        return self._run(calls.table_record(table_id))

    def table_history(self, table_id: str, *, token: str | None = None) -> TableHistory:
        """What happened at the table so far, as the seat of ``token`` (or anyone) may see it:
        what a client opening the table mid-game shows before its stream goes on."""
        return self._run(calls.table_history(table_id, token))

    def table_ticket(self, table_id: str, *, token: str) -> Ticket:
        return self._run(calls.table_ticket(table_id, token))

    def table_events(
        self,
        table_id: str,
        *,
        token: str | None = None,
        last_event_id: str | int | None = None,
        until_over: bool = True,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        retry: RetryPolicy | None = None,
    ) -> SyncTableEvents:
        """The table's live events, for the seat of ``token`` or (without one) a spectator of a
        public table. ``last_event_id`` resumes after that version."""
        stream = _Stream(
            table_id,
            last_event_id=None if last_event_id is None else str(last_event_id),
            retry=retry or STREAM_RETRY,
            until_over=until_over,
        )

        def ticket() -> str:
            assert token is not None
            return self.table_ticket(table_id, token=token).ticket

        return SyncTableEvents(
            self._http, stream, ticket if token is not None else None, idle_timeout, self._sleep
        )


class AsyncTableMethods:
    _http: httpx.AsyncClient
    _sleep: Callable[[float], Awaitable[None]]

    async def _run(self, call: Call[T]) -> T:
        raise NotImplementedError

    async def create_table(
        self,
        setup: Mapping[str, Any] | None = None,
        *,
        seats: Sequence[SeatSpec] | None = None,
        public: bool | None = None,
        turn_seconds: int | Default | None = DEFAULT,
        name: str | None = None,
        auto_start: bool | None = None,
        rated: bool | None = None,
        webhook: Mapping[str, Any] | None = None,
        remind_before: int | None = None,
    ) -> CreatedTable:
        call = calls.create_table(
            setup, seats, public, turn_seconds, name, auto_start, rated, webhook, remind_before
        )
        return await self._run(call)

    async def list_tables(self) -> list[Table]:
        return await self._run(calls.list_tables())

    async def join_table(self, table_id: str, name: str, *, seat: int | None = None) -> Seating:
        return await self._run(calls.join_table(table_id, name, seat))

    async def start_table(self, table_id: str, *, token: str | None = None) -> Table:
        return await self._run(calls.start_table(table_id, token))

    async def table_move(
        self,
        table_id: str,
        move: MoveLike,
        version: int,
        *,
        token: str,
        move_id: str | None = None,
    ) -> TableMove:
        """As ``Client.table_move``: retried with the same ``moveId`` after transport failures."""
        move_id = move_id or calls.new_move_id()
        return await self._run(calls.table_move(table_id, move, version, move_id, token))

    async def leave_table(self, table_id: str, *, token: str) -> Table:
        return await self._run(calls.leave_table(table_id, token))

    async def chat(self, table_id: str, text: str, *, token: str) -> ChatSent:
        return await self._run(calls.chat(table_id, text, token))

    async def rematch(self, table_id: str, *, token: str) -> Rematch:
        return await self._run(calls.rematch(table_id, token))

    async def get_table(self, table_id: str, *, token: str | None = None) -> Table:
        return await self._run(calls.get_table(table_id, token))

    async def table_record(self, table_id: str) -> TableRecord:
        return await self._run(calls.table_record(table_id))

    async def table_history(self, table_id: str, *, token: str | None = None) -> TableHistory:
        return await self._run(calls.table_history(table_id, token))

    async def table_ticket(self, table_id: str, *, token: str) -> Ticket:
        return await self._run(calls.table_ticket(table_id, token))

    def table_events(
        self,
        table_id: str,
        *,
        token: str | None = None,
        last_event_id: str | int | None = None,
        until_over: bool = True,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        retry: RetryPolicy | None = None,
    ) -> AsyncTableEvents:
        """``async for event in client.table_events(...)``; see ``Client.table_events``."""
        stream = _Stream(
            table_id,
            last_event_id=None if last_event_id is None else str(last_event_id),
            retry=retry or STREAM_RETRY,
            until_over=until_over,
        )

        async def ticket() -> str:
            assert token is not None
            return (await self.table_ticket(table_id, token=token)).ticket

        return AsyncTableEvents(
            self._http, stream, ticket if token is not None else None, idle_timeout, self._sleep
        )

    def table_socket(
        self,
        table_id: str,
        *,
        token: str | None = None,
        last_event_id: str | int | None = None,
        open_timeout: float = 10.0,
    ) -> TableSocket:
        """``async with client.table_socket(table_id, token=...) as socket:`` the table's
        WebSocket (``/v1/tables/{id}/socket``): its events and the seat's moves and chat on one
        connection (``TableSocket``); without a token, a spectator of a public table. It goes
        to the client's base URL (``ws://``/``wss://``), never through a custom ``transport``.
        Needs ``manhattan-client[socket]`` (the ``websockets`` library)."""
        resume = None if last_event_id is None else str(last_event_id)
        return TableSocket(
            socket_url(self._http.base_url, table_id, resume),
            socket_headers(self._http.headers, token),
            last_event_id=resume,
            open_timeout=open_timeout,
        )
