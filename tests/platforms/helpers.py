"""What the webhook tests share: a platform key, a short game played through seat tokens,
and the checks every delivery must pass (signature, order, duplicates)."""

from __future__ import annotations

import time
from typing import Any

import httpx
from standardwebhooks.webhooks import Webhook

from tests.platforms.receiver import Received

KEY_NAME, KEY_SECRET = "club", "club-secret-0123456789"
KEY = {"manhattan-key": KEY_SECRET}
API_KEYS = f"{KEY_NAME}={KEY_SECRET}"
#: Two people, one short round: a few moves, then over.
SHORT = {"players": 2, "rounds": 1, "piecesPerRound": 2}


def ok(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, f"{response.status_code}: {response.text[:500]}"
    body: dict[str, Any] = response.json()
    return body


def seat_up(
    client: httpx.Client, webhook: dict[str, Any], **extra: Any
) -> tuple[str, str, list[str]]:
    """A keyed table for two people with ``webhook``, both joined and started:
    (tableId, webhookSecret, seat tokens)."""
    body = {"setup": SHORT, "seats": ["open", "open"], "webhook": webhook, **extra}
    created = ok(client.post("/v1/tables", json=body, headers=KEY), 201)
    tid = created["tableId"]
    tokens = [
        ok(client.post(f"/v1/tables/{tid}/join", json={"name": f"p{i}"}))["seatToken"]
        for i in range(2)
    ]
    host = {"authorization": f"Bearer {created['hostToken']}"}
    ok(client.post(f"/v1/tables/{tid}/start", headers=host))
    return tid, created["webhookSecret"], tokens


def play_one(client: httpx.Client, tid: str, tokens: list[str], timings: list[float]) -> bool:
    """One move by whoever is to move (timed); False once the game is over."""
    auth = {"authorization": f"Bearer {tokens[0]}"}
    table = ok(client.get(f"/v1/tables/{tid}", headers=auth))
    if table["status"] == "over":
        return False
    token = tokens[table["toMove"]]
    auth = {"authorization": f"Bearer {token}"}
    table = ok(client.get(f"/v1/tables/{tid}", headers=auth))
    body = {"move": table["moves"][0], "version": table["version"]}
    started = time.monotonic()
    response = client.post(f"/v1/tables/{tid}/moves", json=body, headers=auth)
    timings.append(time.monotonic() - started)
    assert response.status_code in (200, 409), response.text
    return True


def check_deliveries(received: list[Received], secret: str) -> list[Received]:
    """Every request verifies, a webhook-id always carries the same body, and the deliveries
    answered 2xx came in version order: the first successful one of each id, in order."""
    verifier = Webhook(secret)
    bodies: dict[str, bytes] = {}
    for item in received:
        if item.path != "/hook":
            continue
        verifier.verify(item.body, item.headers)  # raises on a bad signature
        assert bodies.setdefault(item.id, item.body) == item.body, "one id, two bodies"
    first: list[Received] = []
    seen: set[str] = set()
    for item in received:
        if item.path == "/hook" and item.answer == "ok" and item.done and item.id not in seen:
            seen.add(item.id)
            first.append(item)
    versions = [(r.json["data"]["version"], _rank(r.json["type"])) for r in first]
    assert versions == sorted(versions), f"out of order: {versions}"
    return first


def _rank(kind: str) -> int:
    return ["table.started", "table.timeout", "table.left", "table.turn", "table.over"].index(kind)
