"""``Client`` and ``AsyncClient``: the REST API (``/openapi.json``) as typed methods."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar

import httpx

from manhattan_client import _calls as calls
from manhattan_client._base_errors import TransportError, UnexpectedResponseError
from manhattan_client._calls import Call, MoveLike, StateLike
from manhattan_client._exceptions import error_from_response
from manhattan_client._models import (
    JSON,
    BotChoice,
    Move,
    Replay,
    Score,
    SealedState,
    Suggestion,
    Transition,
    Validation,
)
from manhattan_client._platform_client import AsyncPlatformMethods, SyncPlatformMethods
from manhattan_client._platforms import KEY_HEADER
from manhattan_client._retry import RETRYABLE, RetryPolicy
from manhattan_client._table_client import AsyncTableMethods, SyncTableMethods

T = TypeVar("T")

DEFAULT_URL = "http://127.0.0.1:8000"
DEFAULT_TIMEOUT = 10.0
USER_AGENT = "manhattan-client/0.1"


def _headers(given: Mapping[str, str] | None, key: str | None) -> dict[str, str]:
    """The client's headers: its user agent, a platform's key (DESIGN §10), the caller's."""
    out = {"user-agent": USER_AGENT, **(given or {})}
    if key is not None:
        out[KEY_HEADER] = key
    return out


def _request_args(call: Call[Any]) -> dict[str, Any]:
    args: dict[str, Any] = {"method": call.method, "url": call.path}
    if call.body is not None:
        args["json"] = call.body
    if call.params is not None:
        args["params"] = dict(call.params)
    if call.headers is not None:
        args["headers"] = dict(call.headers)
    return args


def _read(call: Call[T], response: httpx.Response) -> T:
    if response.status_code >= 400:
        try:
            body = response.json()
        except ValueError:
            body = None
        raise error_from_response(response.status_code, body, dict(response.headers))
    if not call.expects_json:
        return call.read(response.text)
    try:
        answer = response.json()
    except ValueError:
        raise UnexpectedResponseError(
            f"HTTP {response.status_code}: the answer is not JSON", status=response.status_code
        ) from None
    return call.read(answer)


def _setup(
    players: int | None,
    seed: str | None,
    edition: str | None,
    variants: Mapping[str, Any] | None,
    extra: Mapping[str, Any],
) -> dict[str, Any]:
    """The setup object of ``POST /v1/games``; ``extra`` takes the wire names (``firstPlayer``)."""
    setup: dict[str, Any] = {"players": players, "seed": seed, "edition": edition}
    if variants is not None:
        setup["variants"] = dict(variants)
    setup.update(extra)
    return setup


