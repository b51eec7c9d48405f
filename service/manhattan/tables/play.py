"""The game at a table: starting it, moves of people and bots, timeouts, the end, and chat."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import manhattan
from manhattan import Move, wire
from manhattan.tables.errors import TableError
from manhattan.tables.lobby import Lobby
from manhattan.tables.model import CHAT_SIZE, Table
from manhattan.tables.names import check_text
from manhattan.tables.projection import (
    SPECTATOR,
    Receiver,
    move_answer,
    ranking_json,
    replayed_answer,
    stored_events,
)
from manhattan.tables.records import NoChange, now_ms
from manhattan.tables.tokens import Bearer

log = logging.getLogger("manhattan.tables")


def _answered(table: Table, sid: int, move_id: str, whole: bool) -> dict[str, Any] | None:
    """The answer seat ``sid`` got for its move ``move_id`` (``whole``, else its version
    only), None when it is not remembered."""
    found = table.remembered(sid, move_id)
    if found is None:
        return None
    if isinstance(found, dict):
        return found if whole else {"version": found["version"]}
    return replayed_answer(table, *found) if whole else {"version": found[0]}


class Stale(Exception):
    """A move's version is not the table's: answered with the table as the mover sees it."""

    def __init__(self, table: Table, version: int, receiver: Receiver) -> None:
        self.table, self.version, self.receiver = table, version, receiver


class Play(Lobby):
    async def start(
        self, table_id: str, bearer: Bearer | None, *, owner: str | None = None
    ) -> dict[str, Any]:
        """The host, anyone seated or (``owner``) the platform key that created the table."""
        if bearer is None and owner is None:
            raise TableError("NOT_SEATED", "start needs the host token or a seat token")

        def change(table: Table, version: int) -> Receiver:
            if bearer is None:
                if table.owner is None or table.owner != owner:
                    raise TableError("NOT_SEATED", "this key did not create this table")
                receiver = SPECTATOR
            else:
                receiver = self.check_bearer(table, bearer)  # host or a seated person
            self.begin(table, version)
            return receiver

        changed, receiver = await self.write(table_id, change)
        table = await self.view_for(changed.table, changed.version, receiver, key=owner)
        return {"table": table}

    async def move(
        self,
        table_id: str,
        bearer: Bearer | None,
        move_obj: object,
        version: object,
        move_id: object = None,
    ) -> dict[str, Any]:
        """``move_request`` from its fields (GraphQL's arguments)."""
        given = {"move": move_obj, "version": version, "moveId": move_id}
        body = {key: value for key, value in given.items() if value is not None}
        return await self.move_request(table_id, bearer, body)

    async def move_request(
        self, table_id: str, bearer: Bearer | None, body: object, *, whole: bool = True
    ) -> dict[str, Any]:
        """``POST .../moves`` with a ``wire.TableMoveRequest`` body: ``{"version", "view",
        "events"}`` for the mover (without ``whole``, ``{"version"}`` only: the table socket's
        mover has the rest from its push). A ``moveId`` seen before is answered as the first
        time, before the version is compared (DESIGN §9)."""
        if bearer is None or bearer.sid is None:
            raise TableError("NOT_SEATED", "a move needs a seat token")
        request = wire.read(body, wire.TableMoveRequest)
        sid, move_id = bearer.sid, request.move_id
        try:
            move = Move.from_wire(request.move)
        except manhattan.IllegalMoveError as exc:
            raise TableError(exc.code, exc.message) from None

        def change(table: Table, version: int) -> tuple[int, manhattan.State, int, list[Any]]:
            receiver = self.seated(table, bearer)
            if move_id is not None and (answer := _answered(table, sid, move_id, whole)):
                raise NoChange(answer)
            _check_playing(table)
            if request.version != version - 1:
                raise Stale(table, version - 1, receiver)
            player = table.player_of(sid)
            state = table.game()
            if state.to_move != player:
                raise TableError(
                    "NOT_YOUR_TURN", f"it is player {state.to_move}'s turn, not {player}'s"
                )
            assert player is not None
            try:
                transition = manhattan.play(state, move)
            except manhattan.IllegalMoveError as exc:
                raise TableError(exc.code, exc.message) from None
            table.seats[player].away = False
            events = self._apply(table, version, transition, bot=False)
            if move_id is not None:
                table.remember(sid, move_id, version)
            return version, transition.state, player, events

        try:
            changed, made = await self.write(table_id, change)
        except NoChange as again:
            answer = again.answer
            return answer  # type: ignore[no-any-return]
        except Stale as stale:
            current = await self.view_for(stale.table, stale.version, stale.receiver)
            message = f"the table is at version {stale.version}, not {request.version}"
            raise TableError("STALE_VERSION", message, table=current) from None
        await self._finish_if_over(changed.table, table_id)
        # The answer (the mover's view) is made now, not held while the write waits: a view is
        # some hundred objects, and a crowd of them waiting was most of what the garbage
        # collector walked.
        return move_answer(*made) if whole else {"version": made[0]}

    def _apply(
        self, table: Table, version: int, transition: manhattan.Transition, *, bot: bool
    ) -> list[list[Any]]:
        """Write a transition into ``table`` (state, record, deadline, event): its events as
        stored."""
        state = transition.state
        player = transition.move.player
        assert player is not None
        events = stored_events(transition)
        table.set_game(state)
        table.add_move(transition.move.notation)
        if state.is_over:
            table.status = "over"
            table.deadline = None
            table.bot_turn = False
        else:
            self._set_deadline(table, state)
        table.add_event(
            version,
            "move",
            {
                "player": player,
                "move": transition.move.to_json(),
                "events": events,
                "toMove": state.to_move,
                "deadline": table.deadline,
                "bot": bot,
            },
        )
        return events

    async def _finish_if_over(self, table: Table, table_id: str) -> None:
        if table.status == "over":
            await self.finish(table_id)

    async def finish(self, table_id: str) -> None:
        """The listeners of ends (``TableChanges.table_over``: a platform's ratings) hear of it,
        then the ``over`` event is written, its own version after the last move: whoever sees
        ``over`` (a stream, a webhook) finds the ratings counted. Both are idempotent (two
        replicas may both tell the watchers; one writes the event)."""
        ended, _ = await self.load(table_id)
        if ended.status != "over" or ended.has_event("over"):
            return
        await self.tell_over(ended)

        def change(table: Table, version: int) -> None:
            if table.status != "over" or table.has_event("over"):
                raise NoChange(None)
            table.add_event(version, "over", {"ranking": ranking_json(table)})

        with contextlib.suppress(NoChange):
            await self.write(table_id, change)

    async def bot_turn(self, table_id: str, expected: int, move: Move) -> bool:
        """A bot's move for the player to move at version ``expected`` (False: too late)."""

        def change(table: Table, version: int) -> None:
            if version - 1 != expected or table.status != "playing":
                raise NoChange(False)
            try:
                transition = manhattan.play(table.game(), move)
            except manhattan.IllegalMoveError:
                log.warning("a bot move was refused", extra={"table": table_id})
                raise NoChange(False) from None
            self._apply(table, version, transition, bot=True)

        try:
            changed, _ = await self.write(table_id, change)
        except NoChange:
            return False
        await self._finish_if_over(changed.table, table_id)
        return True

    async def time_out(self, table_id: str, expected: int) -> bool:
        """The person to move ran out of time: marked away, a bot plays this turn."""

        def change(table: Table, version: int) -> None:
            if (
                version - 1 != expected
                or table.status != "playing"
                or table.deadline is None
                or table.deadline > now_ms()
            ):
                raise NoChange(False)
            state = table.game()
            assert state.to_move is not None
            table.seats[state.to_move].away = True
            table.deadline = None
            table.bot_turn = True
            table.add_event(version, "timeout", {"player": state.to_move})

        try:
            await self.write(table_id, change)
        except NoChange:
            return False
        return True

    async def chat(self, table_id: str, bearer: Bearer | None, text: object) -> dict[str, Any]:
        """``chat_request`` from its text (GraphQL's argument)."""
        return await self.chat_request(table_id, bearer, {"text": text})

    async def chat_request(
        self, table_id: str, bearer: Bearer | None, body: object
    ) -> dict[str, Any]:
        """``POST .../chat`` with a ``wire.ChatRequest`` body."""
        text = wire.read(body, wire.ChatRequest).text.strip()
        check_text(text, "$.text", "a chat message")
        if not text:
            raise wire.WireError("INVALID_REQUEST", "'text' is not blank", path="$.text")
        window = int(self.settings.chat_window * 1000)
        burst = self.settings.chat_burst

        def change(table: Table, version: int) -> dict[str, Any]:
            receiver = self.seated(table, bearer)
            assert receiver.sid is not None
            seat = table.seat(receiver.sid)
            assert seat is not None
            now = now_ms()
            recent = [t for t in table.chat_times.get(receiver.sid, []) if t > now - window]
            if len(recent) >= burst:
                raise TableError(
                    "RATE_LIMITED",
                    f"at most {burst} messages in {self.settings.chat_window:g} s",
                )
            table.chat_times[receiver.sid] = [*recent, now]
            message = {
                "player": table.seats.index(seat),
                "name": seat.name,
                "text": text,
                "at": now,
            }
            table.chat.append(message)
            del table.chat[:-CHAT_SIZE]
            table.add_event(version, "chat", message)
            return message

        changed, message = await self.write(table_id, change)
        return {"version": changed.version, "message": message}


def _check_playing(table: Table) -> None:
    if table.status == "over":
        raise TableError("GAME_OVER", "the game is over (RULES §8)")
    if table.status != "playing":
        raise TableError("TABLE_NOT_PLAYING", "the game has not started")
