"""A client's whole text frames read without ``websockets``' parser, for a table socket's moves.

A move comes in as one small masked text frame. ``websockets``' sans-I/O parser reads it through
a chain of generators (the stream's buffer, the frame's header, length, mask and data, each a
resumed generator) and builds a ``Frame`` for uvicorn to turn into the ASGI message: some tens of
microseconds of interpreted code for a frame of a hundred bytes. ``client_texts`` reads a chunk
that is nothing but such frames (RFC 6455 §5.2: final, no reserved bits, opcode text, masked)
in one pass and gives their texts; anything else (a control frame, a fragment, a chunk that ends
inside a frame, a frame too big, text that is not UTF-8) gives None, and the whole chunk goes to
``websockets`` as before, which answers it as the RFC says (``ws_protocol.py`` decides when its
parser may be passed by).
"""

from __future__ import annotations

from typing import Final

try:
    from websockets.speedups import apply_mask  # (websockets' C speedup, when it was built)
except ImportError:  # pragma: no cover - a websockets built without its C code
    from websockets.utils import apply_mask

#: The first byte of a final text frame without reserved bits (RFC 6455 §5.2).
_FINAL_TEXT: Final = 0x81
#: The MASK bit of the second byte: every client frame has it (RFC 6455 §5.3).
_MASKED: Final = 0x80


def client_texts(data: bytes, limit: int | None) -> list[str] | None:
    """The texts of ``data`` when it is one or more whole, final, masked text frames, each at
    most ``limit`` bytes (None: no limit) and valid UTF-8; else None."""
    texts: list[str] = []
    at = 0
    end = len(data)
    while at < end:
        if end - at < 6 or data[at] != _FINAL_TEXT or not data[at + 1] & _MASKED:
            return None
        size = data[at + 1] & 0x7F
        at += 2
        if size == 126:
            size = (data[at] << 8) | data[at + 1]
            at += 2
        elif size == 127:  # (eight bytes of length: nothing a move needs)
            return None
        if end - at < 4 + size or (limit is not None and size > limit):
            return None
        mask = data[at : at + 4]
        at += 4
        try:
            texts.append(apply_mask(data[at : at + size], mask).decode())
        except UnicodeDecodeError:
            return None
        at += size
    return texts
