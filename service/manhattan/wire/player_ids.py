"""A platform's player id (DESIGN §10): the one rule for every way an id enters the service (a
reserved seat) and every way one is looked up (``?player=`` of ``/v1/tables`` and
``/v1/ratings``, GraphQL's ``myTables`` and ``ratings``), so an id that was accepted can always
be looked up, and an id that is refused is refused everywhere with the same sentence.

An id is 1 to 64 characters, each printable as Python's ``str.isprintable`` says it: no
control or format characters (C0, C1, bidi controls, zero-width characters), no line or
paragraph separators, no space but the ASCII space, no surrogates, private-use or unassigned
code points. Ids are compared exactly (no case folding or normalization: they are the
platform's, not names for people to read). Ids starting with ``bot:`` name the service's bots in
a key's ratings (``platforms/ratings.py``) and are refused for a platform's player, so a player
never shares a rating with a bot.
"""

from __future__ import annotations

from manhattan.wire.reading import WireError

MAX_PLAYER_ID = 64
#: The ratings' names of the service's bots start so; no platform player's id does.
BOT_PREFIX = "bot:"
RULE = f"1-{MAX_PLAYER_ID} printable characters, not starting with {BOT_PREFIX!r}"


def player_id_fault(text: str) -> str | None:
    """Why ``text`` is not a platform's player id, or None when it is one."""
    if not 1 <= len(text) <= MAX_PLAYER_ID:
        return f"a player id is {RULE}; this one has {len(text)} characters"
    for index, char in enumerate(text):
        if not char.isprintable():
            return f"a player id is {RULE}: U+{ord(char):04X} at position {index} is not printable"
    if text.startswith(BOT_PREFIX):
        return f"a player id is {RULE}: ids starting with {BOT_PREFIX!r} name the service's bots"
    return None


def check_player_id(text: str, path: str) -> str:
    """``text`` when it is a player id, else ``INVALID_REQUEST`` at ``path`` saying why."""
    fault = player_id_fault(text)
    if fault is not None:
        raise WireError("INVALID_REQUEST", fault, path=path)
    return text


def is_bot_name(text: str) -> bool:
    """A bot's name in the ratings (``bot:greedy``, ``bot:ismcts:1000``): looked up like an id."""
    rest = text[len(BOT_PREFIX) :]
    return text.startswith(BOT_PREFIX) and len(text) <= MAX_PLAYER_ID and rest.isprintable()
