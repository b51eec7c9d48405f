"""Tables (DESIGN §9): people playing one game together from separate devices.

The table domain: records, lobby, seating, play, the driver of bots and clocks, and what each
receiver may see (projection). Changes are announced through one seam
(``changes.TableChanges``); the live wing (``manhattan.live``) turns them into frames on
connections. Depends on the engine, the bots, the store and the sealer; not on any transport.
"""

from __future__ import annotations

from manhattan.bots import BotChoice
from manhattan.tables.bot_turns import BotRunner
from manhattan.tables.changes import Announcer, TableChanges
from manhattan.tables.errors import TABLE_CODES, TableError
from manhattan.tables.records import TableSettings
from manhattan.tables.service import Tables
from manhattan.tables.tokens import Bearer

__all__ = [
    "TABLE_CODES",
    "Announcer",
    "Bearer",
    "BotChoice",
    "BotRunner",
    "TableChanges",
    "TableError",
    "TableSettings",
    "Tables",
]
