"""The platform tutorial's examples run as written, against a service with the tutorial's key."""

from __future__ import annotations

import pytest

from tests.doc_examples import PLATFORM, PLATFORM_SECTION, curl_request, curls
from tests.tables.conftest import LiveServer

pytestmark = pytest.mark.anyio


async def test_the_tutorial_platform_examples_answer() -> None:
    commands = curls(PLATFORM, PLATFORM_SECTION, "bash")
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
