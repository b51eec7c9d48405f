"""Request and response bodies for REST: JSON or msgpack, chosen by Content-Type and Accept.

Decoding never raises anything but ``ApiError``: malformed JSON, non-finite numbers, absurd
nesting and oversized msgpack containers are all ``INVALID_REQUEST`` (400). Encoding: the
compact JSON REST and GraphQL write (``dump_json``) and the legal moves body (``moves_json``),
which the game service caches as the bytes written here.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any, TypeVar

import msgpack
import msgspec
import orjson
from starlette.requests import Request
from starlette.responses import Response

from manhattan import Move
from manhattan.api.errors import ApiError
from manhattan.engine.moves import moves_text

#: The scope key under which the middleware leaves the request's headers as a dict (lowercase
#: name to raw value) when no name is repeated: the routes read them with one dict lookup
#: (``header``) instead of a scan of the list per lookup.
HEADERS_KEY = "manhattan.headers"
#: The scope key under which the middleware leaves the whole body it read (``body``).
BODY_KEY = "manhattan.body"
JSON_TYPE = "application/json"
MSGPACK_TYPE = "application/msgpack"
MSGPACK_TYPES = frozenset({MSGPACK_TYPE, "application/x-msgpack", "application/vnd.msgpack"})
_MSGPACK_LIMITS = {
    "max_str_len": 64 * 1024,
    "max_bin_len": 0,
    "max_array_len": 16 * 1024,
    "max_map_len": 1024,
    "max_ext_len": 0,
}


def moves_json(moves: Sequence[Move]) -> bytes:
    """``{"moves": [...]}`` as JSON bytes, each move's text from the compiled engine
    (``moves_text``: kept by the move object where the engine shares it from call to call, a
    build's or a forfeit's, else by the move's fields, its player and block included)."""
    return b'{"moves":' + moves_text(list(moves)) + b"}"


def dump_json(payload: Any) -> bytes:
    """Compact UTF-8 JSON. orjson is several times faster than the standard library on response
    bodies; what it refuses (integers beyond 64 bits, non-string keys, lone surrogates) goes
    through ``json.dumps`` as before. The one difference: orjson writes a non-finite float as
    ``null`` where ``json.dumps`` wrote ``NaN``, which is not JSON."""
    try:
        return orjson.dumps(payload)
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


# Digits to "9", everything else to " ": a run of 19 digits is then a plain substring test,
# an order of magnitude faster than a regular expression over the body.
_DIGITS_ONLY = bytes(0x39 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_RUN = b"9" * 19


def load_json(data: str | bytes) -> Any:
    """``json.loads``, faster. orjson parses strict UTF-8 JSON several times faster than the
    standard library, and what it accepts the standard library reads the same way, except
    integers beyond 64 bits, which orjson reads as floats: a body with a run of 19 digits or
    more skips it. Everything else (lone surrogates, other encodings, nesting beyond 1,024,
    malformed text) goes to ``json.loads``, which decides and reports as it always did; strings
    that are not valid Unicode are refused. Non-finite constants (``NaN``, ``Infinity``) are
    refused by both."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if _LONG_RUN not in data.translate(_DIGITS_ONLY):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    value = json.loads(data, parse_constant=_reject_constant)
    # Strings with lone surrogates (``"\ud800"``) are not Unicode text: refused here (a
    # ValueError, like any malformed body) before they reach a message or an encoder.
    json.dumps(value, ensure_ascii=False).encode()
    return value


def decode_json(data: bytes) -> Any:
    try:
        return load_json(data)
    except (ValueError, RecursionError, UnicodeDecodeError) as exc:
        raise ApiError("INVALID_REQUEST", f"the body is not valid JSON: {_reason(exc)}") from None


def decode_msgpack(data: bytes) -> Any:
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=True, **_MSGPACK_LIMITS)
    except (
        ValueError,
        TypeError,
        msgpack.ExtraData,
        msgpack.FormatError,
        msgpack.StackError,
    ) as exc:
        raise ApiError(
            "INVALID_REQUEST", f"the body is not valid msgpack: {_reason(exc)}"
        ) from None


def _reason(exc: BaseException) -> str:
    text = str(exc).split("\n", 1)[0]
    return text[:120] or exc.__class__.__name__


def media_type(header: str) -> str:
    return header.split(";", 1)[0].strip().lower()


def header(request: Request, name: str) -> str | None:
    """The header ``name`` (lowercase), as Starlette reads it (the first if repeated): from the
    middleware's dict when it left one (``HEADERS_KEY``), else from the request's list."""
    headers: dict[bytes, bytes] | None = request.scope.get(HEADERS_KEY)
    if headers is None:
        return request.headers.get(name)
    value = headers.get(_raw_name(name))
    return None if value is None else value.decode("latin-1")


@functools.cache
def _raw_name(name: str) -> bytes:
    return name.encode("latin-1")


#: Scope keys of what a request's headers say about its bodies, read once per request: the
#: body's media type, and whether the answer is msgpack.
_SENT_KEY = "manhattan.sent"
_ANSWER_KEY = "manhattan.answer"


def sent_type(request: Request) -> str:
    """The media type of the request's body (``Content-Type`` without parameters; JSON when
    none is given)."""
    scope = request.scope
    kind: str | None = scope.get(_SENT_KEY)
    if kind is None:
        kind = scope[_SENT_KEY] = media_type(header(request, "content-type") or "") or JSON_TYPE
    return kind


async def body(request: Request) -> bytes:
    """The request's body: as the middleware read it (``BODY_KEY``), or from the request."""
    read: bytes | None = request.scope.get(BODY_KEY)
    return await request.body() if read is None else read


async def read_body(request: Request) -> Any:
    """The decoded body; an empty body is ``None``. An unacceptable ``Accept`` is refused (406)
    before the work rather than after it."""
    wants_msgpack(request)
    data = await body(request)
    kind = sent_type(request)
    if kind in MSGPACK_TYPES:
        return decode_msgpack(data) if data else None
    if kind != JSON_TYPE and not kind.endswith("+json"):
        raise ApiError(
            "UNSUPPORTED_MEDIA_TYPE", "send application/json or application/msgpack bodies"
        )
    return decode_json(data) if data else None


T = TypeVar("T")


async def json_body(request: Request) -> bytes | None:
    """The body's bytes when it is sent as JSON, else None (an unacceptable ``Accept`` is
    refused first, as ``read_body`` refuses it)."""
    wants_msgpack(request)
    if sent_type(request) != JSON_TYPE:
        return None
    return await body(request)


def decode_as(data: bytes, decoder: msgspec.json.Decoder[T]) -> T | None:
    """JSON ``data`` decoded straight from its bytes by ``decoder``, when it fits the decoder's
    type exactly; otherwise None, and the caller reads the body the general way
    (``read_body``), which reports any fault as it always did. A fit gives the very value the
    general way gives: what msgspec decodes, orjson reads the same, and the decoder's type has
    the bounds the general way checks after it."""
    try:
        return decoder.decode(data)
    except (msgspec.DecodeError, ValueError):
        return None


def wants_msgpack(request: Request, *, strict: bool = True) -> bool:
    """Whether the answer is msgpack: the first type of ``Accept`` the service can write, in the
    client's order (``q=0`` excluded); a wildcard, or no ``Accept``, answers in the request's own
    body type (a msgpack request gets msgpack). ``strict``: an ``Accept`` naming neither JSON nor
    msgpack is ``NOT_ACCEPTABLE`` (406); errors pass ``strict=False`` and fall back to JSON."""
    known: bool | None = request.scope.get(_ANSWER_KEY)
    if known is None:
        known = _accepts_msgpack(request)
        if known is None:
            if strict:
                raise ApiError(
                    "NOT_ACCEPTABLE", "this answer is application/json or application/msgpack"
                )
            return False
        request.scope[_ANSWER_KEY] = known
    return known


def _accepts_msgpack(request: Request) -> bool | None:
    """``wants_msgpack``'s answer; None when ``Accept`` names neither JSON nor msgpack."""
    accept = header(request, "accept")
    if not accept:
        return _sent_msgpack(request)
    for part in accept.split(","):
        kind, _, params = part.partition(";")
        kind = kind.strip().lower()
        if _refused(params):
            continue
        if kind in MSGPACK_TYPES:
            return True
        if kind == JSON_TYPE or kind.endswith("+json"):
            return False
        if kind in ("*/*", "application/*", ""):
            return _sent_msgpack(request)
    return None


def _sent_msgpack(request: Request) -> bool:
    return sent_type(request) in MSGPACK_TYPES


def _refused(params: str) -> bool:
    """``q=0`` (or ``q=0.0``...): the client refuses the type."""
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "q":
            try:
                return float(value) == 0
            except ValueError:
                return False
    return False


def encode(payload: Any, as_msgpack: bool) -> bytes:
    if as_msgpack:
        data: bytes = msgpack.packb(payload, use_bin_type=True)
        return data
    return dump_json(payload)


def render(
    request: Request,
    payload: Any,
    status: int = 200,
    headers: dict[str, str] | None = None,
    *,
    strict: bool = True,
) -> Response:
    as_msgpack = wants_msgpack(request, strict=strict)
    return Response(
        encode(payload, as_msgpack),
        status_code=status,
        headers=headers,
        media_type=MSGPACK_TYPE if as_msgpack else JSON_TYPE,
    )
