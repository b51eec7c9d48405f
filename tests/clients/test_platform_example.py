"""The README's platform example (clients/python/examples/club_platform.py) runs as written
against a live service: a rated table with a webhook, played by seat tokens, and its ratings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.platforms.served import Served

EXAMPLE = (
    Path(__file__).resolve().parents[2] / "clients" / "python" / "examples" / "club_platform.py"
)
SECRET = "club-secret-0000000001"


def test_the_platform_example_plays_a_rated_game_by_webhooks() -> None:
    with Served(api_keys=(f"club={SECRET}",), webhook_allow=("127.0.0.1/32",)) as served:
        client_src = str(EXAMPLE.parents[1] / "src")
        path = os.pathsep.join(filter(None, [client_src, os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "MANHATTAN_URL": served.url, "MANHATTAN_KEY": SECRET}
        env["PYTHONPATH"] = path
        done = subprocess.run(
            [sys.executable, str(EXAMPLE)], env=env, capture_output=True, text=True, timeout=240
        )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["link for Ann", "link for Bo"]
    assert all("/play/?table=" in line and "#seat=" in line for line in lines[:2])
    assert "every signature verified" in lines[2] and int(lines[2].split()[0]) >= 2
    places = [line for line in lines if line.startswith("place ")]
    names = {place.split(": ")[1].split(" with")[0] for place in places}
    assert len(places) == 3 and {"Ann", "Bo"} <= names
    ratings = [line for line in lines if line.startswith(("Ann:", "Bo:"))]
    assert len(ratings) == 2 and all("games 1)" in line for line in ratings)
