"""Checking a webhook's signature (DESIGN §10, Standard Webhooks): a platform's receiver calls
``verify_webhook`` on each delivery before it trusts the body.

The signature is ``v1,`` + base64 of HMAC-SHA256 over ``{webhook-id}.{webhook-timestamp}.{body}``
keyed with the base64-decoded bytes after ``whsec_`` of the table's ``webhookSecret``. The
``webhook-signature`` header may hold several space-separated signatures (a secret being
rotated); one match is enough. A timestamp further than ``tolerance`` seconds from now is
refused, so a captured delivery cannot be replayed later.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from collections.abc import Mapping

from manhattan_client._base_errors import ManhattanClientError

SECRET_PREFIX = "whsec_"
DEFAULT_TOLERANCE = 300.0


class WebhookSignatureError(ManhattanClientError):
    """A delivery whose headers are missing, too old or too new, or whose signature does not
    match: do not act on it."""


def _key(secret: str) -> bytes:
    encoded = secret.removeprefix(SECRET_PREFIX)
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError("a webhook secret is 'whsec_' and base64") from exc


def sign_webhook(secret: str, webhook_id: str, timestamp: int, body: bytes | str) -> str:
    """The ``webhook-signature`` value for a delivery (``v1,<base64>``)."""
    data = body.encode() if isinstance(body, str) else body
    content = f"{webhook_id}.{timestamp}.".encode() + data
    digest = hmac.new(_key(secret), content, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def verify_webhook(
    secret: str,
    headers: Mapping[str, str],
    body: bytes | str,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> None:
    """Raise ``WebhookSignatureError`` unless the delivery (its headers and raw body) was signed
    with ``secret`` within ``tolerance`` seconds of ``now``."""
    lower = {k.lower(): v for k, v in headers.items()}
    webhook_id = lower.get("webhook-id")
    stamp = lower.get("webhook-timestamp")
    signatures = lower.get("webhook-signature")
    if not webhook_id or not stamp or not signatures:
        raise WebhookSignatureError("missing webhook-id, webhook-timestamp or webhook-signature")
    try:
        timestamp = int(stamp)
    except ValueError:
        raise WebhookSignatureError("webhook-timestamp is not a number") from None
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance:
        raise WebhookSignatureError("webhook-timestamp is too far from now")
    expected = sign_webhook(secret, webhook_id, timestamp, body).encode()
    for given in signatures.split():
        if given.startswith("v1,") and hmac.compare_digest(given.encode(), expected):
            return
    raise WebhookSignatureError("no signature matches")
