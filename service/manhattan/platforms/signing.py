"""Standard Webhooks signing (DESIGN §10): ``whsec_`` secrets and the ``v1,`` signature.

A secret is ``whsec_`` + base64 of 32 random bytes; the signature of one attempt is ``v1,`` +
base64 of HMAC-SHA256, keyed with the secret's bytes, over ``"{id}.{timestamp}.{body}"``. The
``standardwebhooks`` package (and every Standard Webhooks library) verifies it as is.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets

PREFIX = "whsec_"
SECRET_BYTES = 32


def new_secret() -> str:
    return PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


@functools.lru_cache(maxsize=4096)  # every delivery of a table signs with its one secret
def secret_bytes(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(PREFIX))


def sign(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` header of one attempt."""
    signed = message_id.encode() + b"." + str(timestamp).encode() + b"." + body
    digest = hmac.new(secret_bytes(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The three Standard Webhooks headers (and the content type) of one attempt."""
    return {
        "content-type": "application/json",
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(secret, message_id, timestamp, body),
    }
