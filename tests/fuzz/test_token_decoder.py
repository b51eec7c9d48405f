"""Fuzzing sealed tokens (DESIGN §7): whatever string comes back, opening it raises only
``BadTokenError`` (BAD_TOKEN), and what an authentic token carries decodes to a state or raises
only ``InvalidStateError``; every call returns within a time bound."""

from __future__ import annotations

import base64
import contextlib
import os
import time

import msgpack
import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import manhattan
from manhattan import sealing
from manhattan.sealing import BadTokenError, Sealer, SealingKey
from tests.fuzz.inputs import VALID_STATES, json_values, msgpack_inputs, packable

TIME_LIMIT = 2.0
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KEY = SealingKey("k1", bytes(range(32)))
OLD_KEY = SealingKey("k0", bytes(range(32, 64)))
SEALER = Sealer(KEY, [OLD_KEY])
STATE_BYTES = manhattan.State.from_json(VALID_STATES[-1]).to_msgpack()
GAME = "0123456789abcdef" * 2
VALID_TOKEN = SEALER.seal(STATE_BYTES, 1, GAME)
TOKEN_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ "


def open_within_limit(token: object) -> None:
    """Open a token and decode its state; only the two client errors may escape."""
    started = time.perf_counter()
    try:
        unsealed = SEALER.unseal(token)
    except BadTokenError as error:
        assert error.code == "BAD_TOKEN" and error.message
    else:
        with contextlib.suppress(manhattan.InvalidStateError):
            manhattan.State.from_msgpack(unsealed.state)
    elapsed = time.perf_counter() - started
    assert elapsed < TIME_LIMIT, f"opening took {elapsed:.2f} s"


def forge(plaintext: bytes, key: SealingKey = KEY) -> str:
    """An authentic token around any plaintext: what a holder of the key (or a future format)
    could produce. Reproduces sealing's layout, including its associated data."""
    nonce = os.urandom(sealing.NONCE_BYTES)
    aad = sealing._AAD_PREFIX + key.kid.encode() + b"|" + GAME.encode()
    sealed = AESGCM(key.key).encrypt(nonce, plaintext, aad)
    return f"{key.kid}.{GAME}.{base64.urlsafe_b64encode(nonce + sealed).decode().rstrip('=')}"


def test_the_valid_token_opens() -> None:
    unsealed = SEALER.unseal(VALID_TOKEN)
    assert unsealed.state == STATE_BYTES and unsealed.player == 1
    assert SEALER.unseal(forge(msgpack.packb([2, None, STATE_BYTES]))).state == STATE_BYTES


@FUZZ
@given(st.one_of(st.text(max_size=300), st.text(TOKEN_ALPHABET, max_size=300)))
def test_arbitrary_strings(token: str) -> None:
    open_within_limit(token)


@FUZZ
@given(st.one_of(st.none(), st.integers(), st.binary(max_size=64), st.lists(st.text(), max_size=3)))
def test_values_that_are_not_strings(token: object) -> None:
    open_within_limit(token)


def tampered_token(data: st.DataObject) -> str:
    """The valid token with one kind of damage drawn from ``data``."""
    kind = data.draw(st.sampled_from(["flip", "truncate", "extend", "kid", "padding", "case"]))
    token = VALID_TOKEN
    if kind == "flip":
        index = data.draw(st.integers(0, len(token) - 1))
        token = token[:index] + data.draw(st.sampled_from(TOKEN_ALPHABET)) + token[index + 1 :]
    elif kind == "truncate":
        token = token[: data.draw(st.integers(0, len(token) - 1))]
    elif kind == "extend":
        token += data.draw(st.text(TOKEN_ALPHABET, min_size=1, max_size=40))
    elif kind == "kid":
        token = data.draw(st.sampled_from(["k0", "k2", "", "k1.k1", "é"])) + token[2:]
    elif kind == "padding":
        token += "=" * data.draw(st.integers(1, 4))
    else:
        token = token.swapcase()
    return token


@FUZZ
@given(st.data())
def test_tampered_tokens(data: st.DataObject) -> None:
    open_within_limit(tampered_token(data))


@settings(FUZZ, max_examples=120)
@given(st.one_of(st.binary(max_size=512), json_values.filter(packable).map(msgpack.packb)))
def test_authentic_tokens_with_garbage_inside(plaintext: bytes) -> None:
    open_within_limit(forge(plaintext))


@FUZZ
@given(
    st.one_of(st.none(), st.integers(-(2**63), 2**64 - 1), st.text(max_size=4)),
    msgpack_inputs(),
)
def test_authentic_tokens_with_a_forged_state_inside(player: object, state: bytes) -> None:
    open_within_limit(forge(msgpack.packb([2, player, state], use_bin_type=True)))


@pytest.mark.parametrize(
    "token",
    [
        "k1." + "A" * 20_000,  # over max_token_chars
        f"k1.{'f' * 32}.{VALID_TOKEN.rsplit('.', 1)[1]}",  # relabelled to another game
        f"k1.{VALID_TOKEN.rsplit('.', 1)[1]}",  # the game left out (version 1's layout)
        "k1." + "A" * 16_000,  # under it, but not a ciphertext
        "k1.",
        ".",
        "k1",
        "k1." + "!" * 100,
        "k1." + base64.urlsafe_b64encode(b"\x00" * 27).decode(),  # one byte short of nonce + tag
        "k0." + VALID_TOKEN[3:],  # right ciphertext, other accepted key
    ],
    ids=[
        "oversize",
        "other-game",
        "no-game",
        "long-garbage",
        "empty-body",
        "dot",
        "no-dot",
        "not-base64",
        "short",
        "kid",
    ],
)
def test_hand_made_bad_tokens(token: str) -> None:
    with pytest.raises(BadTokenError):
        SEALER.unseal(token)


@pytest.mark.parametrize(
    "plaintext",
    [
        msgpack.packb([2, 0, b"\xdd\xff\xff\xff\xff"], use_bin_type=True),  # array bomb inside
        msgpack.packb([2, 0, b"\x91" * 100_000 + b"\xc0"], use_bin_type=True),  # depth bomb
        msgpack.packb([2, 0, b"\x00" * (1 << 20)], use_bin_type=True),  # 1 MiB state
        b"\xdd\xff\xff\xff\xff",
        b"\x91" * 100_000 + b"\xc0",
        msgpack.packb([3, 0, STATE_BYTES], use_bin_type=True),  # a future format version
        msgpack.packb([2, 4, STATE_BYTES], use_bin_type=True),  # no such player
        msgpack.packb([2, True, STATE_BYTES], use_bin_type=True),
    ],
    ids=[
        "array-bomb",
        "depth-bomb",
        "mib-state",
        "outer-array-bomb",
        "outer-depth-bomb",
        "version-3",
        "player-4",
        "player-bool",
    ],
)
def test_authentic_bombs(plaintext: bytes) -> None:
    open_within_limit(forge(plaintext))


FUZZ_LONG = settings(FUZZ, max_examples=20_000)


@pytest.mark.slow
@FUZZ_LONG
@given(st.data())
def test_tampered_tokens_long(data: st.DataObject) -> None:
    open_within_limit(tampered_token(data))


@pytest.mark.slow
@FUZZ_LONG
@given(
    st.one_of(st.none(), st.integers(-(2**63), 2**64 - 1), st.text(max_size=4)),
    msgpack_inputs(),
)
def test_authentic_tokens_with_a_forged_state_inside_long(player: object, state: bytes) -> None:
    open_within_limit(forge(msgpack.packb([2, player, state], use_bin_type=True)))
