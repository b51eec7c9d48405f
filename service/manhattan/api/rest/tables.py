"""REST for tables (DESIGN §9): thin handlers over ``manhattan.tables``; bodies are the
shapes of ``manhattan.wire.tables``, read by the tables themselves (so GraphQL's arguments are read
the same way) or, for a seat's questions, here.

A seat's credential is ``Authorization: Bearer <seatToken>`` (or the host token); it is opened
and checked before the table is read. Every table failure is a ``TableError`` that the app's
error handler renders with its code (``api/errors.py``).
"""

from __future__ import annotations

from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

import manhattan
from manhattan import wire
from manhattan.api.caller_limits import check_quota
from manhattan.api.encoding import read_body, render
from manhattan.api.rest import answers
from manhattan.api.rest.answers import answer
from manhattan.api.rest.platforms import get_my_tables, platforms
from manhattan.games import MoveReader, Validation
from manhattan.live.runtime import TableRuntime
from manhattan.tables import Bearer, TableError
from manhattan.tables.records import check_table_id
from manhattan.wire.numbers import ascii_decimal


def runtime(request: HTTPConnection) -> TableRuntime:
    found: TableRuntime = request.app.state.tables
    return found


def bearer_token(request: HTTPConnection) -> str | None:
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise TableError("BAD_SEAT", "send the seat token as 'Authorization: Bearer <token>'")
    return token.strip()


def bearer(request: HTTPConnection, table_id: str) -> Bearer | None:
    return runtime(request).tables.authenticate(table_id, bearer_token(request))


def table_id(request: HTTPConnection) -> str:
    """The route's table id, checked before anything else of the request (its body, its
    bearer): a malformed id is the one answer ``INVALID_REQUEST`` on every route."""
    found: str = request.path_params["id"]
    return check_table_id(found)


async def post_tables(request: Request) -> Response:
    """A table; with a platform key, reserved seats, ``rated`` and ``autoStart`` (§10)."""
    found = platforms(request)
    key = found.caller(request.headers)
    await check_quota(request, "creates")  # a key is exempt
    created = await found.create(key, await read_body(request))
    return render(request, created, status=201)


async def get_tables(request: Request) -> Response:
    """The lobby's page (the query's numbers and booleans as JSON would have them), or with
    ``player`` and a key, that platform player's tables (§10)."""
    if "player" in request.query_params:
        return await get_my_tables(request)
    query: dict[str, object] = {}
    for key, value in request.query_params.items():
        number = ascii_decimal(value) if key in ("limit", "players") else None
        if number is not None:
            query[key] = number
        elif key == "open" and value in ("true", "false"):
            query[key] = value == "true"
        else:
            query[key] = value
    return render(request, await runtime(request).tables.page(query))


async def get_table(request: Request) -> Response:
    tid = table_id(request)
    found = platforms(request)
    key = found.caller(request.headers)
    return render(request, await found.get(key, tid, bearer(request, tid)))


async def post_join(request: Request) -> Response:
    await check_quota(request, "joins")
    tid = table_id(request)
    who = bearer(request, tid)  # a reserved seat's token takes its seat back
    return render(request, await runtime(request).tables.join(tid, await read_body(request), who))


async def post_start(request: Request) -> Response:
    """The host token, a seat token or the platform key that created the table."""
    tid = table_id(request)
    who = bearer(request, tid)
    found = platforms(request)
    key = found.caller(request.headers)
    return render(request, await found.start(key, tid, who))


async def post_move(request: Request) -> Response:
    tid = table_id(request)
    who = bearer(request, tid)
    answer = await runtime(request).tables.move_request(tid, who, await read_body(request))
    return render(request, answer)


async def post_seat_preview(request: Request) -> Response:
    """What the seat's move would change, from its own view (as ``/v1/preview`` on a player's
    token); without ``move``, every legal move's."""
    tid = table_id(request)
    who = bearer(request, tid)
    body = wire.read(await read_body(request), wire.SeatPreviewRequest)
    view = await runtime(request).tables.seat_view(tid, who)
    if body.move is None:
        return answer(request, answers.preview(manhattan.preview_all(view)))
    return answer(request, answers.preview(manhattan.preview(view, MoveReader.one(body.move))))


async def post_seat_validate(request: Request) -> Response:
    """Whether the seat's move is legal, and if not why (as ``/v1/validate``), from its view."""
    tid = table_id(request)
    who = bearer(request, tid)
    body = wire.read(await read_body(request), wire.SeatMoveRequest)
    view = await runtime(request).tables.seat_view(tid, who)
    verdict = manhattan.explain(view, MoveReader.one(body.move))
    return answer(request, answers.validation(Validation.of(verdict)))


async def post_leave(request: Request) -> Response:
    """A seat token; with the table's platform key too, a reserved seat is freed."""
    tid = table_id(request)
    who = bearer(request, tid)
    found = platforms(request)
    return render(request, await found.leave(found.caller(request.headers), tid, who))


async def post_chat(request: Request) -> Response:
    await check_quota(request, "chat")
    tid = table_id(request)
    who = bearer(request, tid)
    answer = await runtime(request).tables.chat_request(tid, who, await read_body(request))
    return render(request, answer)


async def post_rematch(request: Request) -> Response:
    tid = table_id(request)
    who = bearer(request, tid)
    answer = await platforms(request).rematch(tid, who)
    return render(request, answer)


async def post_ticket(request: Request) -> Response:
    await check_quota(request, "tickets")
    tid = table_id(request)
    who = bearer(request, tid)
    return render(request, await runtime(request).tables.ticket(tid, who))


async def get_history(request: Request) -> Response:
    """What happened at the table so far, as the bearer (or anyone, or the key) may see it."""
    tid = table_id(request)
    key = platforms(request).caller(request.headers)
    return render(
        request, await runtime(request).tables.history(tid, bearer(request, tid), key=key)
    )


async def get_record(request: Request) -> Response:
    tid = table_id(request)
    return render(request, await runtime(request).tables.record(tid))


def table_routes() -> list[BaseRoute]:
    """The tables' routes but the event stream's (``stream.stream_routes``), which reads
    requests with this module's helpers."""
    post = ["POST"]
    return [
        Route("/v1/tables", post_tables, methods=post),
        Route("/v1/tables", get_tables, methods=["GET"]),
        Route("/v1/tables/{id}", get_table, methods=["GET"]),
        Route("/v1/tables/{id}/join", post_join, methods=post),
        Route("/v1/tables/{id}/start", post_start, methods=post),
        Route("/v1/tables/{id}/moves", post_move, methods=post),
        Route("/v1/tables/{id}/preview", post_seat_preview, methods=post),
        Route("/v1/tables/{id}/validate", post_seat_validate, methods=post),
        Route("/v1/tables/{id}/leave", post_leave, methods=post),
        Route("/v1/tables/{id}/chat", post_chat, methods=post),
        Route("/v1/tables/{id}/rematch", post_rematch, methods=post),
        Route("/v1/tables/{id}/ticket", post_ticket, methods=post),
        Route("/v1/tables/{id}/history", get_history, methods=["GET"]),
        Route("/v1/tables/{id}/record", get_record, methods=["GET"]),
    ]


#: The routes a table's people call most (a move, the table), served by a ``Shortcut``
#: (``shortcut.py``) besides their routes above: (method, what follows ``/v1/tables/{id}/``).
BUSIEST_ROUTES = {("POST", "moves"): post_move, ("GET", ""): get_table}
