"""Every REST, GraphQL and Python example of the README runs as written (issue 18).

The README's code blocks are parsed, not copied here: ``curl`` lines (``sh`` blocks) are sent
to a live ``manhattan serve`` in README order, GraphQL operations (``graphql`` blocks) are posted
to its ``/graphql``, and ``python`` blocks are executed (the client examples against the live
service). ``<stateId>``, ``<token>``, ``<gameId>`` and ``<state>`` stand for the values of the
latest answer that had them, as the README says.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.clients.conftest import CLIENT_SRC, start_server, stop_server

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def blocks(language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(README.read_text()) if lang == language]


TABLES_SECTION = "Tables: people playing one game together"


def section_blocks(language: str, section: str | None) -> list[str]:
    """``language`` blocks of the README's ``## section``, or (None) of every section but the
    Tables one."""
    parts = re.split(r"^## ", README.read_text(), flags=re.M)
    if section is None:
        chosen = [part for part in parts if not part.startswith(TABLES_SECTION)]
    else:
        chosen = [part for part in parts if part.startswith(section)]
    return [body for part in chosen for lang, body in FENCE.findall(part) if lang == language]


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    process, url = start_server()
    try:
        yield url
    finally:
        stop_server(process)


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


# -- REST: the curl lines ----------------------------------------------------------------------
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


CURLS = [words for block in blocks("sh") for words in shell_commands(block) if words[0] == "curl"]


def test_the_readme_has_the_examples_this_test_runs() -> None:
    paths = {curl_request(words)[1].split("?")[0] for words in CURLS}
    assert {"/v1/games", "/v1/apply", "/v1/suggest", "/v1/advance", "/v1/preview"} <= paths
    assert len(graphql_operations()) >= 10
    assert any("manhattan_client" in block for block in blocks("python"))


def test_every_rest_example_answers(service: str) -> None:
    latest = Latest()
    with httpx.Client(base_url=service, timeout=30) as client:
        for words in CURLS:
            method, path, headers, data = curl_request(words)
            body = None if data is None else latest.fill(data)
            headers = {k: latest.fill(v) for k, v in headers.items()}
            answer = client.request(method, latest.fill(path), headers=headers, content=body)
            assert answer.status_code < 300, (" ".join(words), answer.status_code, answer.text)
            latest.learn(answer.json())


# -- GraphQL -----------------------------------------------------------------------------------
def graphql_operations(section: str | None = None) -> list[str]:
    """Each top-level operation of the README's graphql blocks (comments dropped): those of the
    ``## section`` heading only, or (None) those outside the Tables section, whose operations
    need a table, a seat and its turn (``tests/tables/test_graphql.py`` runs them)."""
    out = []
    for block in section_blocks("graphql", section):
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


def rejections(value: Any) -> Iterator[Any]:
    """Typed failures in an answer (``MoveRejected``): an example must not be refused."""
    if isinstance(value, dict):
        if value.get("__typename") == "MoveRejected" or (
            {"code", "message"} <= set(value) and "legal" not in value
        ):
            yield value
        for item in value.values():
            yield from rejections(item)
    elif isinstance(value, list):
        for item in value:
            yield from rejections(item)


def test_every_graphql_example_answers(service: str) -> None:
    with httpx.Client(base_url=service, timeout=30) as client:
        game = client.post("/v1/games", json={"players": 4, "seed": "readme"}).json()
        state_id = game["stateId"]
        for operation in graphql_operations():
            variables: dict[str, Any] = {}
            for name, kind in re.findall(r"\$(\w+)\s*:\s*(\w+)!", operation):
                if kind == "StateRef":
                    variables[name] = {"id": state_id}
                elif kind == "JSON":
                    variables[name] = client.get(f"/v1/states/{state_id}").json()["state"]
                elif kind == "MoveInput":
                    moves = client.post("/v1/legal-moves", json={"state": {"id": state_id}})
                    variables[name] = {"notation": moves.json()["moves"][0]["notation"]}
                else:
                    raise AssertionError(f"no value for ${name}: {kind}")
            answer = client.post("/graphql", json={"query": operation, "variables": variables})
            body = answer.json()
            assert answer.status_code == 200 and not body.get("errors"), (operation, body)
            assert not list(rejections(body["data"])), (operation, body)
            found = re.search(r'"stateId":\s*"([0-9a-f]{32})"', json.dumps(body["data"]))
            if found:
                state_id = found.group(1)


# -- Python ------------------------------------------------------------------------------------
@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_every_python_example_runs(service: str, index: int) -> None:
    code = blocks("python")[index].replace("http://127.0.0.1:8000", service)
    if str(CLIENT_SRC) not in sys.path:
        sys.path.insert(0, str(CLIENT_SRC))
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, f"README.md python block {index}", "exec"), {})
