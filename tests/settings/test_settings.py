"""Settings come from environment variables; a bad value names the variable."""

from pathlib import Path

import pytest

from manhattan.settings import DEFAULT_DATA_DIR, MEMORY_DATA_DIR, Settings, SettingsError
from manhattan.store.redis_cas import RedisVersionedStore
from manhattan.tables.model import RECORD_FORMAT
from manhattan.tables.storage import make_store


def test_defaults_run_embedded_with_no_environment() -> None:
    settings = Settings.from_env({})
    assert settings.redis_url == ""
    assert settings.port == 8000
    assert settings.introspection is True
    assert settings.strict_states is False
    assert settings.data_dir == DEFAULT_DATA_DIR == "manhattan-data"
    assert settings.data_path == Path("manhattan-data")  # relative to the working directory


def test_the_data_directory_is_used_only_without_redis_for_tables() -> None:
    assert Settings().data_dir == MEMORY_DATA_DIR  # made in code: no files unless asked
    assert Settings().data_path is None
    assert Settings.from_env({"MANHATTAN_DATA_DIR": ":memory:"}).data_path is None
    assert Settings.from_env({"MANHATTAN_DATA_DIR": "~/games"}).data_path == (Path.home() / "games")
    for redis in ({"REDIS_URL": "redis://r:6379/0"}, {"MANHATTAN_TABLES_REDIS_URL": "redis://t"}):
        settings = Settings.from_env({"MANHATTAN_DATA_DIR": "/var/lib/m", **redis})
        assert settings.data_path is None
        assert settings.tables_url == next(iter(redis.values()))


def test_redis_defaults_hold_a_busy_process() -> None:
    settings = Settings.from_env({"MANHATTAN_REDIS_POOL_TIMEOUT": "2.5"})
    assert settings.redis_pool_timeout == 2.5
    assert (settings.redis_pool_size, settings.redis_timeout) == (64, 2.0)


def test_values_are_read_and_typed() -> None:
    settings = Settings.from_env(
        {
            "REDIS_URL": "redis://cache:6379/0",
            "MANHATTAN_PORT": "9000",
            "MANHATTAN_CACHE_TTL": "60",
            "MANHATTAN_INTROSPECTION": "off",
            "MANHATTAN_TOKEN_OLD_KEYS": "a:xx, b:yy",
            "MANHATTAN_LOG_LEVEL": "debug",
            "MANHATTAN_TABLE_RECORD_FORMAT": "1",
        }
    )
    assert settings.redis_url == "redis://cache:6379/0"
    assert settings.port == 9000
    assert settings.cache_ttl == 60
    assert settings.introspection is False
    assert settings.token_old_keys == ("a:xx", "b:yy")
    assert settings.log_level == "DEBUG"
    assert settings.table_record_format == 1
    assert Settings().table_record_format == RECORD_FORMAT  # (the tables' newest, by default)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("MANHATTAN_PORT", "http"),
        ("MANHATTAN_PORT", "70000"),
        ("MANHATTAN_CACHE_TTL", "0"),
        ("MANHATTAN_STRICT_STATES", "maybe"),
        ("MANHATTAN_LOG_LEVEL", "loud"),
        ("MANHATTAN_REDIS_POOL_TIMEOUT", "0"),
        ("MANHATTAN_TABLE_RECORD_FORMAT", "3"),
        ("MANHATTAN_EMBED_ORIGINS", "https://a.example/path"),
        ("MANHATTAN_EMBED_ORIGINS", "*"),
        ("MANHATTAN_EMBED_ORIGINS", "https://a.example; script-src *"),
    ],
)
def test_a_bad_value_names_its_variable(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def test_every_redis_client_is_opened_with_the_redis_options() -> None:
    settings = Settings.from_env(
        {
            "REDIS_URL": "redis://127.0.0.1:6379/6",
            "MANHATTAN_REDIS_TIMEOUT": "1.5",
            "MANHATTAN_REDIS_POOL_SIZE": "7",
            "MANHATTAN_REDIS_POOL_TIMEOUT": "2.5",
        }
    )
    assert settings.redis_options == {"timeout": 1.5, "pool_size": 7, "pool_timeout": 2.5}
    store = make_store(settings)  # the tables' store: Redis, not connected until used
    assert isinstance(store, RedisVersionedStore)
    assert store._gate.timeout == 2.5


def test_embed_origins_are_exact_origins() -> None:
    settings = Settings.from_env(
        {"MANHATTAN_EMBED_ORIGINS": "https://Platform.example, http://localhost:3000"}
    )
    assert settings.embed_origins == ("https://platform.example", "http://localhost:3000")
    assert Settings().embed_origins == ()
