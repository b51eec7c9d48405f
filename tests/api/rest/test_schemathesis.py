"""Schemathesis over /openapi.json and /graphql, in-process: zero 5xx and no schema violations.

Every case of the table stream (``GET /v1/tables/{id}/events``) is sent to a table that exists:
its tables expire after 1 s idle (``table_idle_seconds``), so a stream ends soon after it opens
and schemathesis validates each event against the document's ``TableStreamEvent``.

The default run keeps a small number of examples per operation so the suite stays fast; the
``slow`` variants (``pytest -m slow``: ``test_schemathesis_thorough.py``) run many more.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from manhattan.server.app import create_app
from manhattan.settings import Settings

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# No quota on table creations and joins (tests/api/test_quotas.py has their own): the fuzz
# makes a real table with a person seated for every case of the stream, and the thorough run
# makes more than the 30 tables and 60 joins a minute an address may.
APP = create_app(
    Settings(
        access_log=False,
        table_idle_seconds=1,
        table_heartbeat_seconds=0.2,
        quota_creates=0,
        quota_joins=0,
    )
)
STREAM = "/v1/tables/{id}/events"
REST = schemathesis.openapi.from_asgi("/openapi.json", APP)
GRAPHQL = schemathesis.graphql.from_asgi("/graphql", APP)
OPENAPI_CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
# Generating whole states from the state schema is the slow part: few REST examples by default.
QUICK_REST = settings(
    max_examples=5,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
QUICK = settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)


def real_table(players: int = 2) -> tuple[str, str]:
    """A new public table with one person seated: its id and that person's seat token.

    A table here lives 1 s after its last change, so on a busy machine it can expire between
    its creation and the join (404 ``TABLE_NOT_FOUND``, as the service should answer): then a
    new table is made, a few times at most.
    """
    body: dict[str, Any] = {"setup": {"players": players}, "name": "fuzz"}
    join = REST["/v1/tables/{id}/join"]["POST"]
    for _ in range(5):
        created = REST["/v1/tables"]["POST"].Case(body=body, media_type="application/json").call()
        assert created.status_code == 201, created.text
        table_id: str = created.json()["tableId"]
        joined = join.Case(
            path_parameters={"id": table_id}, body={"name": "ann"}, media_type="application/json"
        ).call()
        if joined.status_code == 404 and joined.json()["code"] == "TABLE_NOT_FOUND":
            continue
        assert joined.status_code == 200, joined.text
        return table_id, joined.json()["seatToken"]
    raise AssertionError("every new table expired before a person could join it")


def on_a_real_table(case: schemathesis.Case) -> schemathesis.Case:
    """The stream's cases name a table that exists (generated ids never do)."""
    if case.operation.path == STREAM:
        case.path_parameters = {**(case.path_parameters or {}), "id": real_table()[0]}
    return case


@REST.parametrize()
@QUICK_REST
def test_rest_conforms_and_never_fails(case: schemathesis.Case) -> None:
    on_a_real_table(case).call_and_validate(checks=OPENAPI_CHECKS)


def test_the_stream_of_a_real_table_conforms() -> None:
    """A spectator's and a seat's stream, each to its end, every event valid."""
    operation = REST[STREAM]["GET"]
    table_id, seat_token = real_table()
    spectator = operation.Case(path_parameters={"id": table_id})
    response = spectator.call_and_validate(checks=OPENAPI_CHECKS)
    assert response.status_code == 200
    assert response.text.startswith("event: snapshot") and "\nid: 2" in response.text
    table_id, seat_token = real_table()  # the first one has expired with its stream
    seat = operation.Case(
        path_parameters={"id": table_id},
        headers={"Authorization": f"Bearer {seat_token}", "Last-Event-ID": "1"},
    )
    replayed = seat.call_and_validate(checks=OPENAPI_CHECKS)
    assert replayed.status_code == 200
    assert "event: joined" in replayed.text


@GRAPHQL.parametrize()
@QUICK
def test_graphql_never_fails(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=[not_a_server_error])
