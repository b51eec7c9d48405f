"""Helpers to talk to an app in-process (httpx's ASGITransport), shared by the service tests."""

from __future__ import annotations

from typing import Any

import httpx
from starlette.applications import Starlette


def connect(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://service")


async def gql(client: httpx.AsyncClient, query: str, **variables: Any) -> dict[str, Any]:
    response = await client.post("/graphql", json={"query": query, "variables": variables})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body
