"""``manhattan bench ladder``: a seeded schedule of games between the levels, rated in game order
with the platforms' OpenSkill model, written as the ladder document the service ships."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from manhattan.bench.ladder import LadderGame, rate, schedule
from manhattan.bots.ladder import Ladder
from manhattan.cli import main


def test_the_schedule_is_seeded_and_turns_through_the_player_counts() -> None:
    levels = ["random", "beginner", "greedy", "expert"]
    games = schedule(levels, 9, [2, 3, 4], "s")
    assert games == schedule(levels, 9, [2, 3, 4], "s")
    assert [len(g.levels) for g in games] == [2, 3, 4] * 3
    assert all(len(set(g.levels)) == len(g.levels) for g in games)
    assert schedule(levels, 9, [2, 3, 4], "t") != games


def test_a_level_that_always_wins_is_rated_first() -> None:
    levels = ["a", "b", "c"]
    results = [
        (LadderGame(i, ("c", "a", "b")[i % 3 :] + ("c", "a", "b")[: i % 3], "x"), (0, 0, 0))
        for i in range(12)
    ]
    placed = [(g, tuple(1 + "abc".index(level) for level in g.levels)) for g, _ in results]
    ratings, played = rate(levels, iter(placed))
    assert ratings["a"][0] > ratings["b"][0] > ratings["c"][0]
    assert played == {"a": 12, "b": 12, "c": 12}
    assert all(sigma < 25 / 3 for _, sigma in ratings.values())


def test_the_command_writes_the_ladder_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "ladder.json"
    argv = ["bench", "ladder", "--games", "3", "--levels", "random,beginner,greedy"]
    assert main([*argv, "--seed", "t", "--out", str(out)]) == 0
    ladder = msgspec.json.decode(out.read_bytes(), type=Ladder)
    assert ladder.games == 3 and ladder.seed == "t"
    assert ladder.command == (
        "manhattan bench ladder --games 3 --seed t --players 2 3 4 --levels random,beginner,greedy"
    )
    assert sorted(b.level for b in ladder.bots) == ["beginner", "greedy", "random"]
    assert sum(b.games for b in ladder.bots) == 2 + 3 + 3
    assert json.loads(out.read_text())["bots"][0]["ordinal"] == ladder.bots[0].ordinal
    assert "ladder written" in capsys.readouterr().out


@pytest.mark.parametrize(
    "bad", [["--levels", "random"], ["--levels", "random,smart"], ["--games", "0"]]
)
def test_bad_arguments_are_refused(bad: list[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "ladder", *bad, "--out", str(tmp_path / "x.json")])
