"""A value that is not one of an enum's is refused with the values it may take (one
message for each mistake, on GraphQL as on REST and the CLI)."""

from __future__ import annotations

import httpx
import pytest

pytestmark = pytest.mark.anyio

SMART_BOT = "mutation { createTable(seats: [{bot: {level: %s}}]) { __typename } }"


@pytest.mark.parametrize("literal", ['"smart"', "smart"])
async def test_an_unknown_bot_level_lists_the_levels(
    client: httpx.AsyncClient, literal: str
) -> None:
    answer = (await client.post("/graphql", json={"query": SMART_BOT % literal})).json()
    (error,) = answer["errors"]
    assert error["message"].endswith("; it is one of beginner, expert, greedy, ismcts, random.")
    assert error["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"


async def test_a_variable_of_an_unknown_edition_lists_the_editions(
    client: httpx.AsyncClient,
) -> None:
    query = "query($s: GameSetup) { newGame(setup: $s) { __typename } }"
    body = {"query": query, "variables": {"s": {"edition": "deluxe"}}}
    answer = (await client.post("/graphql", json=body)).json()
    (error,) = answer["errors"]
    assert "'deluxe'" in error["message"] and "; it is one of " in error["message"]
