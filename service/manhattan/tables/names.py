"""Names and chat text that cannot deceive (issue 23 item 8).

``check_text`` refuses control and format characters (Unicode categories Cc: C0, DEL and C1;
Cf: bidi controls, zero-width characters, BOM, ...; Zl/Zp line and paragraph separators;
surrogates) in a person's name, a table's name and chat text, with ``INVALID_REQUEST`` at the
field's path, naming the character and its position: such text could clear a terminal, write
its clipboard (OSC 52), reorder what others read or hide a difference between two names.

``name_key`` is what two names at one table must not share: NFKC, case folding, then a
confusable skeleton after Unicode TS #39 (NFD, each character mapped to one prototype of its
class of look-alikes, NFD again), so "ann", "Ann", "ＡＮＮ" and "аnn" (Cyrillic а) are one name.
The look-alikes are the Unicode consortium's confusables data as the ``confusable-homoglyphs``
package ships it (read back into TS #39's one-way source -> prototype mapping).
``check_name_free`` refuses a name whose key
is already at the table with ``NAME_TAKEN``.

``person_name`` is the one rule for a person's name however it enters (a join, a reserved seat,
GraphQL's arguments: all read through it; a rematch keeps the names its table had): trimmed, not
blank, ``check_text``. ``check_names_distinct`` holds a new table's names to ``check_name_free``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache

from confusable_homoglyphs import confusables

from manhattan import wire
from manhattan.tables.errors import TableError

#: Categories refused in names and chat: control, format, line/paragraph separators, surrogates.
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
#: Marks the confusables data wraps around right-to-left characters (not part of them).
_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")


def check_text(text: str, path: str, what: str) -> None:
    """``INVALID_REQUEST`` at ``path`` for the first control or format character of ``text``."""
    for index, char in enumerate(text):
        category = unicodedata.category(char)
        if category in REFUSED_CATEGORIES:
            label = unicodedata.name(char, _CONTROL_NAMES.get(category, "a control character"))
            raise wire.WireError(
                "INVALID_REQUEST",
                f"{what} may not hold control or format characters: U+{ord(char):04X} "
                f"({label.lower()}) at position {index}",
                path=path,
            )


_CONTROL_NAMES = {"Cc": "a control character", "Cs": "a surrogate"}


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character -> its prototype (built once, on first use).

    The package's data holds each line of confusables.txt both ways: a source character lists
    its one prototype, a prototype lists every source of it. So a character with one entry,
    whose entry lists more than it (or ranks before it, for a lone pair), is a source."""
    data = {
        key.translate(_DIRECTION_MARKS): [str(e["c"]).translate(_DIRECTION_MARKS) for e in entries]
        for key, entries in confusables.confusables_data.items()
    }

    def rank(text: str) -> tuple[bool, str]:
        return (not text.isascii(), text)

    found: dict[str, str] = {}
    for source, targets in data.items():
        if len(source) != 1 or len(targets) != 1 or targets[0] == source:
            continue
        target = targets[0]
        back = data.get(target, [])
        if len(back) > 1 or rank(target) < rank(source):
            found[source] = target
    return found


def skeleton(text: str) -> str:
    """TS #39's skeleton with this module's prototypes: NFD, map, NFD."""
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def name_key(name: str) -> str:
    """What makes two names the same at a table: NFKC with spaces collapsed, the skeleton, case
    folding, and the skeleton of that (folding first would turn some look-alikes into others:
    Greek lunate sigma "ϲ", a "c", folds to "σ", an "o")."""
    text = " ".join(unicodedata.normalize("NFKC", name).split())
    return skeleton(skeleton(text).casefold())


def person_name(raw: str, path: str) -> str:
    """A person's name as given at ``path``, trimmed; ``INVALID_REQUEST`` when it is blank or
    holds a control or format character."""
    name = raw.strip()
    if not name:
        raise wire.WireError("INVALID_REQUEST", "'name' is not blank", path=path)
    check_text(name, path, "a name")
    return name


def check_names_distinct(names: Iterable[tuple[int, str]]) -> None:
    """``NAME_TAKEN`` for the first of ``names`` ((seat, name) pairs of one table) that is
    another's after ``name_key``."""
    seen: list[tuple[int, str]] = []
    for seat, name in names:
        check_name_free(name, seen)
        seen.append((seat, name))


def check_name_free(name: str, taken: Iterable[tuple[int, str]]) -> None:
    """``NAME_TAKEN`` when ``name`` is one of ``taken`` ((seat, name) pairs) after
    ``name_key``."""
    key = name_key(name)
    for player, other in taken:
        if name_key(other) == key:
            same = "is" if other == name else f"looks the same as {other!r}, which is"
            raise TableError(
                "NAME_TAKEN",
                f"the name {name!r} {same} already at this table (seat {player}); "
                "choose another name",
            )
