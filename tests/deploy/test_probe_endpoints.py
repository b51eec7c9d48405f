"""The paths the manifests probe exist in the app and answer 200, with and without a cache."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from manhattan.server.app import create_app
from manhattan.settings import Settings
from tests.deploy.deploy_files import COMPOSE_FILE, k8s_object, load_yaml_documents

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def probed_paths() -> set[str]:
    [container] = k8s_object("Deployment", "manhattan")["spec"]["template"]["spec"]["containers"]
    paths = {container[p]["httpGet"]["path"] for p in ("readinessProbe", "livenessProbe")}
    [compose] = load_yaml_documents(COMPOSE_FILE)
    test = " ".join(compose["services"]["manhattan"]["healthcheck"]["test"])
    paths |= {p for p in ("/healthz", "/readyz") if p in test}
    return paths


async def get(settings: Settings, path: str) -> httpx.Response:
    app = create_app(settings)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://pod") as client:
        return await client.get(path)


@pytest.mark.parametrize("path", sorted(probed_paths()))
async def test_probed_path_answers_on_the_embedded_cache(path: str) -> None:
    response = await get(Settings(access_log=False), path)
    assert response.status_code == 200, response.text


async def test_readiness_stays_200_when_redis_is_unreachable() -> None:
    # A Redis outage must not take every replica out of the Service: requests that carry their
    # state still succeed, so the pod stays ready and reports itself degraded.
    unreachable = Settings(access_log=False, redis_url="redis://127.0.0.1:1/0", redis_timeout=0.2)
    response = await get(unreachable, "/readyz")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    assert body["cache"]["ok"] is False