class Client(SyncTableMethods, SyncPlatformMethods):
    """A synchronous client.

    >>> with Client("http://127.0.0.1:8000") as client:          # doctest: +SKIP
    ...     game = client.new_game(players=4, seed="demo")
    ...     moves = client.legal_moves(game)
    ...     step = client.apply(game, moves[0])

    The table methods (``create_table``, ``join_table``, ``table_move``, ``table_events`` ...)
    come from ``SyncTableMethods`` (DESIGN §9); with ``key=`` (a platform's key, sent as
    ``Manhattan-Key``), ``my_tables``, ``rating`` and ``ratings`` from ``SyncPlatformMethods``
    (DESIGN §10).

    ``transport`` is any ``httpx.BaseTransport`` (``httpx.MockTransport`` in tests);
    ``http_client`` is a ready ``httpx.Client`` to use instead (Starlette's ``TestClient`` is
    one, which runs the app in-process); ``retry`` applies to connection errors only.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        transport: httpx.BaseTransport | None = None,
        http_client: httpx.Client | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        key: str | None = None,
    ) -> None:
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(
            base_url=base_url,
            transport=transport,
            timeout=timeout,
            headers=_headers(headers, key),
        )
        self.retry = retry or RetryPolicy()
        self._sleep = sleep

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def _run(self, call: Call[T]) -> T:
        delays = self.retry.delays()
        while True:
            try:
                response = self._http.request(**_request_args(call))
                break
            except httpx.TransportError as exc:
                if not (call.repeatable or isinstance(exc, RETRYABLE)):
                    raise TransportError(f"the request failed: {exc}") from exc
                delay = next(delays, None)
                if delay is None:
                    raise TransportError(f"cannot reach the service: {exc}") from exc
                self._sleep(delay)
        return _read(call, response)

    # -- operations (/openapi.json) ---------------------------------------------------------
    def rules(self) -> JSON:
        return self._run(calls.rules())

    def new_game(
        self,
        players: int | None = 4,
        *,
        seed: str | None = None,
        edition: str | None = None,
        variants: Mapping[str, Any] | None = None,
        **setup: Any,
    ) -> SealedState:
        """``POST /v1/games``; further setup fields by their wire names (``firstPlayer=1``)."""
        return self._run(calls.new_game(_setup(players, seed, edition, variants, setup)))

    def legal_moves(self, state: StateLike) -> list[Move]:
        return self._run(calls.legal_moves(state))

    def validate(self, state: StateLike, move: MoveLike) -> Validation:
        return self._run(calls.validate(state, move))

    def apply(self, state: StateLike, move: MoveLike | Sequence[MoveLike]) -> Transition:
        """One move, or a list of moves applied in order (one request)."""
        return self._run(calls.apply(state, move))

    def score(self, state: StateLike) -> Score:
        return self._run(calls.score(state))

    def view(self, state: StateLike, player: int) -> SealedState:
        """The player's view and a token issued to that player (README: trust model)."""
        return self._run(calls.view(state, player))

    def suggest(
        self,
        state: StateLike,
        player: int | None = None,
        *,
        bot: str | BotChoice | None = None,
        seed: int | None = None,
        iterations: int | None = None,
        time_ms: int | None = None,
    ) -> Suggestion:
        """A move from a bot: ``bot`` a level or a ``BotChoice`` (with its budgets)."""
        choice = calls.bot_choice(bot, seed=seed, iterations=iterations, time_ms=time_ms)
        return self._run(calls.suggest(state, player, choice))

    def replay(
        self,
        moves: Sequence[MoveLike],
        *,
        setup: Mapping[str, Any] | None = None,
        state: StateLike | None = None,
    ) -> Replay:
        return self._run(calls.replay(moves, setup, state))

    def analysis(self, state: StateLike) -> Any:
        return self._run(calls.analysis(state))

    def preview(self, state: StateLike, move: MoveLike) -> Any:
        return self._run(calls.preview(state, move))

    def preview_all(self, state: StateLike) -> list[Any]:
        """The preview of every legal move, in legal-moves order."""
        return self._run(calls.preview_all(state))

    def threats(self, state: StateLike, player: int | None = None) -> Any:
        """Per building, the chance an opponent takes it next turn, as ``player`` may know."""
        return self._run(calls.threats(state, player))

    def advance(
        self,
        state: StateLike,
        move: MoveLike | None = None,
        *,
        player: int | None = None,
        bot: str | BotChoice | None = None,
        seed: int | None = None,
        iterations: int | None = None,
        time_ms: int | None = None,
    ) -> Transition:
        """A player's turn: their ``move`` (if given), then bots play every other seat until the
        player is to move again; the answer is addressed to the player (view, events, token)."""
        choice = calls.bot_choice(bot, seed=seed, iterations=iterations, time_ms=time_ms)
        return self._run(calls.advance(state, move, player, choice))

    def store(self, state: StateLike) -> SealedState:
        return self._run(calls.store(state))

    def load(self, state_id: str) -> SealedState:
        return self._run(calls.load(state_id))

    def render_svg(self, state: StateLike, player: int | None = None) -> str:
        return self._run(calls.render_svg(state, player))

    def graphql(self, query: str, variables: Mapping[str, Any] | None = None) -> JSON:
        """A raw GraphQL request; ``errors`` become typed exceptions (extensions.code)."""
        return self._run(calls.graphql(query, variables))


