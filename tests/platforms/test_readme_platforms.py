"""The README's Platforms examples run as written, against a service with the README's key."""

from __future__ import annotations

import pytest

from tests.tables.conftest import LiveServer
from tests.test_readme_examples import curl_request, section_blocks, shell_commands

pytestmark = pytest.mark.anyio

SECTION = "Platforms: keys, reserved seats, my tables, ratings"


async def test_the_readme_platform_examples_answer() -> None:
    commands = [
        words for block in section_blocks("bash", SECTION) for words in shell_commands(block)
    ]
    assert len(commands) == 3
    answers = []
    key = ("club=club-secret-0000000001",)
    async with LiveServer(api_keys=key) as live, live.client() as client:
        for words in commands:
            method, path, headers, data = curl_request(words)
            answer = await client.request(method, path, headers=headers, content=data)
            assert answer.status_code < 300, (words, answer.text)
            answers.append(answer.json())
    created, mine, ratings = answers
    assert created["table"]["status"] == "playing"
    assert [t["id"] for t in created["seatTokens"]] == ["u17", "u42"]
    assert [t["tableId"] for t in mine["tables"]] == [created["tableId"]]
    assert ratings == {"ratings": [], "next": None}
