"""Reproducible suggestions are cached by state id, player, level, budget and seed;
a suggestion with a time budget is not reproducible and never cached."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.anyio


async def suggest(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/v1/suggest", json=body)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def suggest_hits(client: httpx.AsyncClient) -> float:
    text = (await client.get("/metrics")).text
    found = re.search(r'manhattan_cache_total\{kind="suggest",outcome="hit"\} (\S+)', text)
    return float(found.group(1)) if found else 0.0


async def test_a_repeated_suggestion_comes_from_the_cache(
    client: httpx.AsyncClient, mid_json: dict[str, Any]
) -> None:
    request = {"state": mid_json, "bot": "ismcts", "iterations": 30, "seed": 5}
    first = await suggest(client, **request)
    before = await suggest_hits(client)
    again = await suggest(client, **request)
    assert await suggest_hits(client) == before + 1
    assert again == first  # the very answer, stats included


async def test_another_seed_budget_or_level_is_another_entry(
    client: httpx.AsyncClient, mid_json: dict[str, Any]
) -> None:
    await suggest(client, state=mid_json, bot="ismcts", iterations=30, seed=5)
    before = await suggest_hits(client)
    for other in (
        {"bot": "ismcts", "iterations": 30, "seed": 6},
        {"bot": "ismcts", "iterations": 31, "seed": 5},
        {"bot": "greedy", "seed": 5},
    ):
        await suggest(client, state=mid_json, **other)
    assert await suggest_hits(client) == before


async def test_a_time_budget_is_never_cached(
    client: httpx.AsyncClient, mid_json: dict[str, Any]
) -> None:
    request = {"state": mid_json, "bot": "ismcts", "timeMs": 20, "seed": 5}
    await suggest(client, **request)
    before = await suggest_hits(client)
    await suggest(client, **request)
    assert await suggest_hits(client) == before
