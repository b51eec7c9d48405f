"""Numbers outside a body are ASCII decimal everywhere (``wire/numbers.py``): every query and
header parameter of the OpenAPI document, sent spellings that Python's ``isdigit`` or ``int``
would take ("²", "٣", "１", " 1", "+1", "1_0") and other hostile ones, is answered without a 5xx
and with a code of the catalogue; the parameters that are numbers refuse them. GraphQL's
arguments that carry numbers as strings do the same."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from manhattan.wire.codes import HTTP_STATUS
from manhattan.wire.numbers import ascii_decimal
from tests.platforms.conftest import CLUB, key_pairs
from tests.tables.conftest import LiveServer, ok

pytestmark = pytest.mark.anyio

OPENAPI = json.loads((Path(__file__).parents[2] / "schema" / "openapi.json").read_text())
#: Spellings of numbers a parser must not take for one (or take for another), and the edges.
HOSTILE = [
    "²",
    "٣",
    "１",
    "1_0",
    " 1",
    "1 ",
    "+1",
    "-1",
    "1e3",
    "0x10",
    "1.5",
    "",
    "9" * 40,
    "\u0663",
]
#: Credentials, not numbers: sent right so the request reaches the parameter under test.
SKIPPED_HEADERS = {"authorization", "manhattan-key"}
#: Query strings that carry a number although the document types them as strings.
NUMBER_STRINGS = {("/v1/ratings", "cursor")}


def parameters() -> list[tuple[str, str, str, dict[str, Any]]]:
    """(path, where, name, schema) of every GET's query and header parameters."""
    found = []
    for path, operations in OPENAPI["paths"].items():
        for method, operation in operations.items():
            if method != "get":
                continue
            for parameter in operation.get("parameters", []):
                where, name = parameter["in"], parameter["name"]
                if where == "query" or (where == "header" and name.lower() not in SKIPPED_HEADERS):
                    found.append((path, where, name, parameter.get("schema", {})))
    return found


PARAMETERS = parameters()


@pytest.fixture
async def live() -> AsyncIterator[LiveServer]:
    async with LiveServer(api_keys=key_pairs()) as server:
        yield server


def test_the_document_has_the_number_parameters() -> None:
    names = {(path, name) for path, _, name, _ in PARAMETERS}
    assert {("/v1/ratings", "limit"), ("/v1/ratings", "cursor"), ("/v1/tables", "limit")} <= names
    assert ("/v1/tables/{id}/events", "Last-Event-ID") in names


def test_ascii_decimal_takes_ascii_digits_only() -> None:
    assert [ascii_decimal(t) for t in ("0", "12", "007")] == [0, 12, 7]
    assert [ascii_decimal(t) for t in HOSTILE] == [None] * len(HOSTILE)
    assert ascii_decimal("12345", digits=4) is None


async def test_every_parameter_refuses_what_is_not_an_ascii_number(live: LiveServer) -> None:
    async with live.client() as c:
        created = ok(await c.post("/v1/tables", json={"seats": ["open", "open"]}), 201)
    faults: list[tuple[str, str, str, int, bytes]] = []
    async with httpx.AsyncClient(base_url=live.url, timeout=10) as client:
        for path, where, name, schema in PARAMETERS:
            url = path.replace("{id}", created["tableId"])
            is_number = schema.get("type") == "integer" or (path, name) in NUMBER_STRINGS
            # a header's outer spaces are not its value (HTTP strips them)
            values = HOSTILE if where == "query" else [v for v in HOSTILE if v == v.strip()]
            for value in values:
                status, body = await _get(client, url, where, name, value)
                refused = status == 400 or not is_number or value.strip() == ""
                known = status == 200 or json.loads(body)["code"] in HTTP_STATUS
                if status >= 500 or not known or not refused:
                    faults.append((path, name, value, status, body[:200]))
    assert faults == []


async def _get(
    client: httpx.AsyncClient, url: str, where: str, name: str, value: str
) -> tuple[int, bytes]:
    """The status and (unless 200: a stream may stay open) the body of one GET."""
    headers: dict[str, Any] = {"manhattan-key": CLUB}
    params: dict[str, str] = {}
    if where == "query":
        params[name] = value
    else:
        headers[name] = value.encode()
    async with client.stream("GET", url, params=params, headers=headers) as response:
        status = response.status_code
        return status, b"" if status == 200 else await response.aread()


async def test_graphql_number_strings_refuse_what_is_not_an_ascii_number(
    live: LiveServer,
) -> None:
    queries = {
        "ratings": "query($c: String) { ratings(cursor: $c) { next } }",
        "lobby": "query($c: String) { lobby(after: $c) { next } }",
    }
    async with live.client() as c:
        c.headers["manhattan-key"] = CLUB
        for field, query in queries.items():
            for value in ("²", "٣", "1_0", "+1"):
                cursor = value if field == "ratings" else f"{value}.{'0' * 32}"
                answer = ok(
                    await c.post("/graphql", json={"query": query, "variables": {"c": cursor}})
                )
                codes = [e["extensions"]["code"] for e in answer["errors"]]
                assert codes == ["INVALID_REQUEST"], (field, value, answer)


@pytest.mark.parametrize("length", [b"\xb2", "٣".encode(), b"+1", b"1_0"])
async def test_a_content_length_that_is_no_ascii_number_is_no_500(length: bytes) -> None:
    """Read before any route: a length Python's ``isdigit`` would take but ``int`` refuses."""
    async with LiveServer() as live:
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"{}", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": "/v1/games",
            "raw_path": b"/v1/games",
            "query_string": b"",
            "root_path": "",
            "headers": [(b"content-type", b"application/json"), (b"content-length", length)],
            "client": ("127.0.0.1", 5000),
            "server": ("127.0.0.1", 80),
            "state": {},
        }
        await live.app(scope, receive, send)
    assert sent[0]["status"] < 500, sent
