"""Numbers in text the service reads outside a body (a query string, a header, a cursor): ASCII
decimal digits only, everywhere, on REST and GraphQL alike.

``str.isdigit`` holds "²" and "٣" to be digits and ``int`` reads "٣", " 7", "+7" and "1_0";
the first made ``int`` raise on a superscript (a 500) and the others would let one number be
spelled many ways. ``ascii_decimal`` is the one reading: a non-empty run of 0-9, at most
``digits`` long (so no reader is handed a number thousands of digits long).
"""

from __future__ import annotations

import re

_DECIMAL = re.compile(r"[0-9]+")


def ascii_decimal(text: str, digits: int = 18) -> int | None:
    """``text`` as a number if it is 1 to ``digits`` ASCII decimal digits, else None."""
    if len(text) > digits or _DECIMAL.fullmatch(text) is None:
        return None
    return int(text)
