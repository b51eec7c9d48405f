"""Schemathesis over /openapi.json and /graphql, in-process: zero 5xx and no schema violations.

The default run keeps a small number of examples per operation so the suite stays fast; the
``slow`` variant (``pytest -m slow``) runs many more.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from manhattan.api.app import create_app
from manhattan.settings import Settings

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

APP = create_app(Settings(access_log=False))
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
THOROUGH = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


@REST.parametrize()
@QUICK_REST
def test_rest_conforms_and_never_fails(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=OPENAPI_CHECKS)


@GRAPHQL.parametrize()
@QUICK
def test_graphql_never_fails(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=[not_a_server_error])


@pytest.mark.slow
@REST.parametrize()
@THOROUGH
def test_rest_conforms_thoroughly(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=OPENAPI_CHECKS)


@pytest.mark.slow
@GRAPHQL.parametrize()
@THOROUGH
def test_graphql_never_fails_thoroughly(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=[not_a_server_error])
