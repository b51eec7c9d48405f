"""Webhook URLs (DESIGN §10): what cannot go on a request line is percent-encoded (a path beyond
Latin-1, a space) or refused with its reason (control characters); IPv6 addresses that carry a
private or loopback IPv4 address (6to4, Teredo, NAT64, IPv4-mapped) are refused like it; and an
attempt that fails in any way is a failed attempt with a backoff, never a claim held for ever.
Real receivers on loopback, real SQLite files and a real Redis."""

from __future__ import annotations

import asyncio
import ipaddress
import time
from collections.abc import Iterator

import pytest

from manhattan.platforms.addresses import parse_allow, refused, request_url
from manhattan.platforms.delivery import Deliverer, DeliverySettings
from manhattan.platforms.errors import PlatformError
from manhattan.platforms.outbox import Delivery, Outbox
from tests.platforms.helpers import API_KEYS, KEY, SHORT, seat_up
from tests.platforms.receiver import Receiver
from tests.platforms.served import Served
from tests.platforms.test_outbox import Opener, now, opener

__all__ = ["opener"]  # the fixture: both stores

ALLOW = ("127.0.0.0/8",)
FAST = {"webhook_timeout": 1.0, "webhook_retry_seconds": 0.1, "webhook_lease_seconds": 3.0}
#: The receiver's path for a URL written with a euro sign and a space.
ENCODED_PATH = "/h%E2%82%AC%20x"


@pytest.fixture
def encoded_receiver() -> Iterator[Receiver]:
    found = Receiver(path=ENCODED_PATH).start()
    yield found
    found.stop()


@pytest.mark.parametrize(
    ("address", "carried"),
    [
        ("2002:7f00:1::", "127.0.0.1"),  # 6to4
        ("2002:a00:1::1", "10.0.0.1"),
        ("2002:a9fe:a9fe::", "169.254.169.254"),
        ("2001:0:4136:e378:8000:63bf:80ff:fffe", "127.0.0.1"),  # Teredo (client obfuscated)
        ("64:ff9b::7f00:1", "127.0.0.1"),  # NAT64's well-known prefix
        ("::ffff:10.1.2.3", "10.1.2.3"),  # IPv4-mapped
    ],
)
def test_ipv6_forms_of_a_private_ipv4_address_are_refused(address: str, carried: str) -> None:
    assert refused(ipaddress.ip_address(address), ())
    assert refused(ipaddress.ip_address(carried), ())
    # the allow list lets the IPv4 network through, whatever spelling reaches it (Teredo's
    # and NAT64's own prefixes are not global: refused whatever they carry)
    if address.startswith(("2002:", "::ffff:")):
        assert not refused(ipaddress.ip_address(address), parse_allow([f"{carried}/32"]))


def test_ipv6_forms_of_a_public_ipv4_address_are_not_refused() -> None:
    for address in ("2002:808:808::1", "::ffff:8.8.8.8"):
        assert not refused(ipaddress.ip_address(address), ())


def test_a_6to4_host_of_a_loopback_address_is_refused_at_creation() -> None:
    with Served(api_keys=(API_KEYS,)) as served, served.client() as c:
        for host in ("[2002:7f00:1::]", "[2002:7f00:1::]:8080", "[64:ff9b::a00:1]"):
            body = {"setup": SHORT, "webhook": {"url": f"http://{host}/hook"}}
            refusal = c.post("/v1/tables", json=body, headers=KEY)
            assert refusal.status_code == 400, (host, refusal.text)
            assert refusal.json()["code"] == "WEBHOOK_URL_REFUSED"
            assert "loopback, private" in refusal.json()["message"]


def test_request_urls_are_percent_encoded_and_the_host_ascii() -> None:
    assert request_url("http://host/€") == "http://host/%E2%82%AC"
    assert request_url("http://host/a b?x=1 2") == "http://host/a%20b?x=1%202"
    assert request_url("http://host/%41%zz") == "http://host/%41%25zz"  # an escape is kept
    assert request_url("http://例え.jp:8080/x") == "http://xn--r8jz45g.jp:8080/x"
    assert request_url("http://[::1]:81/p") == "http://[::1]:81/p"
    done = request_url('https://host/ä"<>{}|^`')
    assert done.isascii() and request_url(done) == done  # once is enough
    for url in ("http://host/a\nb", "http://host/a\tb", "http://host/\x00", "http://ho\x85st/"):
        with pytest.raises(PlatformError) as caught:
            request_url(url)
        assert caught.value.code == "WEBHOOK_URL_REFUSED"
        assert "control characters" in caught.value.message


