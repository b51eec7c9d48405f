"""Each table route of DESIGN §9 as data (a ``Call``), shared by the sync and async clients."""

from __future__ import annotations

import enum
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal
from urllib.parse import quote

from manhattan_client._base_errors import UnexpectedResponseError
from manhattan_client._calls import Call, MoveLike, move_wire
from manhattan_client._models import JSON
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

#: What a seat of ``create_table(seats=...)`` may be: ``"open"``, a bot level (``"greedy"``), or
#: the wire object (``{"bot": {"level": "ismcts", "timeMs": 200}}``, a platform's
#: ``reserved_seat(id, name)``).
SeatSpec = str | Mapping[str, Any]


class _Default(enum.Enum):
    TOKEN = 0


#: ``turn_seconds=DEFAULT`` leaves the turn timer to the service; ``None`` asks for no timer.
DEFAULT: Final = _Default.TOKEN
Default = Literal[_Default.TOKEN]


def table_path(table_id: str, tail: str = "") -> str:
    if not table_id:
        raise ValueError("a table id is not empty")
    return f"/v1/tables/{quote(table_id, safe='')}{tail}"


def bearer(token: str | None) -> dict[str, str] | None:
    return None if token is None else {"authorization": f"Bearer {token}"}


def new_move_id() -> str:
    return uuid.uuid4().hex


def seat_wire(seat: SeatSpec) -> Any:
    if isinstance(seat, str):
        return "open" if seat == "open" else {"bot": {"level": seat}}
    if isinstance(seat, Mapping):
        return dict(seat)
    raise TypeError(f"a seat is 'open', a bot level or its wire object, not {seat!r}")


def _object(answer: Any) -> JSON:
    if not isinstance(answer, dict):
        raise UnexpectedResponseError("expected a JSON object")
    return answer


def _table_in(answer: Any) -> Table:
    return Table.from_json(_object(answer).get("table"))


def create_table(
    setup: Mapping[str, Any] | None,
    seats: Sequence[SeatSpec] | None,
    public: bool | None,
    turn_seconds: int | Default | None,
    name: str | None,
    auto_start: bool | None = None,
    rated: bool | None = None,
    webhook: Mapping[str, Any] | None = None,
    remind_before: int | None = None,
) -> Call[CreatedTable]:
    body: JSON = {"setup": {k: v for k, v in (setup or {}).items() if v is not None}}
    if webhook is not None:
        body["webhook"] = dict(webhook)
    if remind_before is not None:
        body["remindBefore"] = remind_before
    if auto_start is not None:
        body["autoStart"] = auto_start
    if rated is not None:
        body["rated"] = rated
    if seats is not None:
        body["seats"] = [seat_wire(s) for s in seats]
    if public is not None:
        body["public"] = public
    if turn_seconds is not DEFAULT:
        body["turnSeconds"] = turn_seconds
    if name is not None:
        body["name"] = name
    return Call("POST", "/v1/tables", CreatedTable.from_json, body)


def list_tables() -> Call[list[Table]]:
    def read(answer: Any) -> list[Table]:
        tables = _object(answer).get("tables")
        if not isinstance(tables, list):
            raise UnexpectedResponseError("expected 'tables'")
        return [Table.from_json(t) for t in tables]

    return Call("GET", "/v1/tables", read, repeatable=True)


def join_table(table_id: str, name: str, seat: int | None) -> Call[Seating]:
    body: JSON = {"name": name}
    if seat is not None:
        body["seat"] = seat
    return Call("POST", table_path(table_id, "/join"), Seating.from_json, body)


def start_table(table_id: str, token: str | None) -> Call[Table]:
    return Call("POST", table_path(table_id, "/start"), _table_in, {}, headers=bearer(token))


def table_move(
    table_id: str, move: MoveLike, version: int, move_id: str, token: str
) -> Call[TableMove]:
    body = {"move": move_wire(move), "version": version, "moveId": move_id}
    return Call(
        "POST",
        table_path(table_id, "/moves"),
        TableMove.from_json,
        body,
        headers=bearer(token),
        repeatable=True,
    )


def leave_table(table_id: str, token: str) -> Call[Table]:
    return Call("POST", table_path(table_id, "/leave"), _table_in, {}, headers=bearer(token))


def chat(table_id: str, text: str, token: str) -> Call[ChatSent]:
    path = table_path(table_id, "/chat")
    return Call("POST", path, ChatSent.from_json, {"text": text}, headers=bearer(token))


def rematch(table_id: str, token: str) -> Call[Rematch]:
    path = table_path(table_id, "/rematch")
    return Call("POST", path, Rematch.from_json, {}, headers=bearer(token))


def get_table(table_id: str, token: str | None) -> Call[Table]:
    return Call(
        "GET", table_path(table_id), Table.from_json, headers=bearer(token), repeatable=True
    )


def table_record(table_id: str) -> Call[TableRecord]:
    return Call("GET", table_path(table_id, "/record"), TableRecord.from_json, repeatable=True)


def table_history(table_id: str, token: str | None) -> Call[TableHistory]:
    return Call(
        "GET",
        table_path(table_id, "/history"),
        TableHistory.from_json,
        headers=bearer(token),
        repeatable=True,
    )


def table_ticket(table_id: str, token: str) -> Call[Ticket]:
    return Call(
        "POST", table_path(table_id, "/ticket"), Ticket.from_json, {}, headers=bearer(token)
    )
