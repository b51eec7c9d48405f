"""One answer per mistake: an id that cannot be one (a table's, a state's, a game's) is 400
``INVALID_REQUEST`` on every route and field that takes one, REST and GraphQL alike, before
anything else of the request is looked at; an id of the right form that names nothing is the
404 of its kind (``TABLE_NOT_FOUND``, ``STATE_NOT_FOUND``).

The routes are the service's own OpenAPI document's (every path with ``{id}``, every body with
a ``state``, every ``id`` parameter) and the fields its GraphQL schema's (every ``id: ID!`` and
``state: StateRef!`` argument), so a new one is held to the same answer."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from graphql import (
    GraphQLArgument,
    GraphQLField,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLUnionType,
    get_named_type,
)
from websockets.asyncio.client import connect

from manhattan.api.graphql.schema import build_schema
from tests.tables.conftest import LiveServer

pytestmark = pytest.mark.anyio

#: Not ids: a word, upper case, one digit short or long, a non-ASCII digit, a letter past f.
MALFORMED = ("nope", "A" * 32, "0" * 31, "0" * 33, "٠" * 32, "0" * 31 + "g")
UNKNOWN = "0" * 32
#: What a body needs besides its state, well formed.
REQUIRED = {"move": {"notation": "b0n0f1"}, "moves": [], "player": 0}


def rest_requests(document: dict[str, Any], bad: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, URL, JSON body) of each operation that takes an id, with ``bad`` for it."""
    found = []
    for path, item in document["paths"].items():
        for method, operation in item.items():
            query = {p["name"] for p in operation.get("parameters", ()) if p["in"] == "query"}
            content = operation.get("requestBody", {}).get("content", {})
            schema = content.get("application/json", {}).get("schema", {})
            name = schema.get("$ref", "").rsplit("/", 1)[-1]
            shape = document["components"]["schemas"].get(name, {})
            if "{id}" in path:
                found.append((method, path.replace("{id}", bad), {}))
            elif "state" in shape.get("properties", {}):
                # The body is whole but for its state's id (one mistake at a time).
                wanted = {*shape.get("required", ()), *({"move"} & set(shape["properties"]))}
                body = {key: REQUIRED[key] for key in wanted if key != "state"}
                found.append((method, path, {"state": {"id": bad}, **body}))
            elif "id" in query:
                found.append((method, f"{path}?id={bad}", {}))
    return found


async def test_every_rest_route_answers_a_malformed_id_alike(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    asked = set()
    for bad in MALFORMED:
        for method, url, body in rest_requests(document, bad):
            # No bearer and an empty body: the id is what the answer is about, before them.
            answer = await client.request(method.upper(), url, json=body or None)
            assert answer.status_code == 400, (url, answer.text)
            assert answer.json()["code"] == "INVALID_REQUEST", (url, answer.text)
            assert " id is " in answer.json()["message"], (url, answer.text)
            asked.add(url.replace(bad, "{id}"))
    # The tables' routes, the states', and the stateless routes that take a state.
    expected = {"/v1/tables/{id}/history", "/v1/states/{id}", "/v1/render.svg?id={id}"}
    assert expected | {"/v1/tables/{id}/moves", "/v1/legal-moves", "/v1/advance"} <= asked


async def test_a_well_formed_unknown_id_is_not_found(client: httpx.AsyncClient) -> None:
    assert (await client.get(f"/v1/tables/{UNKNOWN}")).json()["code"] == "TABLE_NOT_FOUND"
    assert (await client.get(f"/v1/states/{UNKNOWN}")).json()["code"] == "STATE_NOT_FOUND"
    answer = await client.post("/v1/score", json={"state": {"id": UNKNOWN}})
    assert (answer.status_code, answer.json()["code"]) == (404, "STATE_NOT_FOUND")


def _value(kind: GraphQLInputType, bad: str) -> str | None:
    """A required argument's value in GraphQL syntax (None: optional, left out)."""
    if not isinstance(kind, GraphQLNonNull):
        return None
    named = get_named_type(kind).name
    if isinstance(kind.of_type, GraphQLList):
        return "[]"
    return {
        "ID": f'"{bad}"',
        "StateRef": f'{{id: "{bad}"}}',
        "MoveInput": '{notation: "b0n0f1"}',
        "String": '"x"',
        "Int": "0",
    }[named]


def _codes(field: GraphQLField) -> str:
    """A selection that reads a rejection's code, whatever the result's type."""
    result = get_named_type(field.type)
    if isinstance(result, GraphQLUnionType):
        coded = [t.name for t in result.types if t.name.endswith("Rejected")]
        return "{ __typename " + " ".join(f"... on {t} {{ code }}" for t in coded) + " }"
    if isinstance(result, GraphQLObjectType):
        return "{ __typename }"
    return ""


def graphql_documents(bad: str) -> list[tuple[str, str]]:
    """(field, document) of each query and mutation field with an id argument, asked with
    ``bad``."""
    schema = build_schema()._schema
    found = []
    roots = (("query", schema.query_type), ("mutation", schema.mutation_type))
    for operation, root in roots:
        assert root is not None
        for name, field in root.fields.items():
            args: dict[str, GraphQLArgument] = field.args
            if not ({"id", "state"} & set(args)):
                continue
            given = {arg: _value(spec.type, bad) for arg, spec in args.items()}
            text = ", ".join(f"{arg}: {value}" for arg, value in given.items() if value)
            found.append((name, f"{operation} {{ {name}({text}) {_codes(field)} }}"))
    return found


async def test_every_graphql_field_answers_a_malformed_id_alike(
    client: httpx.AsyncClient,
) -> None:
    fields = set()
    for bad in MALFORMED:
        for name, document in graphql_documents(bad):
            answer = (await client.post("/graphql", json={"query": document})).json()
            errors = answer.get("errors")
            code = errors[0]["extensions"]["code"] if errors else answer["data"][name].get("code")
            assert code == "INVALID_REQUEST", (document, answer)
            fields.add(name)
    # The tables' fields and the stateless fields that take a state, queries and mutations.
    assert {"table", "tableHistory", "joinTable", "tableMove", "legalMoves", "storeState"} <= fields


async def test_a_subscription_refuses_a_malformed_id_alike() -> None:
    async with LiveServer() as live:
        url = live.url.replace("http", "ws") + "/graphql"
        async with connect(url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
            await ws.send(json.dumps({"type": "connection_init"}))
            assert json.loads(await ws.recv())["type"] == "connection_ack"
            query = "subscription($id: ID!) { tableEvents(id: $id) { id } }"
            payload = {"query": query, "variables": {"id": "nope"}}
            await ws.send(json.dumps({"id": "s", "type": "subscribe", "payload": payload}))
            refused = json.loads(await ws.recv())
    assert refused["type"] == "error"
    assert refused["payload"][0]["extensions"]["code"] == "INVALID_REQUEST"
