"""Limits answer with their codes: 413 PAYLOAD_TOO_LARGE, QUERY_TOO_COMPLEX, 429 RATE_LIMITED."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from manhattan.server.rate_limit import RateLimiter
from tests.conftest import MakeApp
from tests.service_client import connect, gql

pytestmark = pytest.mark.anyio


async def test_a_large_body_is_413_from_content_length(make_app: MakeApp) -> None:
    async with connect(make_app(max_body_bytes=1000)) as client:
        response = await client.post("/v1/legal-moves", content=b"x" * 2000)
        assert (response.status_code, response.json()["code"]) == (413, "PAYLOAD_TOO_LARGE")
        graphql = await client.post("/graphql", content=b"x" * 2000)
        assert graphql.status_code == 413


async def test_a_large_streamed_body_is_413_too(make_app: MakeApp) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(10):
            yield b"x" * 300

    async with connect(make_app(max_body_bytes=1000)) as client:
        response = await client.post("/v1/legal-moves", content=chunks())
        assert (response.status_code, response.json()["code"]) == (413, "PAYLOAD_TOO_LARGE")


async def test_deep_queries_are_too_complex(make_app: MakeApp) -> None:
    async with connect(make_app(graphql_max_depth=2)) as client:
        deep = '{ score(state: {id: "x"}) { history { scores { total } } } }'
        body = await gql(client, deep)
        assert body["errors"][0]["extensions"]["code"] == "QUERY_TOO_COMPLEX"


async def test_many_aliases_are_too_complex(client: httpx.AsyncClient) -> None:
    query = "{ " + " ".join(f"a{i}: rules" for i in range(40)) + " }"
    body = await gql(client, query)
    assert body["errors"][0]["extensions"]["code"] == "QUERY_TOO_COMPLEX"


async def test_long_documents_are_too_complex(client: httpx.AsyncClient) -> None:
    body = await gql(client, "{ " + "rules " * 5000 + "}")
    assert body["errors"][0]["extensions"]["code"] == "QUERY_TOO_COMPLEX"


async def test_the_validation_cache_hits_with_the_limits_on(make_app: MakeApp) -> None:
    app = make_app()
    cached = graphql_limits_of(app).validated_documents
    # A fragment keeps the query on the general path (graphql_compiled plans skip validation:
    # they are made only from documents this cache already validated).
    query = "{ rules ... on Query { __typename } }"
    async with connect(app) as client:
        await gql(client, query)
        before = cached.hits
        await gql(client, query)
    assert cached.hits == before + 1


def graphql_limits_of(app: Starlette) -> Any:
    """The app's ``ServiceLimits`` extension (its caches)."""
    # The HTTP route (a WebSocket route shares the path for subscriptions).
    (route,) = [
        r for r in app.routes if getattr(r, "path", None) == "/graphql" and hasattr(r, "methods")
    ]
    (extension,) = route.app.schema.extensions  # type: ignore[attr-defined]
    return extension


async def test_introspection_can_be_switched_off(make_app: MakeApp) -> None:
    query = "{ __schema { queryType { name } } }"
    async with connect(make_app()) as client:
        assert (await gql(client, query))["data"]["__schema"]["queryType"]["name"] == "Query"
    async with connect(make_app(introspection=False)) as client:
        body = await gql(client, query)
        assert body["errors"][0]["extensions"]["code"] == "INTROSPECTION_DISABLED"


async def test_rate_limit_answers_429_with_retry_after(make_app: MakeApp) -> None:
    async with connect(make_app(rate_limit=1.0, rate_burst=2)) as client:
        statuses = [(await client.get("/v1/rules")).status_code for _ in range(3)]
        assert statuses == [200, 200, 429]
        response = await client.get("/v1/rules")
        assert response.json()["code"] == "RATE_LIMITED" and response.headers["retry-after"]


def test_the_token_bucket_refills() -> None:
    now = [0.0]
    limiter = RateLimiter(2.0, 2, clock=lambda: now[0])
    assert [limiter.allow("a") for _ in range(3)][:2] == [0.0, 0.0]
    assert limiter.allow("b") == 0.0  # per client
    now[0] = 1.0
    assert limiter.allow("a") == 0.0
