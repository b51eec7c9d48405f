"""The `manhattan` command's engine-side subcommands."""

import pytest

from manhattan.cli import main


def test_random_game_prints_a_ranking(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["random-game", "--players", "3", "--seed", "t"]) == 0
    out = capsys.readouterr().out
    assert "round 6:" in out and "place 1:" in out


def test_random_game_reports_bad_setup(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["random-game", "--players", "5"]) == 2
    assert "INVALID_SETUP" in capsys.readouterr().err


def test_bench_engine_runs_briefly(capsys: pytest.CaptureFixture[str]) -> None:
    main(["bench", "engine", "--runs", "1", "--seconds", "0.05"])
    out = capsys.readouterr().out
    for figure in ("legal_moves_us", "apply_move_us", "public_games_per_s", "fast_games_per_s"):
        assert figure in out


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("MANHATTAN_TOKEN_KEY", "garbage"),
        ("MANHATTAN_TOKEN_OLD_KEYS", "k1:x"),
        ("MANHATTAN_PORT", "x"),
    ],
)
def test_serve_reports_a_bad_setting_by_name(
    variable: str, value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(variable, value)
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error INVALID_SETTINGS:") and variable in err
    assert "Traceback" not in err


def test_help_lists_each_command_on_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    commands = ("serve", "random-game", "bench", "play", "tournament", "export-schema")
    lines = out.splitlines()
    for command in commands:
        (line,) = [row for row in lines if row.split()[:1] == [command]]
        assert len(line.split(maxsplit=1)) == 2, line  # its name and what it does, one line
        following = lines[lines.index(line) + 1]
        assert following.split()[:1] in ([], *[[c] for c in commands]), following
    assert "{serve" not in out  # no list of names in braces
    assert "/play/" in out  # where a newcomer goes first
