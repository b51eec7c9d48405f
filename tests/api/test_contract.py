"""The names, paths and codes of DESIGN §4-5 hold in the running app (clients depend on them)."""

from __future__ import annotations

import httpx
import pytest
from graphql import GraphQLObjectType, GraphQLUnionType, get_named_type

from manhattan.api.errors import CONTRACT_CODES, HTTP_STATUS
from manhattan.api.graphql.schema import build_schema
from manhattan.api.rest.openapi import openapi_document

pytestmark = pytest.mark.anyio

QUERY_FIELDS = {
    "rules", "newGame", "legalMoves", "validateMove", "applyMove", "score", "view",
    "suggestMove", "replay", "analysis", "preview",
}  # fmt: skip
REST = {
    ("get", "/v1/rules"), ("post", "/v1/games"), ("post", "/v1/legal-moves"),
    ("post", "/v1/validate"), ("post", "/v1/apply"), ("post", "/v1/score"), ("post", "/v1/view"),
    ("post", "/v1/suggest"), ("post", "/v1/replay"), ("post", "/v1/analysis"),
    ("post", "/v1/preview"), ("post", "/v1/states"), ("get", "/v1/states/{id}"),
}  # fmt: skip
#: Additions DESIGN §4 allows: threats, board pictures, player sessions.
REST_ADDITIONS = {
    ("post", "/v1/threats"), ("get", "/v1/render.svg"), ("post", "/v1/render.svg"),
    ("post", "/v1/advance"), ("get", "/v1/bots"),
}  # fmt: skip
#: Tables (DESIGN §9, a contract section): the lobby, a table's actions, its events and record.
TABLES = {
    ("post", "/v1/tables"), ("get", "/v1/tables"), ("get", "/v1/tables/{id}"),
    ("post", "/v1/tables/{id}/join"), ("post", "/v1/tables/{id}/start"),
    ("post", "/v1/tables/{id}/moves"), ("post", "/v1/tables/{id}/leave"),
    ("post", "/v1/tables/{id}/chat"), ("post", "/v1/tables/{id}/rematch"),
    ("post", "/v1/tables/{id}/ticket"), ("get", "/v1/tables/{id}/events"),
    ("get", "/v1/tables/{id}/record"),
    # additions: a seat's what-if questions, answered from its own view; the history so far
    ("post", "/v1/tables/{id}/preview"), ("post", "/v1/tables/{id}/validate"),
    ("get", "/v1/tables/{id}/history"),
}  # fmt: skip
#: Platforms (DESIGN §10): ratings (a player's tables are ``GET /v1/tables?player=``).
PLATFORMS = {("get", "/v1/ratings")}


def graphql() -> object:
    return build_schema()._schema


def test_graphql_has_every_contract_field() -> None:
    schema = build_schema()._schema
    assert set(schema.query_type.fields) >= QUERY_FIELDS
    assert "storeState" in schema.mutation_type.fields
    for name in QUERY_FIELDS - {"rules"}:
        args = schema.query_type.fields[name].args
        if name not in ("newGame", "replay"):
            assert str(args["state"].type) == "StateRef!", name
    assert set(schema.type_map["StateRef"].fields) == {"json", "id", "token"}


def test_graphql_shapes_clients_rely_on() -> None:
    schema = build_schema()._schema
    legal = schema.query_type.fields["legalMoves"].type
    assert str(legal) == "[Move!]!"
    move = schema.type_map["Move"]
    assert isinstance(move, GraphQLObjectType)
    contract = [
        "type",
        "player",
        "card",
        "neighborhood",
        "floors",
        "color",
        "pieces",
        "block",
        "notation",
    ]
    assert set(contract) <= set(move.fields)
    apply = get_named_type(schema.query_type.fields["applyMove"].type)
    assert isinstance(apply, GraphQLUnionType)
    assert {t.name for t in apply.types} == {"Transition", "MoveRejected"}
    rejected = schema.type_map["MoveRejected"]
    assert {"code", "message"} <= set(rejected.fields)
    transition = schema.type_map["Transition"]
    assert {"state", "stateId", "token", "events"} <= set(transition.fields)
    assert {"json"} <= set(schema.type_map["GameState"].fields)


def test_openapi_lists_exactly_the_contract_routes() -> None:
    document = openapi_document()
    found = {(method, path) for path, item in document["paths"].items() for method in item}
    assert found == REST | REST_ADDITIONS | TABLES | PLATFORMS


async def test_every_contract_route_exists_in_the_app(client: httpx.AsyncClient) -> None:
    for method, path in sorted(REST | REST_ADDITIONS | TABLES | PLATFORMS):
        response = await client.request(method.upper(), path.replace("{id}", "0" * 32), json={})
        assert response.status_code not in (405, 500), (method, path)
        assert response.status_code != 404 or response.json()["code"] in (
            "STATE_NOT_FOUND",
            "TABLE_NOT_FOUND",
        )
    for path in ("/healthz", "/readyz", "/metrics", "/openapi.json"):
        assert (await client.get(path)).status_code == 200, path


def test_error_codes_and_statuses_of_design_section_5() -> None:
    assert set(CONTRACT_CODES) <= set(HTTP_STATUS)
    statuses = {HTTP_STATUS[c] for c in CONTRACT_CODES}
    assert statuses == {400, 422, 409, 404, 413, 429}
    assert HTTP_STATUS["ILLEGAL_MOVE"] == 422
    assert HTTP_STATUS["GAME_OVER"] == 409
    assert HTTP_STATUS["STATE_NOT_FOUND"] == 404
    assert HTTP_STATUS["PAYLOAD_TOO_LARGE"] == 413
    assert HTTP_STATUS["RATE_LIMITED"] == 429
    assert all(
        s < 500
        for c, s in HTTP_STATUS.items()
        if c not in ("NOT_IMPLEMENTED", "STORE_UNAVAILABLE", "BOTS_BUSY", "INTERNAL_ERROR")
    )
