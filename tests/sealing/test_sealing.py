"""Sealed tokens (DESIGN §7): unreadable, unalterable, rotatable; BAD_TOKEN otherwise."""

import base64
import stat
from pathlib import Path

import pytest

from manhattan.sealing import (
    KEY_FILE,
    BadTokenError,
    Sealer,
    SealingKey,
    SealingKeyError,
    stored_key,
)

STATE = b"\x81\xa6format\xb1manhattan/state@1" * 10
GAME = "0123456789abcdef" * 2


def sealer(kid: str = "k1", *old: SealingKey) -> Sealer:
    return Sealer(SealingKey.generate(kid), old)


def test_a_token_round_trips_the_state_and_the_player() -> None:
    s = sealer()
    opened = s.unseal(s.seal(STATE, 2, GAME))
    assert (opened.state, opened.player, opened.kid) == (STATE, 2, "k1")
    assert s.unseal(s.seal(STATE, None, GAME)).player is None


def test_a_token_does_not_show_the_state() -> None:
    token = sealer().seal(STATE, None, GAME)
    raw = base64.urlsafe_b64decode(token.rsplit(".", 1)[1] + "==")
    assert b"manhattan/state@1" not in raw


def test_two_seals_of_one_state_differ() -> None:
    s = sealer()
    assert s.seal(STATE, None, GAME) != s.seal(STATE, None, GAME)


def _flip(token: str, position: int) -> str:
    chars = list(token)
    chars[position] = "A" if chars[position] != "A" else "B"
    return "".join(chars)


@pytest.mark.parametrize("position", [3, 10, 40, -2])
def test_any_altered_character_is_bad_token(position: int) -> None:
    s = sealer()
    token = s.seal(STATE, None, GAME)
    with pytest.raises(BadTokenError):
        s.unseal(_flip(token, position))


@pytest.mark.parametrize("keep", [0, 1, 3, 10, 30, -1])
def test_a_truncated_token_is_bad_token(keep: int) -> None:
    s = sealer()
    token = s.seal(STATE, None, GAME)
    with pytest.raises(BadTokenError):
        s.unseal(token[:keep])


def test_a_foreign_key_is_bad_token() -> None:
    theirs = sealer("k1").seal(STATE, None, GAME)  # same kid, different key
    with pytest.raises(BadTokenError):
        sealer("k1").unseal(theirs)
    with pytest.raises(BadTokenError, match="key"):
        sealer("k2").unseal(sealer("zz").seal(STATE, None, GAME))


@pytest.mark.parametrize("token", [None, 5, "", ".", "k1.", "k1.!!!!", "no-dot", "k1." + "A" * 20])
def test_garbage_is_bad_token(token: object) -> None:
    with pytest.raises(BadTokenError):
        sealer().unseal(token)


def test_an_oversized_token_is_bad_token_before_any_work() -> None:
    s = Sealer(SealingKey.generate("k1"), max_token_chars=100)
    with pytest.raises(BadTokenError, match="at most 100"):
        s.unseal("k1." + "A" * 200)


def test_relabelling_a_token_under_another_accepted_key_fails() -> None:
    old = SealingKey.generate("old")
    current = Sealer(SealingKey.generate("new"), [old])
    body = current.seal(STATE, None, GAME).split(".", 1)[1]
    with pytest.raises(BadTokenError):
        current.unseal(f"old.{body}")


def test_rotation_old_keys_still_open_new_tokens_use_the_current_key() -> None:
    old_key = SealingKey.generate("2024")
    old_token = Sealer(old_key).seal(STATE, None, GAME)
    rotated = Sealer(SealingKey.generate("2025"), [old_key])
    assert rotated.unseal(old_token).state == STATE
    assert rotated.seal(STATE, None, GAME).startswith("2025.")
    assert Sealer(SealingKey.generate("2026")).key_ids == ["2026"]
    with pytest.raises(BadTokenError):
        Sealer(SealingKey.generate("2026")).unseal(old_token)  # old key retired


