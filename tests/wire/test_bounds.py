"""Every bound the OpenAPI document states is the bound the service enforces.

The cases are generated from ``/openapi.json`` itself, not listed by hand: for every request
body, every field (through ``$ref``, nested objects and ``anyOf`` branches) with a numeric range,
a string length, an array length or an enum is sent at each edge the schema allows (accepted:
answered, or refused only because it is not that player's turn) and at the first value outside
(refused: a 4xx naming that field's path). The tables' bodies are covered the same way, each case
at a fresh table (seated and at the right turn where the body needs it). A bound added to
``manhattan.wire`` is tested without touching this file; a bound the document promises but the
service does not hold (or the reverse) fails here.
"""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from manhattan import wire
from manhattan.api.rest.openapi import openapi_document
from manhattan.engine.rules import EDITIONS, MONSTERS
from manhattan.games.suggestions import bot_levels
from tests.conftest import MakeApp
from tests.service_client import connect

pytestmark = pytest.mark.anyio

DOC = openapi_document()
SCHEMAS: dict[str, Any] = DOC["components"]["schemas"]
STATE = "<state>"  # replaced by a cached 4-player game's {"id": ...} when the case runs
MOVE = "<move>"  # replaced by a legal move of the seat to move at a fresh table
VERSION = "<version>"  # replaced by that table's version
#: A valid body of each request shape, the base every case changes one field of.
BASES: dict[str, Any] = {
    "Setup": {},
    "GameRecord": {"setup": {"players": 2, "seed": "bounds"}, "moves": []},
    "StateRequest": {"state": STATE},
    "MoveRequest": {"state": STATE, "move": "s0:6,0,0,0"},
    "ApplyRequest": {"state": STATE, "move": "s0:6,0,0,0"},
    "PreviewRequest": {"state": STATE},
    "PlayerRequest": {"state": STATE, "player": 0},
    "OptionalPlayerRequest": {"state": STATE},
    "SuggestRequest": {"state": STATE, "bot": "greedy"},
    "AdvanceRequest": {"state": STATE, "player": 0},
    # nested objects, when the base holds something else there (a bot given by name)
    "BotChoice": {"level": "greedy", "iterations": 10},
    "Variants": {},
    # tables
    "NewTable": {},
    "TableSetup": {},
    "JoinTable": {"name": "ann"},
    "TableMoveRequest": {"move": MOVE, "version": VERSION},
    "SeatPreviewRequest": {},
    "SeatMoveRequest": {"move": MOVE},
    "ChatRequest": {"text": "hi"},
}
#: What a value needs beside it to make a game (the engine's rules across fields), keyed by
#: the field's name (or ``Shape.field``, first): a setup of four seats has four players.
COMPANIONS: dict[str, Any] = {
    "NewTable.seats": None,  # places at a table, not board sides
    "seats": lambda v: {"players": len(v)},
    "colors": lambda v: {"players": len(v)},
    "rounds": lambda v: {"piecesPerRound": 1},
    "piecesPerRound": lambda v: {"rounds": 1},
    "monsterStart": lambda v: {"variants": {"monster": "godzilla"}},
    "firstPlayer": lambda v: {"players": 4},
    # A reminder fires before a turn's deadline, so it needs a clock longer than itself and a
    # webhook that takes table.turn.
    "remindBefore": lambda v: {
        "turnSeconds": v + 1,
        "webhook": {"url": "http://127.0.0.1:9/hook", "events": ["table.turn"]},
    },
}
#: Array fillers: an array of n items for a field with an array length bound (keyed as
#: ``COMPANIONS``).
FILLERS: dict[str, Any] = {
    "NewTable.seats": lambda n: ["open"] * n,
    "seats": lambda n: list(range(n)),
    "colors": lambda n: [[i] for i in range(n)],
    "monsterStart": lambda n: [0] * n,
    "moves": lambda n: ["s0:6,0,0,0"][:n] + [{"notation": "s1:6,0,0,0"}] * max(0, n - 1),
}


@dataclass(frozen=True)
class Case:
    path: str  # the operation's URL
    body: Any
    field: str  # the JSON path of the field under test
    value: Any
    accepted: bool

    @property
    def id(self) -> str:
        shown = repr(self.value)
        shown = shown if len(shown) < 24 else shown[:20] + "..."
        return f"{self.path} {self.field}={shown} {'ok' if self.accepted else 'refused'}"


