"""Structured logs: one JSON object per line, each carrying the request id of its request."""

from __future__ import annotations

import contextvars
import json
import logging
import os
import random
import re
import sys
import time
from typing import Any

#: The id of the request being served (set by the middleware), or "-" outside a request.
request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")

_VALID_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message"}


def request_id_from(header: str | None) -> str:
    """The caller's ``X-Request-ID`` when it is a sane token, else a fresh one."""
    if header and _VALID_ID.fullmatch(header):
        return header
    # 128 bits from the process's own generator, seeded from os.urandom: an id needs to be
    # unique, not secret, and os.urandom is a system call that lets go of the interpreter lock
    # (a request then waits to get it back from the store's thread).
    return _ids.randbytes(16).hex()


_ids = random.Random(os.urandom(32))


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "requestId": request_id.get(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def configure_logging(level: str = "INFO") -> None:
    """JSON lines on stderr for the service's loggers and uvicorn's."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in ("manhattan", "uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers[:] = [handler]
        logger.setLevel(level)
        logger.propagate = False
    logging.getLogger("uvicorn.access").disabled = True  # the middleware logs each request
