"""Platforms over GraphQL: createTable with reserved seats, autoStart and rated; myTables;
ratings; the key read from the same Manhattan-Key header; crossing keys."""

from __future__ import annotations

from typing import Any

import pytest

from tests.platforms.conftest import CLUB, RIVAL, keyed, play_through
from tests.tables.conftest import LiveServer, ok

pytestmark = pytest.mark.anyio

CREATE = """mutation($seats: [SeatInput!]) {
  createTable(seats: $seats, autoStart: true, rated: true, setup: {rounds: 1, piecesPerRound: 1}) {
    __typename
    ... on CreatedTable {
      tableId table { status seats { kind name id } } seatTokens { seat id seatToken }
    }
    ... on TableRejected { code message path }
  }
}"""
MY_TABLES = "query($p: String!) { myTables(player: $p) { tableId status seats { id } } }"
RATINGS = """query($p: String, $limit: Int) {
  ratings(player: $p, limit: $limit) { ratings { player mu sigma ordinal games } next }
}"""


async def gql(live: LiveServer, secret: str | None, query: str, **variables: Any) -> Any:
    async with keyed(live, secret) as c:
        return ok(await c.post("/graphql", json={"query": query, "variables": variables}))


async def test_a_platform_over_graphql(platform_live: LiveServer) -> None:
    live = platform_live
    seats = [{"reserved": {"id": "gq1", "name": "Ann"}}, {"reserved": {"id": "gq2", "name": "Bo"}}]
    created = (await gql(live, CLUB, CREATE, seats=seats))["data"]["createTable"]
    assert created["__typename"] == "CreatedTable", created
    assert created["table"]["status"] == "playing"
    assert [s["id"] for s in created["table"]["seats"]] == ["gq1", "gq2"]
    assert [t["id"] for t in created["seatTokens"]] == ["gq1", "gq2"]
    tid = created["tableId"]
    mine = (await gql(live, CLUB, MY_TABLES, p="gq1"))["data"]["myTables"]
    assert [(t["tableId"], t["status"]) for t in mine] == [(tid, "playing")]
    await play_through(live, tid, [t["seatToken"] for t in created["seatTokens"]])
    one = (await gql(live, CLUB, RATINGS, p="gq2"))["data"]["ratings"]
    assert one["ratings"][0]["player"] == "gq2" and one["ratings"][0]["games"] == 1
    page = (await gql(live, CLUB, RATINGS, limit=1))["data"]["ratings"]
    assert len(page["ratings"]) == 1 and page["next"] == "1"
    # another key: nothing of it
    assert (await gql(live, RIVAL, MY_TABLES, p="gq1"))["data"]["myTables"] == []
    crossed = await gql(live, RIVAL, RATINGS, p="gq1")
    assert crossed["errors"][0]["extensions"]["code"] == "PLAYER_NOT_FOUND"
    # no key: reserved seats refused with BAD_KEY, myTables too
    refused = (await gql(live, None, CREATE, seats=seats))["data"]["createTable"]
    assert refused["code"] == "BAD_KEY"
    anonymous = await gql(live, None, MY_TABLES, p="gq1")
    assert anonymous["errors"][0]["extensions"]["code"] == "BAD_KEY"