def test_keys_from_settings_and_the_ephemeral_default() -> None:
    key = SealingKey.generate("prod")
    configured = Sealer.from_settings(key.to_text(), [])
    assert not configured.ephemeral and configured.current == key
    ephemeral = Sealer.from_settings("", [])
    assert ephemeral.ephemeral and ephemeral.current.kid.startswith("e")


@pytest.mark.parametrize(
    "text", ["nokid", ":abc", "k1:not base64!", "k1:" + "A" * 10, "bad kid:AAAA"]
)
def test_malformed_keys_are_rejected_at_start(text: str) -> None:
    with pytest.raises(SealingKeyError):
        SealingKey.parse(text)


def test_a_token_is_bound_to_its_game() -> None:
    """The game id is readable and bound as associated data: asking for another game, or
    relabelling the token with another game id, is BAD_TOKEN."""
    s = sealer()
    token = s.seal(STATE, 1, GAME)
    assert token.split(".")[1] == GAME and s.unseal(token, game=GAME).game == GAME
    other = "f" * 32
    with pytest.raises(BadTokenError, match="game"):
        s.unseal(token, game=other)
    kid, _, body = token.split(".")
    with pytest.raises(BadTokenError):
        s.unseal(f"{kid}.{other}.{body}")


def test_padding_evens_out_lengths_and_is_checked() -> None:
    s = sealer()
    short, padded = s.seal(STATE, 0, GAME, padding=50), s.seal(STATE + b"x" * 50, 0, GAME)
    assert len(short) == len(padded)
    assert s.unseal(short).state == STATE
    with pytest.raises(ValueError):
        s.seal(STATE, 0, "not a game id")


def test_the_key_kept_in_a_data_directory_is_made_once_and_private(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = Sealer.from_settings("", (), key_dir=data)
    assert not first.ephemeral
    assert stat.S_IMODE((data / KEY_FILE).stat().st_mode) == 0o600
    assert [p.name for p in data.iterdir()] == [KEY_FILE]  # no spare file left behind
    again = Sealer.from_settings("", (), key_dir=data)  # a restart: the same key
    assert again.current == first.current
    assert again.unseal(first.seal(STATE, 1, GAME)).state == STATE


def test_a_configured_key_wins_over_the_kept_one(tmp_path: Path) -> None:
    configured = SealingKey.generate("conf")
    sealer = Sealer.from_settings(configured.to_text(), (), key_dir=tmp_path)
    assert sealer.current == configured
    assert not (tmp_path / KEY_FILE).exists()


def test_a_configured_key_that_drops_the_kept_one_says_so_at_the_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    kept = stored_key(tmp_path)
    configured = SealingKey.generate("conf")
    with caplog.at_level("WARNING", logger="manhattan.sealing"):
        sealer = Sealer.from_settings(configured.to_text(), (), key_dir=tmp_path)
    (warning,) = caplog.records
    assert kept.kid in warning.getMessage() and "MANHATTAN_TOKEN_OLD_KEYS" in warning.getMessage()
    assert kept.to_text().split(":")[1] not in warning.getMessage()  # never the key itself
    with pytest.raises(BadTokenError):
        sealer.unseal(Sealer(kept).seal(STATE, 1, GAME))
    caplog.clear()
    with caplog.at_level("WARNING", logger="manhattan.sealing"):
        kept_too = Sealer.from_settings(configured.to_text(), [kept.to_text()], key_dir=tmp_path)
    assert not caplog.records  # the old key named: its tokens still open
    assert kept_too.unseal(Sealer(kept).seal(STATE, 1, GAME)).state == STATE


def test_a_kept_key_others_can_read_or_that_is_garbage_is_refused(tmp_path: Path) -> None:
    stored_key(tmp_path)
    (tmp_path / KEY_FILE).chmod(0o640)
    with pytest.raises(SealingKeyError, match="readable by others"):
        stored_key(tmp_path)
    (tmp_path / KEY_FILE).write_text("garbage")
    (tmp_path / KEY_FILE).chmod(0o600)
    with pytest.raises(SealingKeyError, match=KEY_FILE):
        stored_key(tmp_path)