class AsyncClient(AsyncTableMethods, AsyncPlatformMethods):
    """The asynchronous twin of ``Client``: the same methods, awaited.

    ``transport`` is any ``httpx.AsyncBaseTransport``: ``httpx.ASGITransport(app=app)`` runs the
    service in-process, ``httpx.MockTransport`` fakes it.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        http_client: httpx.AsyncClient | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        key: str | None = None,
    ) -> None:
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(
            base_url=base_url,
            transport=transport,
            timeout=timeout,
            headers=_headers(headers, key),
        )
        self.retry = retry or RetryPolicy()
        self._sleep = sleep

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def _run(self, call: Call[T]) -> T:
        delays = self.retry.delays()
        while True:
            try:
                response = await self._http.request(**_request_args(call))
                break
            except httpx.TransportError as exc:
                if not (call.repeatable or isinstance(exc, RETRYABLE)):
                    raise TransportError(f"the request failed: {exc}") from exc
                delay = next(delays, None)
                if delay is None:
                    raise TransportError(f"cannot reach the service: {exc}") from exc
                await self._sleep(delay)
        return _read(call, response)

    async def rules(self) -> JSON:
        return await self._run(calls.rules())

    async def new_game(
        self,
        players: int | None = 4,
        *,
        seed: str | None = None,
        edition: str | None = None,
        variants: Mapping[str, Any] | None = None,
        **setup: Any,
    ) -> SealedState:
        return await self._run(calls.new_game(_setup(players, seed, edition, variants, setup)))

    async def legal_moves(self, state: StateLike) -> list[Move]:
        return await self._run(calls.legal_moves(state))

    async def validate(self, state: StateLike, move: MoveLike) -> Validation:
        return await self._run(calls.validate(state, move))

    async def apply(self, state: StateLike, move: MoveLike | Sequence[MoveLike]) -> Transition:
        return await self._run(calls.apply(state, move))

    async def score(self, state: StateLike) -> Score:
        return await self._run(calls.score(state))

    async def view(self, state: StateLike, player: int) -> SealedState:
        return await self._run(calls.view(state, player))

    async def suggest(
        self,
        state: StateLike,
        player: int | None = None,
        *,
        bot: str | BotChoice | None = None,
        seed: int | None = None,
        iterations: int | None = None,
        time_ms: int | None = None,
    ) -> Suggestion:
        """A move from a bot: ``bot`` a level or a ``BotChoice`` (with its budgets)."""
        choice = calls.bot_choice(bot, seed=seed, iterations=iterations, time_ms=time_ms)
        return await self._run(calls.suggest(state, player, choice))

    async def replay(
        self,
        moves: Sequence[MoveLike],
        *,
        setup: Mapping[str, Any] | None = None,
        state: StateLike | None = None,
    ) -> Replay:
        return await self._run(calls.replay(moves, setup, state))

    async def analysis(self, state: StateLike) -> Any:
        return await self._run(calls.analysis(state))

    async def preview(self, state: StateLike, move: MoveLike) -> Any:
        return await self._run(calls.preview(state, move))

    async def preview_all(self, state: StateLike) -> list[Any]:
        """The preview of every legal move, in legal-moves order."""
        return await self._run(calls.preview_all(state))

    async def threats(self, state: StateLike, player: int | None = None) -> Any:
        """Per building, the chance an opponent takes it next turn, as ``player`` may know."""
        return await self._run(calls.threats(state, player))

    async def advance(
        self,
        state: StateLike,
        move: MoveLike | None = None,
        *,
        player: int | None = None,
        bot: str | BotChoice | None = None,
        seed: int | None = None,
        iterations: int | None = None,
        time_ms: int | None = None,
    ) -> Transition:
        """A player's turn: their ``move`` (if given), then bots play every other seat until the
        player is to move again; the answer is addressed to the player (view, events, token)."""
        choice = calls.bot_choice(bot, seed=seed, iterations=iterations, time_ms=time_ms)
        return await self._run(calls.advance(state, move, player, choice))

    async def store(self, state: StateLike) -> SealedState:
        return await self._run(calls.store(state))

    async def load(self, state_id: str) -> SealedState:
        return await self._run(calls.load(state_id))

    async def render_svg(self, state: StateLike, player: int | None = None) -> str:
        return await self._run(calls.render_svg(state, player))

    async def graphql(self, query: str, variables: Mapping[str, Any] | None = None) -> JSON:
        return await self._run(calls.graphql(query, variables))
