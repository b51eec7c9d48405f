"""Every answer of the stateless REST API is what ``/openapi.json`` declares for its route and
status: real answers (JSON and msgpack) validated with jsonschema against the document the
service serves. The answers are encoded from the wire's structs (``api/rest/answers.py``), the
same classes the document's schemas come from."""

from __future__ import annotations

from typing import Any

import httpx
import jsonschema
import msgpack
import pytest

from manhattan.api.encoding import MSGPACK_TYPE

pytestmark = pytest.mark.anyio


class Conformance:
    def __init__(self, client: httpx.AsyncClient, document: dict[str, Any]) -> None:
        self.client = client
        self.document = document
        self.checked: set[tuple[str, str, int]] = set()

    async def send(self, method: str, path: str, body: Any = None, *, route: str = "") -> Any:
        """The answer to ``body`` at ``path``, in JSON and in msgpack, each checked against the
        document's schema for the route (``route``, else ``path``) and the answer's status."""
        answers = []
        for accept in ("application/json", MSGPACK_TYPE):
            reply = await self.client.request(method, path, json=body, headers={"accept": accept})
            assert reply.headers["content-type"] == accept, reply.text
            value = reply.json() if accept != MSGPACK_TYPE else msgpack.unpackb(reply.content)
            self.check(method, route or path, reply.status_code, value)
            answers.append(value)
        assert set(answers[0]) == set(answers[1])  # one shape, two encodings (tokens differ)
        return answers[0]

    def check(self, method: str, route: str, status: int, value: Any) -> None:
        operation = self.document["paths"][route][method.lower()]
        declared = operation["responses"][str(status)]
        schema = declared["content"]["application/json"]["schema"]
        resolver = {**schema, "components": self.document["components"]}
        jsonschema.Draft202012Validator(resolver).validate(value)
        self.checked.add((method, route, status))


async def test_every_stateless_answer_is_its_declared_schema(
    client: httpx.AsyncClient,
) -> None:
    document = (await client.get("/openapi.json")).json()
    api = Conformance(client, document)
    game = await api.send("POST", "/v1/games", {"players": 4, "seed": "declared"})
    ref = {"id": game["stateId"]}
    await api.send("GET", f"/v1/states/{game['stateId']}", route="/v1/states/{id}")
    await api.send("POST", "/v1/states", {"state": game["state"]})
    await api.send("POST", "/v1/legal-moves", {"state": ref})
    await api.send("POST", "/v1/legal-moves", {"state": game["state"]})
    await api.send("POST", "/v1/validate", {"state": ref, "move": "s0:2,2,1,1"})
    refusal = await api.send("POST", "/v1/validate", {"state": ref, "move": "s0:5,0,0,0"})
    assert refusal["legal"] is False and refusal["reason"]
    step = await api.send("POST", "/v1/apply", {"state": ref, "move": "s0:2,2,1,1"})
    await api.send("POST", "/v1/apply", {"state": ref, "moves": ["s0:2,2,1,1", "s1:2,2,1,1"]})
    after = {"id": step["stateId"]}
    await api.send("POST", "/v1/score", {"state": after})
    seat = await api.send("POST", "/v1/view", {"state": after, "player": 1})
    await api.send("POST", "/v1/legal-moves", {"state": {"token": seat["token"]}})
    await api.send("POST", "/v1/suggest", {"state": {"token": seat["token"]}})
    await api.send("POST", "/v1/advance", {"state": {"token": seat["token"]}, "move": "s1:2,2,1,1"})
    record = {"setup": {"players": 2, "seed": "declared"}, "moves": ["s0:1,1,1,1"]}
    await api.send("POST", "/v1/replay", record)
    await api.send("POST", "/v1/analysis", {"state": after})
    await api.send("POST", "/v1/preview", {"state": after, "move": "s1:2,2,1,1"})
    await api.send("POST", "/v1/preview", {"state": after})
    await api.send("POST", "/v1/threats", {"state": after, "player": 0})
    # Refusals are declared too: a malformed body, an unknown id, an illegal move.
    await api.send("POST", "/v1/games", {"players": 9})
    await api.send("POST", "/v1/apply", {"state": ref})
    await api.send("POST", "/v1/legal-moves", {"state": {"id": "0" * 32}})
    await api.send("POST", "/v1/apply", {"state": ref, "move": "s0:5,0,0,0"})
    assert {200, 201, 400, 404, 422} <= {status for _, _, status in api.checked}
    assert {route for _, route, _ in api.checked} >= STATELESS_ROUTES
    assert set(document["paths"]) >= STATELESS_ROUTES


STATELESS_ROUTES = frozenset(
    {
        "/v1/games",
        "/v1/states",
        "/v1/states/{id}",
        "/v1/legal-moves",
        "/v1/validate",
        "/v1/apply",
        "/v1/score",
        "/v1/view",
        "/v1/suggest",
        "/v1/advance",
        "/v1/replay",
        "/v1/analysis",
        "/v1/preview",
        "/v1/threats",
    }
)
