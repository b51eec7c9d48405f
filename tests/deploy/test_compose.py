"""deploy/docker-compose.yml against the Compose specification's JSON Schema, then its wiring."""

from __future__ import annotations

import importlib.resources
import json
import re
from typing import Any

import jsonschema
import pytest

from manhattan.settings import Settings
from tests.deploy.deploy_files import (
    COMPOSE_FILE,
    REPO,
    load_yaml_documents,
    settings_variable_names,
)

pytest.importorskip("check_jsonschema")

TEST_TOKEN_KEY = "k1:" + "A" * 43  # 32 zero bytes, base64url without padding


def compose() -> dict[str, Any]:
    [document] = load_yaml_documents(COMPOSE_FILE)
    return document


def compose_spec_schema() -> dict[str, Any]:
    # check-jsonschema vendors the compose-spec schema (licence alongside it).
    vendor = importlib.resources.files("check_jsonschema.builtin_schemas.vendor")
    schema: dict[str, Any] = json.loads(vendor.joinpath("compose-spec.json").read_text())
    return schema


def interpolate(value: str, environment: dict[str, str]) -> str:
    """Compose's ``${NAME}``, ``${NAME:-default}`` and ``${NAME:?error}``."""

    def replace(match: re.Match[str]) -> str:
        name, operator, argument = match.group(1), match.group(2), match.group(3) or ""
        if environment.get(name):
            return environment[name]
        if operator == ":?":
            raise LookupError(f"{name}: {argument}")
        return argument

    return re.sub(r"\$\{([A-Z0-9_]+)(?:(:-|:\?)([^}]*))?\}", replace, value)


def service_environment(environment: dict[str, str]) -> dict[str, str]:
    declared = compose()["services"]["manhattan"]["environment"]
    return {name: interpolate(str(value), environment) for name, value in declared.items()}


def test_compose_file_matches_the_compose_spec() -> None:
    validator_class = jsonschema.validators.validator_for(compose_spec_schema())
    validator = validator_class(compose_spec_schema())
    errors = sorted(validator.iter_errors(compose()), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors
    )


def test_build_context_and_dockerfile_exist() -> None:
    build = compose()["services"]["manhattan"]["build"]
    context = (COMPOSE_FILE.parent / build["context"]).resolve()
    assert context == REPO
    assert (context / build["dockerfile"]).is_file()


def test_service_waits_for_a_healthy_redis_it_can_reach() -> None:
    services = compose()["services"]
    manhattan = services["manhattan"]
    assert manhattan["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "healthcheck" in services["redis"]
    redis_url = service_environment({"MANHATTAN_TOKEN_KEY": TEST_TOKEN_KEY})["REDIS_URL"]
    assert redis_url.startswith("redis://redis:6379")
    command = services["redis"]["command"]
    assert command[command.index("--maxmemory-policy") + 1].endswith("-lru")


def test_service_healthcheck_uses_an_operations_endpoint() -> None:
    test = " ".join(compose()["services"]["manhattan"]["healthcheck"]["test"])
    assert "/readyz" in test or "/healthz" in test
    assert "timeout=" in test


def test_every_variable_compose_sets_is_a_setting() -> None:
    declared = set(compose()["services"]["manhattan"]["environment"])
    assert declared - settings_variable_names() == set()


def test_environment_parses_and_the_token_key_is_required() -> None:
    settings = Settings.from_env(service_environment({"MANHATTAN_TOKEN_KEY": TEST_TOKEN_KEY}))
    assert settings.token_key == TEST_TOKEN_KEY
    assert settings.token_old_keys == ()
    with pytest.raises(LookupError, match="MANHATTAN_TOKEN_KEY"):
        service_environment({})


def test_published_port_is_loopback_only_and_matches_the_service() -> None:
    [mapping] = compose()["services"]["manhattan"]["ports"]
    host, _host_port, container_port = mapping.split(":")
    assert host == "127.0.0.1"
    assert int(container_port) == 8000
