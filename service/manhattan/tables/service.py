"""Tables (DESIGN §9): the lobby, seats, moves, chat and rematch over the versioned store.

``Tables`` is the one object the adapters hold. Its operations live by concept: ``records``
(reading, credentials and the one write path every change goes through), ``lobby`` (creating,
listing and reading tables), ``seating`` (join, leave, rematch, tickets) and ``play`` (start,
moves of people and bots, timeouts, the end, chat).
"""

from __future__ import annotations

from manhattan.tables.play import Play
from manhattan.tables.seating import Seating


class Tables(Seating, Play):
    """The table operations; one per app, shared by REST, GraphQL and streams."""
