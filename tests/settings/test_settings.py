"""Settings come from environment variables; a bad value names the variable."""

import pytest

from manhattan.settings import Settings, SettingsError


def test_defaults_run_embedded_with_no_environment() -> None:
    settings = Settings.from_env({})
    assert settings.redis_url == ""
    assert settings.port == 8000
    assert settings.introspection is True
    assert settings.strict_states is False


def test_values_are_read_and_typed() -> None:
    settings = Settings.from_env(
        {
            "REDIS_URL": "redis://cache:6379/0",
            "MANHATTAN_PORT": "9000",
            "MANHATTAN_CACHE_TTL": "60",
            "MANHATTAN_INTROSPECTION": "off",
            "MANHATTAN_TOKEN_OLD_KEYS": "a:xx, b:yy",
            "MANHATTAN_LOG_LEVEL": "debug",
        }
    )
    assert settings.redis_url == "redis://cache:6379/0"
    assert settings.port == 9000
    assert settings.cache_ttl == 60
    assert settings.introspection is False
    assert settings.token_old_keys == ("a:xx", "b:yy")
    assert settings.log_level == "DEBUG"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("MANHATTAN_PORT", "http"),
        ("MANHATTAN_PORT", "70000"),
        ("MANHATTAN_CACHE_TTL", "0"),
        ("MANHATTAN_STRICT_STATES", "maybe"),
        ("MANHATTAN_LOG_LEVEL", "loud"),
    ],
)
def test_a_bad_value_names_its_variable(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})
