"""The code blocks of the README and the documentation's pages, read as the tests run them.

A page's examples are parsed, not copied into tests: ``curl`` lines of ``sh`` blocks are sent to
a live service in the page's order, GraphQL operations of ``graphql`` blocks are posted to its
``/graphql``, ``python`` blocks are executed. ``<stateId>``, ``<token>``, ``<gameId>`` and
``<state>`` stand for the values of the latest answer that had them, as the pages say.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
TUTORIALS = ROOT / "docs" / "tutorials"
#: Where the stateless API's walk-through lives (REST lines, GraphQL operations, Python).
ADJUDICATE = TUTORIALS / "adjudicate-from-a-script.md"
#: Where tables are shown from a frontend's side (the bash walk-through, GraphQL for tables).
FRONTEND = TUTORIALS / "build-a-frontend.md"
#: Where platforms are shown (reserved seats, a player's tables, ratings).
PLATFORM = TUTORIALS / "integrate-a-platform.md"
TABLES_WALKTHROUGH = "A table over HTTP, step by step"
TABLES_GRAPHQL = "Tables in GraphQL"
PLATFORM_SECTION = "Reserved seats, a player's tables, ratings"

FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def blocks(page: Path, language: str, section: str | None = None) -> list[str]:
    """``language`` blocks of ``page``, or of its ``## section`` only."""
    text = page.read_text(encoding="utf-8")
    if section is not None:
        parts = [p for p in re.split(r"^## ", text, flags=re.M) if p.startswith(section)]
        assert parts, f"{page.name} has no section '## {section}'"
        text = "\n".join(parts)
    return [body for lang, body in FENCE.findall(text) if lang == language]


class Latest:
    """The placeholders' values: those of the latest answer that had them."""

    KEYS = ("stateId", "token", "gameId", "state")

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def learn(self, answer: Any) -> None:
        if isinstance(answer, dict):
            for key in self.KEYS:
                if answer.get(key) is not None:
                    self.values[key] = answer[key]

    def fill(self, text: str) -> str:
        def value(match: re.Match[str]) -> str:
            key = match.group(1)
            assert key in self.values, f"<{key}> before any answer had one"
            found = self.values[key]
            return json.dumps(found) if key == "state" else str(found)

        return re.sub(r"<(stateId|token|gameId|state)>", value, text)


def shell_commands(block: str) -> Iterator[list[str]]:
    """The block's commands as argument lists: continuation lines joined, quotes across lines
    kept together, comments dropped, ``NAME='value'`` assignments substituted later on."""
    pending = ""
    variables: dict[str, str] = {}
    for line in block.splitlines():
        pending = f"{pending}\n{line}" if pending else line
        if pending.endswith("\\"):
            pending = pending[:-1]
            continue
        try:
            words = shlex.split(pending, comments=True)
        except ValueError:  # a quote still open: the command goes on
            continue
        pending = ""
        if not words:
            continue
        if len(words) == 1 and "=" in words[0] and words[0] != "curl":
            name, _, value = words[0].partition("=")
            variables[name] = value
            continue
        for name, value in variables.items():
            words = [w.replace(f"${name}", value) for w in words]
        yield words


def curls(page: Path, section: str | None = None, language: str = "sh") -> list[list[str]]:
    return [
        words
        for block in blocks(page, language, section)
        for words in shell_commands(block)
        if words[0] == "curl"
    ]


def curl_request(words: list[str]) -> tuple[str, str, dict[str, str], str | None]:
    assert words[0] == "curl", words
    headers: dict[str, str] = {}
    data = None
    url = ""
    i = 1
    while i < len(words):
        word = words[i]
        if word == "-s":
            pass
        elif word == "-H":
            i += 1
            name, _, value = words[i].partition(":")
            headers[name.strip()] = value.strip()
        elif word == "-d":
            i += 1
            data = words[i]
        else:
            url = word
        i += 1
    path = "/" + url.split("/", 1)[1]
    return ("POST" if data is not None else "GET"), path, headers, data


def graphql_operations(page: Path, section: str | None = None) -> list[str]:
    """Each top-level operation of the page's graphql blocks (comments dropped), or of its
    ``## section`` only."""
    out = []
    for block in blocks(page, "graphql", section):
        text = "\n".join(line for line in block.splitlines() if not line.lstrip().startswith("#"))
        depth = 0
        start = 0
        for i, char in enumerate(text):
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    out.append(text[start : i + 1].strip())
                    start = i + 1
    return out
