"""manhattan-client as a platform (DESIGN §10) against the real service in-process: the key,
reserved seats, auto start, my tables, ratings, the platform errors; and the webhook signature
check against the ``standardwebhooks`` package's signer."""

from __future__ import annotations

import base64
import datetime
import json
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
import standardwebhooks
from manhattan_client import (
    BadKeyError,
    Client,
    PlayerNotFoundError,
    SeatReservedError,
    WebhookSignatureError,
    reserved_seat,
    sign_webhook,
    verify_webhook,
)

from tests.clients.asgi_sync import SyncASGITransport
from tests.clients.test_python_client_tables import SHORT, _play_out

CLUB = "club-secret-for-the-client-01"
RIVAL = "rival-secret-for-the-client-2"


@pytest.fixture
def platform_app() -> Any:
    from manhattan.server.app import create_app
    from manhattan.settings import Settings

    return create_app(Settings(access_log=False, api_keys=(f"club={CLUB}", f"rival={RIVAL}")))


@pytest.fixture
def club(platform_app: Any) -> Iterator[Client]:
    with Client("http://test", transport=SyncASGITransport(platform_app), key=CLUB) as c:
        yield c


def test_a_platform_seats_its_players_and_rates_them(club: Client, platform_app: Any) -> None:
    seats = [reserved_seat("u-ann", "Ann"), reserved_seat("u-bo", "Bo")]
    created = club.create_table(SHORT, seats=seats, auto_start=True, rated=True)
    assert created.table.status == "playing"
    assert [(t.seat, t.id) for t in created.seat_tokens] == [(0, "u-ann"), (1, "u-bo")]
    assert [s.id for s in created.table.seats] == ["u-ann", "u-bo"]
    assert [t.table_id for t in club.my_tables("u-ann")] == [created.table_id]
    with pytest.raises(PlayerNotFoundError):
        club.rating("u-ann")
    _play_out(club, created.table_id, [t.seat_token for t in created.seat_tokens])
    ann = club.rating("u-ann")
    assert ann.games == 1 and ann.ordinal == pytest.approx(ann.mu - 3 * ann.sigma)
    page = club.ratings(limit=1)
    assert len(page.ratings) == 1 and page.next == "1"
    rest = club.ratings(limit=1, cursor=page.next)
    assert rest.next is None
    assert {page.ratings[0].player, rest.ratings[0].player} == {"u-ann", "u-bo"}
    with Client("http://test", transport=SyncASGITransport(platform_app), key=RIVAL) as rival:
        assert rival.my_tables("u-ann") == []
        with pytest.raises(PlayerNotFoundError):
            rival.rating("u-ann")
    with Client("http://test", transport=SyncASGITransport(platform_app)) as anonymous:
        with pytest.raises(BadKeyError):
            anonymous.ratings()
        with pytest.raises(BadKeyError):
            anonymous.create_table(SHORT, seats=seats)


def test_a_reserved_seat_is_refused_to_a_join_and_the_key_starts(club: Client) -> None:
    created = club.create_table(SHORT, seats=[reserved_seat("u-1", "One"), "open"])
    with pytest.raises(SeatReservedError):
        club.join_table(created.table_id, "eve", seat=0)
    club.join_table(created.table_id, "eve")
    started = club.start_table(created.table_id)  # no token: the key that created it
    assert started.status == "playing"


def _secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def test_webhook_signatures_match_the_standard_webhooks_signer() -> None:
    secret = _secret()
    signer = standardwebhooks.Webhook(secret)
    body = json.dumps({"type": "table.turn", "timestamp": "x", "data": {"tableId": "t"}})
    now = datetime.datetime.now(tz=datetime.UTC)
    stamp = int(now.timestamp())
    signature = signer.sign("msg_1", now, body)
    assert sign_webhook(secret, "msg_1", stamp, body) == signature
    headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": str(stamp),
        "webhook-signature": signature,
    }
    verify_webhook(secret, headers, body)
    verify_webhook(secret, headers, body.encode())
    # and the package accepts what this client signs
    assert signer.verify(body, headers) == json.loads(body)
    # a rotated secret: several signatures, one matching
    rotated = {
        **headers,
        "webhook-signature": f"v1,{base64.b64encode(b'x' * 32).decode()} {signature}",
    }
    verify_webhook(secret, rotated, body)
    for bad_headers, bad_body in (
        (headers, body + " "),
        ({**headers, "webhook-id": "msg_2"}, body),
        ({**headers, "webhook-timestamp": str(stamp - 3600)}, body),
        ({k: v for k, v in headers.items() if k != "webhook-signature"}, body),
    ):
        with pytest.raises(WebhookSignatureError):
            verify_webhook(secret, bad_headers, bad_body)
    with pytest.raises(WebhookSignatureError):
        verify_webhook(_secret(), headers, body)
