"""Tables (DESIGN §9): the lobby, seats, moves, chat and rematch over the versioned store.

``Tables`` is the one object the adapters hold. It is made of four parts, each its own object
given to the next through its constructor: ``records`` (``TableRecords``: reading, credentials
and the one write path every change goes through), ``lobby`` (``Lobby``: creating, listing and
reading tables), ``seating`` (``Seating``: join, leave, rematch, tickets) and ``play``
(``Play``: start, moves of people and bots, timeouts, the end, chat). ``Tables`` only hands each
operation to the part that does it.
"""

from __future__ import annotations

from manhattan.sealing import Sealer
from manhattan.store.cas import VersionedStore
from manhattan.tables.changes import TableChanges
from manhattan.tables.lobby import Lobby
from manhattan.tables.play import Play
from manhattan.tables.records import TableRecords, TableSettings
from manhattan.tables.seating import Seating


class Tables:
    """The table operations; one per app, shared by REST, GraphQL and streams."""

    def __init__(
        self,
        store: VersionedStore,
        sealer: Sealer,
        settings: TableSettings,
        changes: TableChanges,
    ) -> None:
        self.records = records = TableRecords(store, sealer, settings, changes)
        self.lobby = lobby = Lobby(records)
        self.seating = seating = Seating(records, lobby)
        self.play = play = Play(records, lobby)
        self.store, self.sealer, self.settings = store, sealer, settings
        self.changes, self.lobby_index = changes, records.lobby_index
        # records: reading, credentials, the one write path
        self.load, self.view_for, self.write = records.load, records.view_for, records.write
        self.connected, self.mark_connected = records.connected, records.mark_connected
        self.authenticate, self.check_bearer = records.authenticate, records.check_bearer
        self.seated, self.recent, self.changed = records.seated, records.recent, records.changed
        self.insert, self.tell_over, self.writing = (
            records.insert,
            records.tell_over,
            records.writing,
        )
        # lobby: creating, listing and reading tables
        self.create, self.new_table, self.page = lobby.create, lobby.new_table, lobby.page
        self.list_public, self.get, self.record = lobby.list_public, lobby.get, lobby.record
        self.seat_view, self.history = lobby.seat_view, lobby.history
        # seating: seats, the rematch, tickets
        self.join, self.leave, self.rematch = seating.join, seating.leave, seating.rematch
        self.ticket, self.open_ticket = seating.ticket, seating.open_ticket
        # play: the game
        self.start, self.move, self.move_request = play.start, play.move, play.move_request
        self.finish, self.bot_turn, self.time_out = play.finish, play.bot_turn, play.time_out
        self.chat, self.chat_request = play.chat, play.chat_request
