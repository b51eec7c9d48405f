"""A stateful property test of tables and platforms: random sequences of calls, valid and
hostile, against a live service (uvicorn on a port, the embedded SQLite store in a temporary
data directory, a real webhook receiver on loopback), checked after every step.

The calls: create a table (anonymous or with a key; open, bot and reserved seats with any names
and ids; public or not; rated; autoStart; a webhook), join (REST and GraphQL) with any name,
leave (a seat token, or the key with it), start, a move, a game played out, a rematch, ratings
and a player's tables looked up with any id, cursor and limit, the lobby with any cursor.

After every step: no answer was a 5xx and every error's code is in the catalogue; every table
made is still there, its version never went down and its status never went back; no name is
served that the name rule refuses (control or format characters, two names of one table alike)
and no id that the id rule refuses; the key's ratings hold each of its ids once, with as many
games as rated tables it finished. At the end, every finished table with a webhook has had its
``table.over`` delivered, signed, one body per delivery id.

The default run has a small budget; ``-m slow`` runs a larger one.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    rule,
    run_state_machine_as_test,
)
from standardwebhooks.webhooks import Webhook

from manhattan.tables.names import check_text, name_key
from manhattan.wire.codes import HTTP_STATUS
from manhattan.wire.player_ids import is_bot_name, player_id_fault
from tests.platforms.receiver import Receiver
from tests.platforms.served import Served

CLUB_SECRET = "club-secret-stateful-000001"
RIVAL_SECRET = "rival-secret-stateful-00002"
KEYS = (f"club={CLUB_SECRET}", f"rival={RIVAL_SECRET}")
SHORT = {"rounds": 1, "piecesPerRound": 1}
STATUS_ORDER = {"waiting": 0, "playing": 1, "over": 2}

#: Names and ids an adversary would try, beside whatever hypothesis draws.
HOSTILE_NAMES = [
    "Ann",
    "ann",
    " ANN ",
    "\u0410nn",
    "Ann\u200b",
    "\u001b]0;owned\u0007\u001b[2Jmallory",
    "a\u202eb",
    "two\u2028lines",
    "   ",
    "bot 2 (random)",
    "bot 3 (greedy)",
    "名前",
    "x" * 41,
]
HOSTILE_IDS = [
    "u1",
    "u2",
    "bot:greedy",
    "bot:random",
    "a\u00a0b",
    "a\u2028b",
    "a\u202eb",
    "",
    "x" * 65,
]
HOSTILE_NUMBERS = [
    "1",
    "2",
    "50",
    "0",
    "101",
    "²",
    "٣",
    "１",
    "+1",
    "-1",
    "1_0",
    " 1",
    "",
    "9" * 30,
]

GOOD_NAMES = ["Ann", "Bo", "Cy", "Dee", "名前"]
names = st.one_of(st.sampled_from(GOOD_NAMES), st.sampled_from(HOSTILE_NAMES), st.text(max_size=8))
ids = st.one_of(
    st.sampled_from(["u1", "u2", "u3"]), st.sampled_from(HOSTILE_IDS), st.text(max_size=6)
)
numbers = st.one_of(st.sampled_from(HOSTILE_NUMBERS), st.text(max_size=4))
seat_kinds = st.sampled_from(["open", "random", "greedy", "reserved"])
#: Which table or token a rule takes: drawn the same way whatever the service answered before
#: (a game's course is random, so what exists may differ between runs of one example).
picks = st.integers(min_value=0, max_value=1 << 16)


def chosen(items: list[T], pick: int) -> T | None:
    return items[pick % len(items)] if items else None


T = TypeVar("T")


class Step(AssertionError):
    """A call answered what no call may answer."""


@dataclass
class Known:
    """What the machine knows of one table it made."""

    id: str
    key: str | None  # the owning key's secret
    host: str | None
    tokens: list[str] = field(default_factory=list)  # seat tokens handed out
    rated: bool = False
    webhook: str | None = None  # its secret
    version: int = 0
    status: str = "waiting"
    counted: bool = False  # its end was added to the expected ratings
    ids: set[str] = field(default_factory=set)  # its seats' ids, as last read


@dataclass
class Service:
    served: Served
    receiver: Receiver
    client: httpx.Client
    examples: Iterator[int] = field(default_factory=itertools.count)


def call(client: httpx.Client, method: str, url: str, **kwargs: Any) -> httpx.Response:
    """A request whose answer is checked: never a 5xx, an error's code from the catalogue."""
    response = client.request(method, url, **kwargs)
    if response.status_code >= 500:
        raise Step(f"{method} {url} {kwargs}: {response.status_code} {response.text[:300]}")
    if response.status_code >= 400 and "json" in response.headers.get("content-type", ""):
        code = response.json().get("code")
        if code not in HTTP_STATUS:
            raise Step(f"{method} {url}: {code!r} is no code of the catalogue")
    return response


