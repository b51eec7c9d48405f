"""One bot protocol: a registry of ``Bot`` classes, a ``BotChoice`` checked when it is made,
a ``Stop`` that ends a search whatever its budget, camelCase stats."""

from __future__ import annotations

import time

import pytest

import manhattan
from manhattan.bench.engine import mid_game_state
from manhattan.bots import BOTS, LEVELS, Bot, BotChoice, BotError, Stop, make_bot
from manhattan.cli import main

STATE = mid_game_state()
VIEW = manhattan.view(STATE, STATE.to_move or 0)


def test_every_level_is_a_bot_class_with_one_interface() -> None:
    assert LEVELS == ("random", "beginner", "greedy", "ismcts", "expert")
    for level, cls in BOTS.items():
        assert issubclass(cls, Bot) and cls.level == level
        bot = make_bot(BotChoice(level, seed=1, iterations=20))
        found = bot.suggest(VIEW)
        assert found.move in manhattan.legal_moves(STATE)
        assert set(found.stats) == {
            "level",
            "iterations",
            "timeMs",
            "seed",
            "legalMoves",
            "stoppedBy",
        }


@pytest.mark.parametrize(
    ("fields", "word"),
    [
        ({"level": "smart"}, "unknown bot level"),
        ({"level": "ismcts", "iterations": 0}, "iterations"),
        ({"level": "ismcts", "iterations": True}, "iterations"),
        ({"level": "ismcts", "time_ms": 60_001}, "timeMs"),
        ({"level": "greedy", "seed": "7"}, "seed"),
    ],
)
def test_a_bad_choice_is_refused_when_it_is_made(fields: dict[str, object], word: str) -> None:
    with pytest.raises(BotError) as caught:
        BotChoice(**fields)  # type: ignore[arg-type]
    assert caught.value.code == "INVALID_BOT" and word in caught.value.message


def test_a_choice_reads_back_in_the_wire_case() -> None:
    choice = BotChoice("ismcts", seed=4, time_ms=30)
    assert choice.to_json() == {"level": "ismcts", "seed": 4, "iterations": None, "timeMs": 30}
    assert not choice.reproducible and BotChoice("ismcts", iterations=5).reproducible
    assert BotChoice.from_json(choice.to_json()) == choice
    assert BotChoice.from_json("random") == BotChoice("random")
    assert BotChoice.from_json({"seed": None}) == BotChoice()
    for bad in ({"level": "ismcts", "budget": 5}, ["greedy"], {"level": 3}):
        with pytest.raises(BotError) as caught:
            BotChoice.from_json(bad)
        assert caught.value.code == "INVALID_BOT"


def test_a_deadline_stops_an_iteration_budget() -> None:
    bot = make_bot(BotChoice("ismcts", iterations=1_000_000))
    start = time.monotonic()
    found = bot.suggest(VIEW, Stop(deadline=time.monotonic() + 0.2))
    assert time.monotonic() - start < 5.0  # (a million iterations would take minutes)
    assert found.stats["stoppedBy"] == "deadline" and found.stats["iterations"] >= 1


def test_a_cancel_stops_a_search_after_its_first_iteration() -> None:
    bot = make_bot(BotChoice("ismcts", iterations=1_000_000))
    found = bot.suggest(VIEW, Stop(cancelled=lambda: True))
    assert found.stats["stoppedBy"] == "cancelled" and found.stats["iterations"] == 1


def test_play_with_an_unknown_bot_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["play", "--bot", "smart"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'smart'" in err and "Traceback" not in err
