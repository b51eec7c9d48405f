"""A bot pool worker process (``manhattan.bot_pool``): ``python -m manhattan.bots.worker``.

It reads tasks from its stdin and answers on its stdout (``multiprocessing.connection`` frames:
a length, then a pickle), one at a time. A task is a ``Task``: the state as msgpack, the player,
the ``BotChoice`` whole and the deadline. The worker computes the player's view itself, so a bot
only ever sees a ``View`` (RULES §11), and stops at the deadline (``time.monotonic()``, the same
clock in every process) or as soon as anything more arrives on stdin while it works: the pool
writes a cancel there when the request is gone. It answers ``("ok", Suggestion)``,
``("refused", code, message)`` for a ``BotError``, or ``("failed", traceback)`` for anything else:
a bug, which the service logs and answers with a 500. It imports the engine and the bots only,
says ``"ready"`` once it has, and exits when its stdin closes (the service is gone).
"""

from __future__ import annotations

import os
import signal
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, NamedTuple

from manhattan.bots.choice import BotChoice
from manhattan.bots.errors import BotError
from manhattan.bots.protocol import Stop
from manhattan.bots.registry import make_bot
from manhattan.engine import State, view


class Task(NamedTuple):
    """One bot move to compute. The choice crosses the pipe whole, as the pickle the frames
    carry: it is not re-read against the wire's bounds there (``msgspec`` decoding would apply
    them), because code may build choices beyond them (``advance`` plays seed + k, a tournament
    runs longer budgets), and it was checked when it was made."""

    state: bytes  # msgpack
    player: int
    choice: BotChoice
    deadline: float  # time.monotonic()


CANCEL = "cancel"
READY = "ready"


def serve(tasks: Connection, answers: Connection) -> None:
    """Answer tasks until ``tasks`` closes or sends None; a cancel between tasks is dropped."""
    # Ctrl-C reaches the whole process group; the service shuts its workers down itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    answers.send(READY)  # imports done: tasks are answered from now on

    def cancelled() -> bool:
        return tasks.poll(0)

    while True:
        try:
            task = tasks.recv()
        except (EOFError, OSError):  # the service is gone
            return
        if task is None:
            return
        if task == CANCEL:  # arrived after the answer it meant to stop
            continue
        answers.send(run(task, cancelled))


def run(task: Task, cancelled: Callable[[], bool] | None = None) -> tuple[Any, ...]:
    """One task's answer (also callable in-process, for tests and tools)."""
    try:
        state = State.from_msgpack(task.state)
        bot = make_bot(task.choice)
        suggestion = bot.suggest(view(state, task.player), Stop(task.deadline, cancelled))
    except BotError as exc:
        return ("refused", exc.code, exc.message)
    except Exception:  # a bug: the service logs it with the request
        return ("failed", traceback.format_exc())
    return ("ok", suggestion)


def main() -> None:
    # Answers go on a private copy of stdout; fd 1 then points at stderr, so that a stray print
    # cannot corrupt the frames.
    answers = Connection(os.dup(1), readable=False)
    os.dup2(2, 1)
    serve(Connection(os.dup(0), writable=False), answers)


if __name__ == "__main__":
    main()
