"""A table as stored: one msgpack record under one key, rewritten whole by every change.

The record holds everything a change needs to decide (seats, the full state, the moves so far,
recent events for stream resumption, answers to recent move ids, chat and its rate limit), so
every change is one read and one compare-and-set, and no other key has to agree with it.
Bounded parts (the event log, remembered answers, chat) keep only their newest entries, which
keeps the record small enough to rewrite on every move. The big parts (the state, each move,
each event's data, each remembered answer) are stored as msgpack bytes inside the record, so
reading a table decodes only what the caller uses.
"""

from __future__ import annotations

import copyreg
import zlib
from dataclasses import dataclass, field
from typing import Any

import msgpack
import msgspec

from manhattan.engine.codec import state_from_msgpack, state_to_msgpack
from manhattan.engine.moves import Move
from manhattan.engine.pickling import reduce
from manhattan.engine.state import State
from manhattan.tables.event_log import EventLog, pack

#: Events kept for ``Last-Event-ID`` resumption; an older id is answered with a snapshot.
LOG_SIZE = 24
#: Move ids remembered per seat for idempotent retries, each with the version its move made and
#: the number of moves then (the answer itself is rebuilt from the record: ``remembered``). A
#: seat's client has one move in flight at a time (it needs a move's answer or push to play the
#: next), so its newest answer is the one retried; the others are margin. An older move id's
#: retry still carries its old version, so it is refused as ``STALE_VERSION``, never applied
#: twice.
ANSWERS_PER_SEAT = 4
CHAT_SIZE = 30

SEAT_KINDS = ("open", "human", "bot")
#: A table record's fields after its format number, in order (``Table.encode``); a field added
#: later goes at the end, and a record written before it gets the field's default.
RECORD_FIELDS = (
    "id",
    "name",
    "public",
    "turn_seconds",
    "setup",
    "seed",
    "status",
    "seats",
    "host_epoch",
    "state",
    "moves",
    "deadline",
    "bot_turn",
    "log",
    "answers",
    "chat",
    "chat_times",
    "rematch",
    "created",
    "updated",
    "owner",
    "rated",
)
#: Format 2 keeps each log entry packed and the moves as one text; format 1 (read still) kept
#: maps and a list. A service before format 2 refuses a record of format 2 (a clear error, not
#: a misread): replicas sharing a Redis upgrade with ``MANHATTAN_TABLE_RECORD_FORMAT=1`` until
#: none of the older version is left (``Table.encode``).
RECORD_FORMAT = 2
_SEATS = RECORD_FIELDS.index("seats")
_LOG = RECORD_FIELDS.index("log")
_MOVES = RECORD_FIELDS.index("moves")
STATUSES = ("waiting", "playing", "over")


@dataclass(slots=True, init=False)
class Seat:
    """A place at a table; each field's default is its constructor's."""

    #: Stable id of the place at the table (its index at creation); tokens name it, so they
    #: survive the renumbering of players at start.
    sid: int
    kind: str
    name: str | None
    #: BotChoice of a bot seat: {"level", "iterations"?, "timeMs"?}.
    bot: dict[str, Any] | None
    #: Bumped whenever the seat's person changes (join, leave): older seat tokens are revoked.
    epoch: int
    #: Ran out of time: a bot played for the person; cleared by their next move.
    away: bool
    #: The person left a started game; a bot plays the seat for the rest of it.
    left: bool
    #: A rematch keeps this seat for the person who sat in it at the old table
    #: (``"<old table id>:<old seat id>"``); an ordinary join never takes it.
    reserved: str | None
    #: The name of the person a rematch keeps this seat for (shown as ``keptFor``).
    kept_for: str | None
    #: A platform's player id (DESIGN §10): the seat was reserved for them at creation and is
    #: taken only with its seat token; shown to the owning key only.
    player_id: str | None

    def __init__(
        self,
        sid: int,
        kind: str = "open",
        name: str | None = None,
        bot: dict[str, Any] | None = None,
        epoch: int = 0,
        away: bool = False,
        left: bool = False,
        reserved: str | None = None,
        kept_for: str | None = None,
        player_id: str | None = None,
    ) -> None:
        # Written out: compiled, a native constructor; the dataclass's generated one is
        # interpreted, and a move's write copies every seat.
        self.sid = sid
        self.kind = kind
        self.name = name
        self.bot = bot
        self.epoch = epoch
        self.away = away
        self.left = left
        self.reserved = reserved
        self.kept_for = kept_for
        self.player_id = player_id

    def to_wire(self) -> list[Any]:
        return [
            self.sid,
            self.kind,
            self.name,
            self.bot,
            self.epoch,
            self.away,
            self.left,
            self.reserved,
            self.kept_for,
            self.player_id,
        ]

    def copy(self) -> Seat:
        """This seat, sharing nothing a change changes (its bot choice is a map). Its fields
        written out: a native call (``Seat(*self.to_wire())`` went through a list and a
        generic call, for every seat of every move's copy of the table)."""
        return Seat(
            self.sid,
            self.kind,
            self.name,
            None if self.bot is None else dict(self.bot),
            self.epoch,
            self.away,
            self.left,
            self.reserved,
            self.kept_for,
            self.player_id,
        )

    @classmethod
    def from_wire(cls, raw: list[Any]) -> Seat:
        return cls(*raw)  # an older record's seat (without the player id) keeps the default

    @property
    def kept(self) -> bool:
        """Kept for someone (a rematch's player, a platform's): no stranger may take it."""
        return self.reserved is not None or self.player_id is not None

    @property
    def bot_plays(self) -> bool:
        return self.kind == "bot" or self.left