def resolve(schema: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    name = None
    while "$ref" in schema and schema["$ref"].startswith("#/components/schemas/"):
        name = schema["$ref"].rsplit("/", 1)[1]
        schema = SCHEMAS[name]
    return name, schema


def by_field(table: dict[str, Any], owner: str | None, field: str) -> Any:
    return table.get(f"{owner}.{field}", table.get(field))


def edges(schema: dict[str, Any], field: str, owner: str | None) -> Iterator[tuple[Any, bool]]:
    """(value, allowed) at each edge of one schema (no union)."""
    if "enum" in schema:
        for member in schema["enum"]:
            yield member, True
        yield "not-a-member", False
    kind = schema.get("type")
    if kind == "integer":
        if "minimum" in schema:
            yield schema["minimum"], True
            yield schema["minimum"] - 1, False
        if "maximum" in schema:
            yield schema["maximum"], True
            yield schema["maximum"] + 1, False
    if kind == "string":
        if "minLength" in schema:
            yield "x" * schema["minLength"], True
            yield "x" * (schema["minLength"] - 1), schema["minLength"] == 0
        if "maxLength" in schema:
            yield "x" * schema["maxLength"], True
            yield "x" * (schema["maxLength"] + 1), False
    fill = by_field(FILLERS, owner, field)
    if kind == "array" and fill is not None:
        if "minItems" in schema and schema["minItems"] > 0:
            yield fill(schema["minItems"]), True
            yield fill(schema["minItems"] - 1), False
        if "maxItems" in schema:
            yield fill(schema["maxItems"]), True
            yield fill(schema["maxItems"] + 1), False


def cases_of(
    schema: dict[str, Any], base: Any, at: list[str], owner: str | None = None
) -> Iterator[tuple[list[str], str | None, Any, Any, bool]]:
    """(where, owner, body, value, accepted) for every bounded field under ``schema``; ``base``
    is the body so far, ``at`` the keys down to this schema, ``owner`` the shape holding it."""
    name, schema = resolve(schema)
    branches = schema.get("anyOf", [schema])
    for branch in branches:
        branch_name, branch = resolve(branch)
        if branch.get("type") == "object":
            here = get(base, at)
            if not isinstance(here, dict):
                base = put(base, at, copy.deepcopy(BASES.get(branch_name or name or "", {})))
            for key, sub in branch.get("properties", {}).items():
                yield from cases_of(sub, base, [*at, key], branch_name or name)
        elif at:
            for value, allowed in edges(branch, at[-1], owner):
                yield at, owner, base, value, allowed


def get(body: Any, at: list[str]) -> Any:
    for key in at:
        if not isinstance(body, dict):
            return None
        body = body.get(key)
    return body


def put(body: Any, at: list[str], value: Any) -> Any:
    if not at:
        return value
    out = dict(body) if isinstance(body, dict) else {}
    out[at[0]] = put(out.get(at[0]), at[1:], value)
    return out


def all_cases() -> list[Case]:
    out = []
    for url, item in DOC["paths"].items():
        body = item.get("post", {}).get("requestBody")
        if body is None:
            continue
        schema = body["content"]["application/json"]["schema"]
        name, _ = resolve(schema)
        assert name in BASES, f"{url}: no base body for {name}"
        for at, owner, base, value, allowed in cases_of(schema, copy.deepcopy(BASES[name]), []):
            changed = put(base, at, value)
            companion = by_field(COMPANIONS, owner, at[-1])
            if companion is not None and allowed:
                for key, extra in companion(value).items():
                    changed = put(changed, [*at[:-1], key], extra)
            out.append(Case(url, changed, "$." + ".".join(at), value, allowed))
    return out


CASES = all_cases()


def test_the_document_states_the_service_bounds() -> None:
    """The closed sets and bounds that used to drift are in the document."""
    bot = SCHEMAS["BotChoice"]["properties"]
    assert set(bot["level"]["enum"]) == set(bot_levels())
    bounds = {
        key: next(b for b in bot[key].get("anyOf", [bot[key]]) if b.get("type") == "integer")
        for key in ("seed", "iterations", "timeMs")
    }
    assert (bounds["seed"]["minimum"], bounds["seed"]["maximum"]) == (0, 2**31 - 1)
    assert (bounds["iterations"]["minimum"], bounds["iterations"]["maximum"]) == (1, 20_000)
    assert (bounds["timeMs"]["minimum"], bounds["timeMs"]["maximum"]) == (1, 2_000)
    setup = SCHEMAS["Setup"]["properties"]
    assert set(setup["edition"]["enum"]) == set(EDITIONS)
    monster = SCHEMAS["Variants"]["properties"]["monster"]["anyOf"][0]
    assert set(monster["enum"]) == set(MONSTERS)
    fields = {c.field for c in CASES}
    assert {"$.bot.seed", "$.bot.iterations", "$.bot.timeMs", "$.player", "$.players"} <= fields
    assert {"$.setup.seed", "$.seats", "$.variants.monster", "$.bot.level"} <= fields
    tables = {c.field for c in CASES if c.path.startswith("/v1/tables")}
    assert {"$.setup.players", "$.seats", "$.turnSeconds", "$.name", "$.seat"} <= tables
    assert {"$.version", "$.moveId", "$.text", "$.setup.variants.monster"} <= tables
    assert len(CASES) > 150


def test_budget_defaults_are_the_wire_bounds() -> None:
    from manhattan.games import GameError
    from manhattan.games.suggestions import BotBudget

    budget = BotBudget()  # no cap set: what a request may ask for anywhere
    most = wire.BotChoice.of("ismcts", iterations=wire.MAX_ITERATIONS, time_ms=wire.MAX_TIME_MS)
    assert budget.admit(most) is most
    for over in ({"iterations": wire.MAX_ITERATIONS + 1}, {"time_ms": wire.MAX_TIME_MS + 1}):
        with pytest.raises(GameError) as caught:
            budget.admit(wire.BotChoice.of("ismcts", **over))
        assert caught.value.code == "INVALID_BOT"


@pytest.fixture
async def state_id(client: httpx.AsyncClient) -> str:
    answer = await client.post("/v1/games", json={"players": 4, "seed": "bounds"})
    return str(answer.json()["stateId"])


def substitute(body: Any, values: dict[str, Any]) -> Any:
    if isinstance(body, str) and body in values:
        return values[body]
    if isinstance(body, dict):
        return {k: substitute(v, values) for k, v in body.items()}
    return body


async def at_a_table(client: httpx.AsyncClient, path: str) -> tuple[str, dict[str, str], Any]:
    """The URL, headers and placeholder values of a table case: a fresh table of four open
    seats (join), or of two people, started, with the seat to move (moves, questions, chat)."""
    if "{id}" not in path:
        return path, {}, {}
    people = 0 if path.endswith("/join") else 2
    created = (await client.post("/v1/tables", json={"seats": ["open"] * (people or 4)})).json()
    tid = created["tableId"]
    tokens = [
        (await client.post(f"/v1/tables/{tid}/join", json={"name": f"p{i}"})).json()["seatToken"]
        for i in range(people)
    ]
    if not people:
        return path.replace("{id}", tid), {}, {}
    host = {"authorization": f"Bearer {created['hostToken']}"}
    table = (await client.post(f"/v1/tables/{tid}/start", headers=host)).json()["table"]
    seat = {"authorization": f"Bearer {tokens[table['toMove']]}"}
    table = (await client.get(f"/v1/tables/{tid}", headers=seat)).json()
    values = {MOVE: table["moves"][0], VERSION: table["version"]}
    return path.replace("{id}", tid), seat, values


#: Refusals for the table's reasons, not the body's: a version that is not the table's (and a
#: webhook URL of so many x's, refused for being no http(s) URL, not for its length).
GAME_REASONS = frozenset({"NOT_YOUR_TURN", "STALE_VERSION", "WEBHOOK_URL_REFUSED"})
#: The cases call as a platform (DESIGN §10), whose tables have the widest bounds the document
#: states (turns of 14 days, a webhook).
PLATFORM = {"manhattan-key": "bounds-platform-secret-0123"}


@pytest.fixture
async def client(make_app: MakeApp) -> AsyncIterator[httpx.AsyncClient]:
    app = make_app(api_keys=("bounds=bounds-platform-secret-0123",), webhook_allow=("127.0.0.0/8",))
    async with connect(app) as c:
        c.headers.update(PLATFORM)
        yield c


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_each_edge_is_where_the_document_puts_it(
    client: httpx.AsyncClient, state_id: str, case: Case
) -> None:
    url, headers, values = await at_a_table(client, case.path)
    body = substitute(case.body, {STATE: {"id": state_id}, **values})
    answer = await client.post(url, json=body, headers=headers)
    assert answer.status_code < 500, answer.text
    error = answer.json() if answer.status_code >= 400 else {}
    refused_here = answer.status_code >= 400 and error.get("path") == case.field
    if case.accepted:  # answered, or refused for the game's reasons (not the caller's turn)
        assert answer.status_code < 300 or error["code"] in GAME_REASONS, (body, error)
    else:
        assert refused_here, (body, answer.status_code, error)
