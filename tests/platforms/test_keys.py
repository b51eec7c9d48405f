"""Platform keys: parsing from settings and a file, the header, BAD_KEY."""

from __future__ import annotations

from pathlib import Path

import pytest

from manhattan.platforms.errors import PlatformError
from manhattan.platforms.keys import ApiKeys
from manhattan.settings import Settings, SettingsError

SECRET = "s3cret-for-the-club-0001"


def test_keys_from_the_variable_and_a_file(tmp_path: Path) -> None:
    file = tmp_path / "keys"
    file.write_text("# our keys\nbot=another-secret-0000002\n\n")
    settings = Settings.from_env(
        {"MANHATTAN_API_KEYS": f"club={SECRET}", "MANHATTAN_API_KEYS_FILE": str(file)}
    )
    keys = ApiKeys.from_settings(settings)
    assert keys.names == {"club", "bot"}
    assert keys.caller({"manhattan-key": SECRET}) == "club"
    assert keys.caller({"manhattan-key": "another-secret-0000002"}) == "bot"
    assert keys.caller({}) is None


def test_an_unknown_key_is_bad_key() -> None:
    keys = ApiKeys([f"club={SECRET}"])
    for secret in ("", "nope", SECRET + "x", SECRET[:-1]):
        with pytest.raises(PlatformError) as caught:
            keys.caller({"manhattan-key": secret})
        assert caught.value.code == "BAD_KEY" and caught.value.status == 401


@pytest.mark.parametrize(
    "pairs",
    [["club"], ["=x" * 10], [f"c lub={SECRET}"], ["club=short"], [f"a={SECRET}", f"a={SECRET}x"]],
)
def test_malformed_keys_stop_the_service(pairs: list[str]) -> None:
    with pytest.raises(SettingsError):
        ApiKeys(pairs)


def test_a_missing_keys_file_names_the_variable(tmp_path: Path) -> None:
    settings = Settings(api_keys_file=str(tmp_path / "absent"))
    with pytest.raises(SettingsError, match="MANHATTAN_API_KEYS_FILE"):
        ApiKeys.from_settings(settings)


def test_webhook_allow_and_proxies_are_networks() -> None:
    settings = Settings.from_env(
        {"MANHATTAN_WEBHOOK_ALLOW": "127.0.0.1, 10.0.0.0/8", "MANHATTAN_TRUSTED_PROXIES": "::1"}
    )
    assert settings.webhook_allow == ("127.0.0.1/32", "10.0.0.0/8")
    assert settings.trusted_proxies == ("::1/128",)
    with pytest.raises(SettingsError, match="MANHATTAN_WEBHOOK_ALLOW"):
        Settings.from_env({"MANHATTAN_WEBHOOK_ALLOW": "not-a-network"})


def test_one_secret_under_two_key_names_stops_the_service(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="'club' and 'other' have the same secret") as caught:
        ApiKeys([f"club={SECRET}", f"other={SECRET}"])
    assert SECRET not in str(caught.value)  # the message never shows a secret
    file = tmp_path / "keys"
    file.write_text(f"other={SECRET}\n")
    settings = Settings(api_keys=(f"club={SECRET}",), api_keys_file=str(file))
    with pytest.raises(SettingsError, match="same secret"):
        ApiKeys.from_settings(settings)
