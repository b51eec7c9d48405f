"""A table as stored: one msgpack record under one key, rewritten whole by every change.

The record holds everything a change needs to decide (seats, the full state, the moves so far,
recent events for stream resumption, answers to recent move ids, chat and its rate limit), so
every change is one read and one compare-and-set, and no other key has to agree with it.
Bounded parts (the event log, remembered answers, chat) keep only their newest entries, which
keeps the record small enough to rewrite on every move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgpack

#: Events kept for ``Last-Event-ID`` resumption; an older id is answered with a snapshot.
LOG_SIZE = 24
#: Move ids remembered per seat (with their answers) for idempotent retries.
ANSWERS_PER_SEAT = 4
CHAT_SIZE = 30

SEAT_KINDS = ("open", "human", "bot")
STATUSES = ("waiting", "playing", "over")


@dataclass(slots=True)
class Seat:
    #: Stable id of the place at the table (its index at creation); tokens name it, so they
    #: survive the renumbering of players at start.
    sid: int
    kind: str = "open"
    name: str | None = None
    #: BotChoice of a bot seat: {"level", "iterations"?, "timeMs"?}.
    bot: dict[str, Any] | None = None
    #: Bumped whenever the seat's person changes (join, leave): older seat tokens are revoked.
    epoch: int = 0
    #: Ran out of time: a bot played for the person; cleared by their next move.
    away: bool = False
    #: The person left a started game; a bot plays the seat for the rest of it.
    left: bool = False

    def to_wire(self) -> list[Any]:
        return [self.sid, self.kind, self.name, self.bot, self.epoch, self.away, self.left]

    @classmethod
    def from_wire(cls, raw: list[Any]) -> Seat:
        return cls(*raw)

    @property
    def bot_plays(self) -> bool:
        return self.kind == "bot" or self.left


@dataclass(slots=True)
class Table:
    id: str
    name: str
    public: bool
    turn_seconds: int | None
    #: The setup as given (never a seed), without ``players``: the count is fixed at start.
    setup: dict[str, Any]
    #: Drawn by the service at creation; hidden until the game is over.
    seed: str
    status: str = "waiting"
    seats: list[Seat] = field(default_factory=list)
    host_epoch: int = 0
    #: The full state (its JSON object) once started.
    state: dict[str, Any] | None = None
    #: Every move applied, in order (each with ``player``): the record.
    moves: list[dict[str, Any]] = field(default_factory=list)
    #: Epoch milliseconds by which the seat to move must act, or None.
    deadline: int | None = None
    #: The seat to move ran out of time: a bot plays this turn.
    bot_turn: bool = False
    #: Recent events, oldest first: {"v", "type", "data"} with data in full (projected on send).
    log: list[dict[str, Any]] = field(default_factory=list)
    #: sid -> [[moveId, answer], ...] newest last; an answer is unprojected (the seat's own).
    answers: dict[int, list[list[Any]]] = field(default_factory=dict)
    chat: list[dict[str, Any]] = field(default_factory=list)
    #: sid -> epoch ms of recent chat messages (rate limit).
    chat_times: dict[int, list[int]] = field(default_factory=dict)
    #: The table created by ``rematch``, once there is one.
    rematch: str | None = None
    created: int = 0
    updated: int = 0

    # -- encoding -------------------------------------------------------------------------
    def encode(self) -> bytes:
        data: bytes = msgpack.packb(
            [
                1,
                self.id,
                self.name,
                self.public,
                self.turn_seconds,
                self.setup,
                self.seed,
                self.status,
                [s.to_wire() for s in self.seats],
                self.host_epoch,
                self.state,
                self.moves,
                self.deadline,
                self.bot_turn,
                self.log,
                self.answers,
                self.chat,
                self.chat_times,
                self.rematch,
                self.created,
                self.updated,
            ],
            use_bin_type=True,
        )
        return data

    @classmethod
    def decode(cls, data: bytes) -> Table:
        raw = msgpack.unpackb(data, raw=False, strict_map_key=False)
        if not isinstance(raw, list) or not raw or raw[0] != 1:
            raise ValueError("not a table record of format 1")
        (
            _,
            id_,
            name,
            public,
            turn_seconds,
            setup,
            seed,
            status,
            seats,
            host_epoch,
            state,
            moves,
            deadline,
            bot_turn,
            log,
            answers,
            chat,
            chat_times,
            rematch,
            created,
            updated,
        ) = raw
        return cls(
            id=id_,
            name=name,
            public=public,
            turn_seconds=turn_seconds,
            setup=setup,
            seed=seed,
            status=status,
            seats=[Seat.from_wire(s) for s in seats],
            host_epoch=host_epoch,
            state=state,
            moves=moves,
            deadline=deadline,
            bot_turn=bot_turn,
            log=log,
            answers={int(k): v for k, v in answers.items()},
            chat=chat,
            chat_times={int(k): v for k, v in chat_times.items()},
            rematch=rematch,
            created=created,
            updated=updated,
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
        self.log.append({"v": version, "type": kind, "data": data})
        del self.log[:-LOG_SIZE]

    def remember(self, sid: int, move_id: str, answer: dict[str, Any]) -> None:
        kept = self.answers.setdefault(sid, [])
        kept.append([move_id, answer])
        del kept[:-ANSWERS_PER_SEAT]

    def answer_for(self, sid: int, move_id: str) -> dict[str, Any] | None:
        for known, answer in self.answers.get(sid, ()):
            if known == move_id:
                found: dict[str, Any] = answer
                return found
        return None