def test_control_characters_in_a_webhook_url_are_refused_with_the_reason() -> None:
    with Served(api_keys=(API_KEYS,), webhook_allow=ALLOW) as served, served.client() as c:
        body = {"setup": SHORT, "webhook": {"url": "http://127.0.0.1:9/a\r\nb"}}
        refusal = c.post("/v1/tables", json=body, headers=KEY)
        assert refusal.status_code == 400, refusal.text
        assert refusal.json()["code"] == "WEBHOOK_URL_REFUSED"
        assert "control characters" in refusal.json()["message"]


def test_a_path_beyond_latin1_and_a_space_are_delivered_percent_encoded(
    encoded_receiver: Receiver,
) -> None:
    url = f"http://127.0.0.1:{encoded_receiver.port}/h€ x"
    with Served(api_keys=(API_KEYS,), webhook_allow=ALLOW, **FAST) as served, served.client() as c:
        seat_up(c, {"url": url, "events": ["table.started"]})
        encoded_receiver.wait_for(lambda r: len(r.delivered()) == 1, timeout=15)
    (got,) = encoded_receiver.snapshot()
    assert got.path == ENCODED_PATH and got.json["type"] == "table.started"


def _settings() -> DeliverySettings:
    return DeliverySettings(timeout=1.0, backoff_base=5.0, lease_ms=30_000, poll=0.05)


async def _claimable(outbox: Outbox, at: int) -> list[Delivery]:
    return [run[0] for run in await outbox.claim_runs(at, 1_000, 10, 1)]


@pytest.mark.anyio
async def test_any_failure_of_an_attempt_is_kept_with_a_backoff(opener: Opener) -> None:
    """A delivery whose attempt raises what no attempt expects (a secret that cannot be read:
    a stored row from elsewhere, a bug) fails with a backoff and frees its table's claim; the
    others go on."""
    outbox = opener()
    deliverer = Deliverer(outbox, parse_allow(ALLOW), _settings())
    receiver = Receiver().start()
    try:
        await outbox.put_hook("bad", b"hook")
        await outbox.put_hook("good", b"hook")
        broken = Delivery("msg_bad_1", "bad", receiver.url, "whsec_A", b"{}", key="k")
        fine = Delivery("msg_good_1", "good", receiver.url, "whsec_AAAAAAAA", b"{}", key="k")
        await outbox.enqueue_many([("bad", 1, [(1, broken)]), ("good", 1, [(1, fine)])])
        worker = asyncio.create_task(deliverer.run())
        try:
            started = time.monotonic()
            # until both outcomes are kept (an id leaves ``_sending`` when its outcome is)
            while deliverer.failures < 1 or not receiver.delivered() or deliverer._sending:
                assert time.monotonic() - started < 4, (deliverer.failures, receiver.snapshot())
                await asyncio.sleep(0.05)
        finally:
            worker.cancel()
            await deliverer.close()
        # Freed, due again after its backoff (5 s, less its jitter), the attempt counted: not
        # held by a claim that would be renewed for ever.
        assert await _claimable(outbox, now()) == []
        (again,) = await _claimable(outbox, now() + 5_500)
        assert again.id == "msg_bad_1" and again.attempts == 1 and again.key == "k"
    finally:
        receiver.stop()


@pytest.mark.anyio
async def test_a_stored_url_beyond_latin1_is_sent_percent_encoded(
    opener: Opener, encoded_receiver: Receiver
) -> None:
    """A hook stored as written (before URLs were encoded at creation) still delivers."""
    outbox = opener()
    deliverer = Deliverer(outbox, parse_allow(ALLOW), _settings())
    url = f"http://127.0.0.1:{encoded_receiver.port}/h€ x"
    await outbox.put_hook("t", b"hook")
    await outbox.enqueue("t", 1, [(1, Delivery("msg_t_1", "t", url, "whsec_AAAAAAAA", b"{}"))])
    worker = asyncio.create_task(deliverer.run())
    try:
        started = time.monotonic()
        while not encoded_receiver.delivered():
            assert time.monotonic() - started < 10, encoded_receiver.snapshot()
            await asyncio.sleep(0.05)
    finally:
        worker.cancel()
        await deliverer.close()
    assert deliverer.failures == 0
