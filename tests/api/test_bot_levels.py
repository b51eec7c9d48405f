"""``GET /v1/bots`` and GraphQL ``bots``: every level with its budget and its ladder rating, as
the shipped ladder file says (``manhattan.bots.ladder``)."""

from __future__ import annotations

import httpx
import msgpack
import pytest

from manhattan.bots import LEVELS, BotChoice
from manhattan.bots.ladder import ladder, ladder_level
from manhattan.bots.registry import BOTS
from tests.service_client import gql

pytestmark = pytest.mark.anyio


async def test_rest_lists_every_level_with_budget_rating_and_description(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/v1/bots")
    assert response.status_code == 200
    body = response.json()
    assert sorted(b["level"] for b in body["bots"]) == sorted(LEVELS)
    for entry in body["bots"]:
        assert set(entry) == {
            "level",
            "description",
            "iterations",
            "mu",
            "sigma",
            "ordinal",
            "games",
        }
        assert entry["iterations"] == BOTS[entry["level"]].default_iterations
        assert entry["description"] == BOTS[entry["level"]].description
        assert entry["ordinal"] == pytest.approx(entry["mu"] - 3 * entry["sigma"], abs=0.002)
        assert entry["games"] > 0
    ordinals = [b["ordinal"] for b in body["bots"]]
    assert ordinals == sorted(ordinals, reverse=True)
    assert body["command"].startswith("manhattan bench ladder ")
    assert body["games"] >= 1 and body["seed"]


async def test_rest_answers_msgpack_too(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/bots", headers={"Accept": "application/msgpack"})
    assert (
        msgpack.unpackb(response.content)["bots"] == (await client.get("/v1/bots")).json()["bots"]
    )


async def test_graphql_bots_are_the_rest_list(client: httpx.AsyncClient) -> None:
    body = await gql(client, "{ bots { level description iterations mu sigma ordinal games } }")
    rest = (await client.get("/v1/bots")).json()["bots"]
    assert body["data"]["bots"] == rest


def test_the_shipped_ladder_orders_the_levels_as_they_were_built_to_play() -> None:
    """The shipped ladder lists the levels by rating, in the order of strength they were built
    for: the expert, the ismcts search, greedy, the beginner, random."""
    bots = ladder().bots
    order = [b.level for b in bots]
    assert order == ["expert", "ismcts", "greedy", "beginner", "random"]
    assert order == [b.level for b in sorted(bots, key=lambda b: -b.ordinal)]


def test_a_choice_is_rated_only_at_the_ladder_budget() -> None:
    expert = ladder_level(BotChoice.of("expert"))
    assert expert is not None and expert.level == "expert"
    assert ladder_level(BotChoice.of("expert", iterations=expert.iterations)) == expert
    assert ladder_level(BotChoice.of("expert", iterations=7)) is None
    assert ladder_level(BotChoice.of("expert", time_ms=500)) is None
    assert ladder_level(BotChoice.of("greedy")) is not None
