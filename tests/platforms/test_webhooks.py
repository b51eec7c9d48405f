"""Webhooks (DESIGN §10) against a real receiver, the service in process: who may ask for one,
which addresses are refused, what a delivery carries, redirects, long turns and reminders."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from standardwebhooks.webhooks import Webhook

from manhattan.platforms import signing
from tests.platforms.helpers import API_KEYS, KEY, SHORT, check_deliveries, ok, play_one, seat_up
from tests.platforms.receiver import Receiver
from tests.platforms.served import Served

ALLOW = ("127.0.0.0/8",)
FAST = {"webhook_timeout": 1.0, "webhook_retry_seconds": 0.1, "webhook_lease_seconds": 3.0}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver().start()
    yield found
    found.stop()


def test_a_signature_verifies_with_the_standard_webhooks_library() -> None:
    secret = signing.new_secret()
    assert secret.startswith("whsec_") and len(signing.secret_bytes(secret)) >= 24
    body = b'{"type":"table.turn"}'
    now = int(time.time())
    headers = signing.headers(secret, "msg_1", now, body)
    assert Webhook(secret).verify(body, headers) == {"type": "table.turn"}
    headers["webhook-signature"] = signing.sign(signing.new_secret(), "msg_1", now, body)
    with pytest.raises(Exception, match=r"[Ss]ignature"):
        Webhook(secret).verify(body, headers)


def test_a_webhook_needs_a_key_and_a_public_address(receiver: Receiver) -> None:
    body = {"setup": SHORT, "webhook": {"url": receiver.url}}
    with Served(api_keys=(API_KEYS,)) as served, served.client() as c:
        no_key = c.post("/v1/tables", json=body)
        assert no_key.status_code == 401 and no_key.json()["code"] == "BAD_KEY"
        bad_key = c.post("/v1/tables", json=body, headers={"manhattan-key": "x" * 20})
        assert bad_key.status_code == 401
        for url in (
            receiver.url,
            "http://10.1.2.3/hook",
            "http://[::1]:9/x",
            "http://169.254.169.254/latest",
            "ftp://example.org/",
            "http://localhost/",
        ):
            refused = c.post("/v1/tables", json={**body, "webhook": {"url": url}}, headers=KEY)
            assert refused.status_code == 400, (url, refused.text)
            assert refused.json()["code"] == "WEBHOOK_URL_REFUSED"
        wrong_event = {**body, "webhook": {"url": receiver.url, "events": ["table.moved"]}}
        assert c.post("/v1/tables", json=wrong_event, headers=KEY).status_code == 400
        # without a webhook a key's table may think for 14 days; a stranger's for one
        long = {"setup": SHORT, "turnSeconds": 14 * 86_400}
        assert c.post("/v1/tables", json=long).status_code == 400
        assert ok(c.post("/v1/tables", json=long, headers=KEY), 201)["table"]
        longer = {"setup": SHORT, "turnSeconds": 14 * 86_400 + 1}
        assert c.post("/v1/tables", json=longer, headers=KEY).status_code == 400
    assert receiver.snapshot() == []


def test_a_game_announced_signed_in_order_and_without_hidden_information(
    receiver: Receiver,
) -> None:
    events = ["table.started", "table.turn", "table.left", "table.over"]
    with Served(api_keys=(API_KEYS,), webhook_allow=ALLOW, **FAST) as served, served.client() as c:
        tid, secret, tokens = seat_up(c, {"url": receiver.url, "events": events})
        timings: list[float] = []
        while play_one(c, tid, tokens, timings):
            pass
        record = ok(c.get(f"/v1/tables/{tid}/record"))
        receiver.wait_for(lambda r: any(d.json["type"] == "table.over" for d in r.delivered()))
    first = check_deliveries(receiver.snapshot(), secret)
    kinds = [d.json["type"] for d in first]
    moves = len(record["moves"])
    assert kinds == ["table.started"] + ["table.turn"] * moves + ["table.over"], kinds
    over = first[-1].json["data"]
    assert over["tableId"] == tid and over["record"] == record and over["ranking"]
    turn = first[1].json["data"]
    assert set(turn) == {"tableId", "version", "toMove", "deadline"}
    assert set(turn["toMove"]) == {"seat"}
    for item in first[:-1]:  # nothing the public view hides: no state, no seed, no hands
        text = item.body.decode()
        for hidden in ('"state"', '"seed"', '"hand"', '"cards"', "seatToken"):
            assert hidden not in text, (hidden, text)
    stamps = {d.headers["webhook-id"] for d in first}
    assert len(stamps) == len(first)


def test_a_redirect_is_not_followed_and_counts_as_a_failure(receiver: Receiver) -> None:
    receiver.plan = ["redirect", "redirect"]
    with Served(api_keys=(API_KEYS,), webhook_allow=ALLOW, **FAST) as served, served.client() as c:
        _, secret, _ = seat_up(c, {"url": receiver.url, "events": ["table.started"]})
        receiver.wait_for(lambda r: len(r.delivered()) == 1)
    hooks = [r for r in receiver.snapshot() if r.path == "/hook"]
    assert [r.answer for r in hooks] == ["redirect", "redirect", "ok"]
    assert len({r.id for r in hooks}) == 1  # one message, retried under its id
    assert not [r for r in receiver.snapshot() if r.path == "/elsewhere"]
    check_deliveries(receiver.snapshot(), secret)


def test_loopback_is_allowed_only_by_the_allow_list(receiver: Receiver) -> None:
    with (
        Served(api_keys=(API_KEYS,), webhook_allow=("10.0.0.0/8",)) as served,
        served.client() as c,
    ):
        body = {"setup": SHORT, "webhook": {"url": receiver.url}}
        assert c.post("/v1/tables", json=body, headers=KEY).json()["code"] == "WEBHOOK_URL_REFUSED"
    with (
        Served(api_keys=(API_KEYS,), webhook_allow=("127.0.0.1/32",)) as served,
        served.client() as c,
    ):
        assert ok(c.post("/v1/tables", json=body, headers=KEY), 201)["webhookSecret"]


def test_a_reminder_before_the_deadline(receiver: Receiver) -> None:
    with Served(api_keys=(API_KEYS,), webhook_allow=ALLOW, **FAST) as served, served.client() as c:
        _, secret, _ = seat_up(c, {"url": receiver.url}, turnSeconds=4, remindBefore=3)
        receiver.wait_for(lambda r: len(r.delivered()) >= 2, timeout=15)
        turn, reminder = [d.json for d in receiver.delivered()[:2]]
    assert turn["type"] == reminder["type"] == "table.turn"
    assert "reminder" not in turn["data"] and reminder["data"]["reminder"] is True
    assert reminder["data"]["deadline"] == turn["data"]["deadline"]
    assert reminder["data"]["version"] == turn["data"]["version"]
    check_deliveries(receiver.snapshot(), secret)
    ids = [d.id for d in receiver.delivered()[:2]]
    assert ids[0] != ids[1]


CREATE = """mutation($url: String!, $events: [String!]) {
  createTable(setup: {players: 2}, webhook: {url: $url, events: $events}, turnSeconds: 600000) {
    __typename
    ... on CreatedTable { tableId webhookSecret }
    ... on TableRejected { code path }
  }
}"""


def test_graphql_create_table_takes_the_same_webhook(receiver: Receiver) -> None:
    with Served(api_keys=(API_KEYS,), webhook_allow=ALLOW, **FAST) as served, served.client() as c:
        variables = {"url": receiver.url, "events": ["table.started"]}
        keyed = ok(c.post("/graphql", json={"query": CREATE, "variables": variables}, headers=KEY))
        created = keyed["data"]["createTable"]
        assert created["__typename"] == "CreatedTable", keyed
        assert created["webhookSecret"].startswith("whsec_")
        anonymous = ok(c.post("/graphql", json={"query": CREATE, "variables": variables}))
        assert anonymous["data"]["createTable"]["code"] == "BAD_KEY"
        variables["events"] = ["table.nope"]
        wrong = ok(c.post("/graphql", json={"query": CREATE, "variables": variables}, headers=KEY))
        assert wrong["data"]["createTable"]["code"] == "INVALID_REQUEST"
        variables = {"url": "http://10.0.0.1/x"}
        refused = ok(
            c.post("/graphql", json={"query": CREATE, "variables": variables}, headers=KEY)
        )
        assert refused["data"]["createTable"]["code"] == "WEBHOOK_URL_REFUSED"


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        ({"turnSeconds": 60, "remindBefore": 10}, "needs a webhook"),
        ({"webhook": "hook", "remindBefore": 10}, "needs turnSeconds"),
        ({"webhook": "hook", "turnSeconds": 60, "remindBefore": 60}, "below turnSeconds"),
        ({"webhook": "hook", "turnSeconds": 60, "remindBefore": 600}, "below turnSeconds"),
        (
            {"webhook": "over only", "turnSeconds": 60, "remindBefore": 10},
            "table.turn among the webhook's events",
        ),
    ],
)
def test_a_reminder_that_could_never_fire_is_refused_at_its_path(
    receiver: Receiver, extra: dict[str, object], reason: str
) -> None:
    hooks = {
        "hook": {"url": receiver.url},
        "over only": {"url": receiver.url, "events": ["table.over"]},
    }
    body: dict[str, object] = {"setup": SHORT, **extra}
    if "webhook" in body:
        body["webhook"] = hooks[str(body["webhook"])]
    with Served(api_keys=(API_KEYS,), webhook_allow=ALLOW) as served, served.client() as c:
        refusal = c.post("/v1/tables", json=body, headers=KEY)
        assert refusal.status_code == 400, refusal.text
        assert refusal.json()["code"] == "INVALID_REQUEST"
        assert refusal.json()["path"] == "$.remindBefore"
        assert reason in refusal.json()["message"]
        fine = {"setup": SHORT, "webhook": hooks["hook"], "turnSeconds": 60, "remindBefore": 59}
        assert ok(c.post("/v1/tables", json=fine, headers=KEY), 201)["webhookSecret"]


def test_a_rematch_keeps_the_tables_webhook_and_its_secret(receiver: Receiver) -> None:
    """The rematch of a key's table goes on delivering where the first went, signed with the
    same secret (the platform never sees the rematch's answer), also when it is asked for after
    the first table's end was delivered."""
    events = ["table.started", "table.over"]
    with Served(api_keys=(API_KEYS,), webhook_allow=ALLOW, **FAST) as served, served.client() as c:
        tid, secret, tokens = seat_up(c, {"url": receiver.url, "events": events})
        while play_one(c, tid, tokens, []):
            pass
        receiver.wait_for(lambda r: any(d.json["type"] == "table.over" for d in r.delivered()))
        rematched = [
            ok(c.post(f"/v1/tables/{tid}/rematch", headers={"authorization": f"Bearer {t}"}))
            for t in tokens
        ]
        new_id = rematched[0]["tableId"]
        assert {r["tableId"] for r in rematched} == {new_id} and new_id != tid
        seat = {"authorization": f"Bearer {rematched[0]['seatToken']}"}
        ok(c.post(f"/v1/tables/{new_id}/start", headers=seat))

        def started_again(r: Receiver) -> bool:
            return any(d.json["data"]["tableId"] == new_id for d in r.delivered())

        receiver.wait_for(started_again)
    received = [r for r in receiver.snapshot() if r.path == "/hook"]
    delivered = [  # one secret verifies them all; each table's in its own order
        item
        for table in (tid, new_id)
        for item in check_deliveries(
            [r for r in received if r.json["data"]["tableId"] == table], secret
        )
    ]
    kinds = [(d.json["type"], d.json["data"]["tableId"]) for d in delivered]
    assert kinds == [
        ("table.started", tid),
        ("table.over", tid),
        ("table.started", new_id),
    ], kinds