@dataclass(slots=True, init=False)
class Table:
    """A table as stored; each field's default is its constructor's."""

    id: str
    name: str
    public: bool
    turn_seconds: int | None
    #: The setup as given (never a seed), without ``players``: the count is fixed at start.
    setup: dict[str, Any]
    #: Drawn by the service at creation; hidden until the game is over.
    seed: str
    status: str
    seats: list[Seat]
    host_epoch: int
    #: The full state (canonical msgpack) once started.
    state: bytes | None
    #: Every move applied, in order, as its notation (10 bytes, where its JSON was 80: the
    #: player and the block it took follow from replaying), the notations joined by line breaks:
    #: one object where a list was some 100 to decode and free for every change. An older
    #: record holds a list, of notations or of each move's JSON in msgpack. Add one with
    #: ``add_move``; read them with ``played`` and ``move_count``.
    moves: str | list[str | bytes]
    #: Epoch milliseconds by which the seat to move must act, or None.
    deadline: int | None
    #: The seat to move ran out of time: a bot plays this turn.
    bot_turn: bool
    #: Recent events, oldest first: {"v", "type", "data"} with data in full (msgpack bytes;
    #: projected on send), each kept packed (``event_log.py``).
    log: EventLog
    #: sid -> [[moveId, version, moves then], ...] newest last: the seat's own moves, whose
    #: answers ``remembered`` rebuilds (an older record: [[moveId, the answer's msgpack,
    #: compressed], ...]).
    answers: dict[int, list[list[Any]]]
    chat: list[dict[str, Any]]
    #: sid -> epoch ms of recent chat messages (rate limit).
    chat_times: dict[int, list[int]]
    #: The table created by ``rematch``, once there is one.
    rematch: str | None
    created: int
    updated: int
    #: The platform key's name that created the table (DESIGN §10), or None (anonymous).
    owner: str | None
    #: A platform's rated table: its end updates the owner's ratings of its players.
    rated: bool
    _game: State | None = field(repr=False, compare=False)

    def __init__(
        self,
        id: str,
        name: str,
        public: bool,
        turn_seconds: int | None,
        setup: dict[str, Any],
        seed: str,
        status: str = "waiting",
        seats: list[Seat] | None = None,
        host_epoch: int = 0,
        state: bytes | None = None,
        moves: str | list[str | bytes] = "",
        deadline: int | None = None,
        bot_turn: bool = False,
        log: EventLog | None = None,
        answers: dict[int, list[list[Any]]] | None = None,
        chat: list[dict[str, Any]] | None = None,
        chat_times: dict[int, list[int]] | None = None,
        rematch: str | None = None,
        created: int = 0,
        updated: int = 0,
        owner: str | None = None,
        rated: bool = False,
        _game: State | None = None,
    ) -> None:
        # Written out, as ``Seat``'s: a move's write starts from a copy of the table.
        self.id = id
        self.name = name
        self.public = public
        self.turn_seconds = turn_seconds
        self.setup = setup
        self.seed = seed
        self.status = status
        self.seats = [] if seats is None else seats
        self.host_epoch = host_epoch
        self.state = state
        self.moves = moves
        self.deadline = deadline
        self.bot_turn = bot_turn
        self.log = EventLog() if log is None else log
        self.answers = {} if answers is None else answers
        self.chat = [] if chat is None else chat
        self.chat_times = {} if chat_times is None else chat_times
        self.rematch = rematch
        self.created = created
        self.updated = updated
        self.owner = owner
        self.rated = rated
        self._game = _game

    # -- the game -------------------------------------------------------------------------
    def game(self) -> State:
        """The full state (decoded once per table object)."""
        if self._game is None:
            assert self.state is not None, "the game has not started"
            self._game = state_from_msgpack(self.state)
        return self._game

    def set_game(self, state: State) -> None:
        self._game = state
        self.state = state_to_msgpack(state)

    def played(self) -> list[Move]:
        """The moves applied so far, in order."""
        moves = self.moves.split("\n") if isinstance(self.moves, str) else self.moves
        return [
            Move.parse(m) if isinstance(m, str) else Move.from_json(msgpack.unpackb(m, raw=False))
            for m in moves
            if m
        ]

    def move_count(self) -> int:
        if isinstance(self.moves, str):
            return self.moves.count("\n") + 1 if self.moves else 0
        return len(self.moves)

    def add_move(self, notation: str) -> None:
        if isinstance(self.moves, str):
            self.moves = f"{self.moves}\n{notation}" if self.moves else notation
        else:
            self.moves.append(notation)

    def has_event(self, kind: str) -> bool:
        return any(e["type"] == kind for e in self.log)

    # -- encoding -------------------------------------------------------------------------
    def encode(self, record_format: int = RECORD_FORMAT) -> bytes:
        """The record: its format, then the fields in ``RECORD_FIELDS`` order. Format 1 (for a
        version before format 2 reading the same store) writes the log's entries as maps and
        the moves as a list."""
        values = [getattr(self, name) for name in RECORD_FIELDS]
        values[_SEATS] = [s.to_wire() for s in self.seats]
        values[_LOG] = msgspec.Raw(self.log.encoded)  # (the log's entries as they are)
        if record_format == 1:
            values[_LOG] = list(self.log)
            moves = self.moves
            values[_MOVES] = (
                (moves.split("\n") if moves else []) if isinstance(moves, str) else moves
            )
        return pack([record_format, *values])

    @classmethod
    def decode(cls, data: bytes) -> Table:
        """A record of format 1 or 2 (format 1's log entries are maps, its moves a list)."""
        raw = msgpack.unpackb(data, raw=False, strict_map_key=False)
        if not isinstance(raw, list) or not raw or raw[0] not in (1, RECORD_FORMAT):
            raise ValueError(f"not a table record of format 1 or {RECORD_FORMAT}")
        # Fields added later sit at the end: an older record has fewer and gets the defaults.
        values = dict(zip(RECORD_FIELDS, raw[1:], strict=False))
        values["seats"] = [Seat.from_wire(s) for s in values["seats"]]
        values["log"] = EventLog.from_wire(values["log"])
        moves = values["moves"]
        if isinstance(moves, list) and all(isinstance(move, str) for move in moves):
            values["moves"] = "\n".join(moves)  # (format 1's notations: one text from now on)
        values["answers"] = {int(k): v for k, v in values["answers"].items()}
        values["chat_times"] = {int(k): v for k, v in values["chat_times"].items()}
        values["rated"] = bool(values.get("rated", False))
        return cls(**values)

    def copy(self) -> Table:
        """A table to change, equal to this one and sharing nothing it could change (its
        decoded game is shared: a state is immutable). What ``decode(encode())`` would give,
        in a fifth of the time: a move's write starts from this process's last write of the
        table (``records.TableRecords.write``)."""
        moves = self.moves if isinstance(self.moves, str) else list(self.moves)
        return Table(
            self.id,
            self.name,
            self.public,
            self.turn_seconds,
            dict(self.setup),
            self.seed,
            self.status,
            [seat.copy() for seat in self.seats],
            self.host_epoch,
            self.state,
            moves,
            self.deadline,
            self.bot_turn,
            self.log.copy(),
            {sid: list(kept) for sid, kept in self.answers.items()},
            list(self.chat),
            {sid: list(times) for sid, times in self.chat_times.items()},
            self.rematch,
            self.created,
            self.updated,
            self.owner,
            self.rated,
            self._game,
        )

    # -- questions ------------------------------------------------------------------------
    def seat(self, sid: int) -> Seat | None:
        for seat in self.seats:
            if seat.sid == sid:
                return seat
        return None

    def player_of(self, sid: int) -> int | None:
        """The player index of seat ``sid`` once started (seats are players in order)."""
        if self.status == "waiting":
            return None
        for index, seat in enumerate(self.seats):
            if seat.sid == sid:
                return index
        return None

    def add_event(self, version: int, kind: str, data: dict[str, Any]) -> None:
        self.log.append(version, kind, pack(data), LOG_SIZE, data)

    def remember(self, sid: int, move_id: str, version: int) -> None:
        """Seat ``sid``'s move ``move_id`` made ``version``, the newest of ``self.moves``."""
        kept = self.answers.setdefault(sid, [])
        kept.append([move_id, version, self.move_count()])
        del kept[:-ANSWERS_PER_SEAT]

    def remembered(self, sid: int, move_id: str) -> tuple[int, int] | dict[str, Any] | None:
        """Seat ``sid``'s move ``move_id`` seen before: ``(version it made, moves then)``, or
        from a record written before answers were kept as numbers, the answer itself."""
        for kept in self.answers.get(sid, ()):  # (indexed: unpacking made a list an entry)
            if kept[0] != move_id:
                continue
            if len(kept) == 3:
                return kept[1], kept[2]
            found: dict[str, Any] = msgpack.unpackb(_inflated(kept[1]), raw=False)
            return found
        return None


def _inflated(answer: bytes) -> bytes:
    """An answer kept whole by an older record: its msgpack compressed with zlib, or older
    still, the msgpack itself (a map: its first byte is never zlib's 0x78)."""
    return zlib.decompress(answer) if answer[:1] == b"\x78" else answer


def event_data(entry: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = msgpack.unpackb(entry["data"], raw=False, strict_map_key=False)
    return data


# Compiled, a class with its own ``__init__`` runs it from ``__new__``: copies and pickles are
# made by calling the class with its fields (``engine/pickling.py``).
copyreg.pickle(Seat, reduce)
copyreg.pickle(Table, reduce)
