"""The thorough Schemathesis runs (``pytest -m slow``): the quick runs' checks with many more
examples. Collected only when the mark expression may select slow tests (``tests/conftest.py``):
schemathesis builds every operation's test at collection, some seconds for every worker of a
run that would deselect them all."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from tests.api.rest.test_schemathesis import GRAPHQL, OPENAPI_CHECKS, REST, on_a_real_table

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

THOROUGH = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


@REST.parametrize()
@THOROUGH
def test_rest_conforms_thoroughly(case: schemathesis.Case) -> None:
    on_a_real_table(case).call_and_validate(checks=OPENAPI_CHECKS)


@GRAPHQL.parametrize()
@THOROUGH
def test_graphql_never_fails_thoroughly(case: schemathesis.Case) -> None:
    case.call_and_validate(checks=[not_a_server_error])
