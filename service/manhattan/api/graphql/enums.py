"""GraphQL enums of the closed vocabularies, derived from the one Python definition of each.

Each enum's value names are the wire strings themselves (``build``, ``greedy``, ``classic``):
GraphQL allows lowercase enum values, so JSON answers and JSON variables carry the same strings
as REST and the state format; only a literal written inside a query document changes
(``type: build`` instead of ``type: "build"``).

For the type checker each enum is the ``str`` it carries: values reach the engine as plain
strings (``wire_string``), and the engine's strings complete as enum values (graphql-core looks
an output value up by value, and a member's value is its name).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import TYPE_CHECKING

import strawberry

from manhattan.bots import LEVELS
from manhattan.engine.events import EVENT_TYPES
from manhattan.engine.moves import MOVE_TYPES
from manhattan.engine.rules import EDITIONS, MONSTERS
from manhattan.engine.state import PHASES
from manhattan.engine.urban import URBAN_CARDS


def closed_set(name: str, values: Iterable[str], description: str) -> type[StrEnum]:
    """A GraphQL enum ``name`` whose members are named by their values."""
    members = StrEnum(name, {value: value for value in values})  # type: ignore[misc]
    enum: type[StrEnum] = strawberry.enum(members, name=name, description=description)
    return enum


def wire_string(value: str | None) -> str | None:
    """An enum member (or a string) as the plain string the engine and the wire use."""
    return None if value is None else str(value)


if TYPE_CHECKING:  # the strings they carry
    BotLevel = str
    Edition = str
    Monster = str
    MoveKind = str
    EventKind = str
    Phase = str
    UrbanCard = str
else:
    BotLevel = closed_set("BotLevel", LEVELS, "A bot (manhattan.bots.LEVELS).")
    Edition = closed_set("Edition", EDITIONS, "The rules edition (RULES §3).")
    Monster = closed_set("Monster", MONSTERS, "The monster of the monster variant (RULES §9).")
    MoveKind = closed_set("MoveType", MOVE_TYPES, "A move's type (DESIGN §2).")
    EventKind = closed_set("EventType", EVENT_TYPES, "What happened (manhattan.EVENT_TYPES).")
    Phase = closed_set("Phase", PHASES, "The phase of a round (RULES §5).")
    UrbanCard = closed_set("UrbanCard", URBAN_CARDS, "An urban rules card (RULES §10).")