def headers(key: str | None = None, token: str | None = None) -> dict[str, str]:
    out = {}
    if key is not None:
        out["manhattan-key"] = key
    if token is not None:
        out["authorization"] = f"Bearer {token}"
    return out


def name_ok(raw: str) -> bool:
    try:
        check_text(raw.strip(), "$", "a name")
    except ValueError:
        return False
    return bool(raw.strip()) and len(raw) <= 40


def machine_for(service: Service) -> type[RuleBasedStateMachine]:
    class Platform(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.c = service.client
            self.tag = f"e{next(service.examples)}-"  # this example's ids: ratings are per key
            self.tables: list[Known] = []
            self.games: dict[str, int] = {}  # the club's ids -> rated games finished
            self.reserved: set[str] = set()  # the ids of the club's tables

        # -- helpers ----------------------------------------------------------------------
        def player_id(self, raw: str) -> str:
            """A valid id made this example's own; a refused one as it is."""
            return (self.tag + raw)[:64] if player_id_fault(raw) is None else raw

        def read(self, known: Known) -> dict[str, Any]:
            answer = call(self.c, "GET", f"/v1/tables/{known.id}", headers=self.reader(known))
            if answer.status_code == 200 and not known.key and known.host is None:
                raise Step("an anonymous table without a host token is not tracked")
            if answer.status_code != 200:
                raise Step(f"table {known.id} lost: {answer.status_code} {answer.text[:200]}")
            table: dict[str, Any] = answer.json()
            return table

        @staticmethod
        def reader(known: Known) -> dict[str, str]:
            return headers(known.key) if known.key is not None else headers(token=known.host)

        def track(self, created: dict[str, Any], key: str | None, **extra: Any) -> Known:
            known = Known(created["tableId"], key, created.get("hostToken"), **extra)
            known.tokens += [given["seatToken"] for given in created.get("seatTokens", [])]
            self.tables.append(known)
            return known

        # -- rules ------------------------------------------------------------------------
        @rule(
            keyed=st.booleans(),
            kinds=st.lists(seat_kinds, min_size=2, max_size=4),
            seat_names=st.lists(names, min_size=4, max_size=4),
            seat_ids=st.lists(ids, min_size=4, max_size=4),
            public=st.sampled_from([None, True, False]),
            rated=st.booleans(),
            auto=st.booleans(),
            webhook=st.booleans(),
        )
        def create(
            self,
            keyed: bool,
            kinds: list[str],
            seat_names: list[str],
            seat_ids: list[str],
            public: bool | None,
            rated: bool,
            auto: bool,
            webhook: bool,
        ) -> None:
            seats: list[Any] = []
            for kind, name, raw in zip(kinds, seat_names, seat_ids, strict=False):
                if kind == "open":
                    seats.append("open")
                elif kind == "reserved":
                    seats.append({"reserved": {"id": self.player_id(raw), "name": name}})
                else:
                    seats.append({"bot": kind})
            body: dict[str, Any] = {"setup": SHORT, "seats": seats}
            if public is not None:
                body["public"] = public
            if keyed:
                body.update(rated=rated, autoStart=auto)
                if webhook:
                    body["webhook"] = {"url": service.receiver.url, "events": ["table.over"]}
            key = CLUB_SECRET if keyed else None
            answer = call(self.c, "POST", "/v1/tables", json=body, headers=headers(key))
            reserved = [s["reserved"] for s in seats if isinstance(s, dict) and "reserved" in s]
            if answer.status_code != 201:
                return
            for player in reserved:  # accepted: every name and id passes its rule
                assert name_ok(player["name"]), player
                assert player_id_fault(player["id"]) is None, player
                self.reserved.add(player["id"])
            created = answer.json()
            table = created["table"]
            assert table["public"] is (public if public is not None else not keyed)
            self.track(created, key, rated=keyed and rated, webhook=created.get("webhookSecret"))

        @rule(
            people=st.integers(min_value=1, max_value=2),
            bots=st.lists(st.sampled_from(["random", "greedy"]), min_size=1, max_size=2),
            webhook=st.booleans(),
        )
        def rated_game(self, people: int, bots: list[str], webhook: bool) -> None:
            """A valid rated game with the key, played to its end: the ratings' path."""
            seats: list[Any] = [
                {"reserved": {"id": f"{self.tag}p{i}", "name": GOOD_NAMES[i]}}
                for i in range(people)
            ]
            body: dict[str, Any] = {
                "setup": SHORT,
                "seats": seats + [{"bot": b} for b in bots],
                "rated": True,
                "autoStart": True,
            }
            if webhook:
                body["webhook"] = {"url": service.receiver.url, "events": ["table.over"]}
            answer = call(self.c, "POST", "/v1/tables", json=body, headers=headers(CLUB_SECRET))
            assert answer.status_code == 201, answer.text
            created = answer.json()
            self.reserved.update(s["reserved"]["id"] for s in seats)
            known = self.track(
                created, CLUB_SECRET, rated=True, webhook=created.get("webhookSecret")
            )
            for _ in range(200):
                if not self._one_move(known):
                    return

        @rule(pick=picks, token_pick=picks, name=names, graphql=st.booleans())
        def join(self, pick: int, token_pick: int, name: str, graphql: bool) -> None:
            known = chosen(self.tables, pick)
            if known is None:
                return
            if graphql:
                query = (
                    "mutation($id: ID!, $name: String!) { joinTable(id: $id, name: $name) {"
                    " __typename ... on SeatedAtTable { player seatToken }"
                    " ... on TableRejected { code } } }"
                )
                variables = {"id": known.id, "name": name}
                answer = call(
                    self.c, "POST", "/graphql", json={"query": query, "variables": variables}
                )
                result = answer.json()["data"]["joinTable"]
                if result["__typename"] != "SeatedAtTable":
                    assert result["code"] in HTTP_STATUS, result
                    return
                token = result["seatToken"]
            else:
                # a seat token: takes back a reserved seat left before the start, if it is one
                token = chosen([None, *known.tokens], token_pick)
                url = f"/v1/tables/{known.id}/join"
                answer = call(
                    self.c, "POST", url, json={"name": name}, headers=headers(token=token)
                )
                if answer.status_code != 200:
                    return
                token = answer.json()["seatToken"]
            assert name_ok(name), name
            known.tokens.append(token)

        @rule(pick=picks, token_pick=picks, as_key=st.booleans())
        def leave(self, pick: int, token_pick: int, as_key: bool) -> None:
            known = chosen([k for k in self.tables if k.tokens], pick)
            if known is None:
                return
            token = chosen(known.tokens, token_pick)
            key = known.key if as_key else None
            call(self.c, "POST", f"/v1/tables/{known.id}/leave", headers=headers(key, token))

        @rule(pick=picks)
        def start(self, pick: int) -> None:
            known = chosen(self.tables, pick)
            if known is None:
                return
            call(self.c, "POST", f"/v1/tables/{known.id}/start", headers=self.reader(known))

        @rule(pick=picks, to_end=st.booleans())
        def play(self, pick: int, to_end: bool) -> None:
            known = chosen([k for k in self.tables if k.tokens], pick)
            if known is None:
                return
            for _ in range(200 if to_end else 1):
                if not self._one_move(known):
                    return

        def _one_move(self, known: Known) -> bool:
            """The seat to move plays its first legal move; False when nobody here can."""
            for token in known.tokens:
                seen = call(self.c, "GET", f"/v1/tables/{known.id}", headers=headers(token=token))
                if seen.status_code != 200:
                    continue
                table = seen.json()
                if table["status"] != "playing":
                    return False
                if table["moves"]:
                    body = {"move": table["moves"][0], "version": table["version"]}
                    url = f"/v1/tables/{known.id}/moves"
                    call(self.c, "POST", url, json=body, headers=headers(token=token))
                    return True
            time.sleep(0.02)  # a bot's turn
            return self.read(known)["status"] == "playing"

        @rule(pick=picks)
        def rematch(self, pick: int) -> None:
            known = chosen([k for k in self.tables if k.status == "over"], pick)
            if known is None:
                return
            token = known.host or next(iter(known.tokens), None)
            url = f"/v1/tables/{known.id}/rematch"
            answer = call(self.c, "POST", url, headers=headers(token=token))
            new = answer.json() if answer.status_code == 200 else {}
            if new.get("hostToken") and all(k.id != new["tableId"] for k in self.tables):
                self.track(new, known.key, rated=known.rated)  # its webhook is not told here

        @rule(player=ids, cursor=numbers, limit=numbers, key=st.booleans())
        def look_up(self, player: str, cursor: str, limit: str, key: bool) -> None:
            secret = CLUB_SECRET if key else RIVAL_SECRET
            given = headers(secret)
            for url, params in (
                ("/v1/ratings", {"player": player}),
                ("/v1/ratings", {"cursor": cursor, "limit": limit}),
                ("/v1/tables", {"player": player}),
                ("/v1/tables", {"cursor": f"{cursor}.{'0' * 32}", "limit": limit}),
            ):
                answer = call(self.c, "GET", url, params=params, headers=given)
                if answer.status_code == 200 and "player" in params:
                    assert player_id_fault(player) is None or is_bot_name(player), player

        # -- invariants -------------------------------------------------------------------
        @invariant()
        def holds(self) -> None:
            """The tables first: a table seen over counts in the ratings expected."""
            self.tables_hold()
            self.ratings_hold()

        def tables_hold(self) -> None:
            for known in self.tables:
                table = self.read(known)
                assert table["version"] >= known.version, (known.id, table["version"])
                assert STATUS_ORDER[table["status"]] >= STATUS_ORDER[known.status]
                known.version, known.status = table["version"], table["status"]
                taken = [s["name"] or s["keptFor"] for s in table["seats"]]
                shown = [n for n in taken if n is not None]
                for name in shown:
                    check_text(name, "$", "a served name")  # raises on a refused character
                    assert name == name.strip() and name, name
                assert len({name_key(n) for n in shown}) == len(shown), shown
                known.ids = {seat["id"] for seat in table["seats"] if "id" in seat}
                for player in known.ids:
                    assert player_id_fault(player) is None, player
                if known.status == "over" and known.rated and not known.counted:
                    known.counted = True
                    self.count(table)

        def count(self, table: dict[str, Any]) -> None:
            """A rated table's end, as the ratings should count it: each id and each bot once,
            when at least two are rated (ratings.py)."""
            rated = {s["id"] for s in table["seats"] if "id" in s}
            bots = {s["name"] for s in table["seats"] if s["kind"] == "bot" and not s["away"]}
            if len(rated) + len({name.split("(")[-1] for name in bots}) >= 2:
                for player in rated:
                    self.games[player] = self.games.get(player, 0) + 1

        def ratings_hold(self) -> None:
            """Each id's games are the rated ends it had: never more, and no fewer once the
            end is counted (just before the over event)."""
            deadline = time.monotonic() + 5
            for player in self.reserved:
                expected = self.games.get(player, 0)
                # a bot's move may end a game between the tables' reading and this one
                ending = sum(
                    1 for k in self.tables if k.rated and k.status == "playing" and player in k.ids
                )
                while True:
                    answer = call(
                        self.c,
                        "GET",
                        "/v1/ratings",
                        params={"player": player},
                        headers=headers(CLUB_SECRET),
                    )
                    games = answer.json()["games"] if answer.status_code == 200 else 0
                    assert games <= expected + ending, (player, games, expected, ending)
                    if games >= expected or time.monotonic() > deadline:
                        break
                    time.sleep(0.05)
                assert games >= expected, (player, games, expected)

        def teardown(self) -> None:
            self.every_rating_once()
            self.webhooks_told()

        def every_rating_once(self) -> None:
            """The key's whole ratings, paged: each player once, by the id rule or a bot's."""
            players: list[str] = []
            cursor: str | None = "0"
            while cursor is not None:
                params = {"limit": "100", "cursor": cursor}
                page = call(
                    self.c, "GET", "/v1/ratings", params=params, headers=headers(CLUB_SECRET)
                )
                players += [r["player"] for r in page.json()["ratings"]]
                cursor = page.json()["next"]
            assert len(players) == len(set(players))
            for player in players:
                assert player_id_fault(player) is None or is_bot_name(player), player

        def webhooks_told(self) -> None:
            waiting = [k for k in self.tables if k.webhook and k.status == "over"]
            over = {k.id for k in waiting}

            def told(receiver: Receiver) -> bool:
                seen = {
                    r.json["data"]["tableId"]
                    for r in receiver.delivered()
                    if r.json["type"] == "table.over"
                }
                return over <= seen

            if over:
                service.receiver.wait_for(told, timeout=30)
            secrets = {k.id: k.webhook for k in self.tables if k.webhook}
            bodies: dict[str, bytes] = {}
            for item in service.receiver.snapshot():
                secret = secrets.get(item.json["data"]["tableId"])
                if secret is not None:
                    Webhook(secret).verify(item.body, item.headers)
                    assert bodies.setdefault(item.id, item.body) == item.body

    return Platform


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    receiver = Receiver().start()
    try:
        with (
            Served(
                api_keys=KEYS,
                data_dir=str(tmp_path),
                webhook_allow=("127.0.0.0/8",),
                webhook_retry_seconds=0.1,
                webhook_timeout=2.0,
                table_stand_in_level="random",
                quota_creates=0,  # anonymous creates and joins: as many as the machine makes
                quota_joins=0,
            ) as served,
            served.client() as client,
        ):
            yield Service(served, receiver, client)
    finally:
        receiver.stop()


def run(service: Service, examples: int, steps: int) -> None:
    machine = machine_for(service)
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=examples,
            stateful_step_count=steps,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=examples <= 10,
        ),
    )


def test_tables_and_platforms_hold_under_random_calls(service: Service) -> None:
    run(service, examples=6, steps=12)


@pytest.mark.slow
def test_tables_and_platforms_hold_under_many_random_calls(service: Service) -> None:
    run(service, examples=150, steps=30)
