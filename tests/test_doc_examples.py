"""Every REST, GraphQL and Python example of the README and of the stateless API's tutorial
runs as written, against a live ``manhattan serve`` (``tests/doc_examples.py`` reads them)."""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.clients.conftest import CLIENT_SRC, start_server, stop_server
from tests.doc_examples import (
    ADJUDICATE,
    PLATFORM,
    README,
    ROOT,
    Latest,
    blocks,
    curl_request,
    curls,
    graphql_operations,
)

TRUST_MODEL = ROOT / "docs" / "explanation" / "trust-model.md"
#: The pages whose stateless examples run here: each group in order, its placeholders filled
#: from the answers before (the trust model's lines go on from the tutorial's game).
PAGES = ((README,), (ADJUDICATE, TRUST_MODEL))
#: Pages whose python blocks run here (the engine and the clients' examples).
PYTHON_PAGES = (README, ADJUDICATE, ROOT / "docs" / "reference" / "python-api.md", PLATFORM)


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    process, url = start_server()
    try:
        yield url
    finally:
        stop_server(process)


def test_the_pages_have_the_examples_this_test_runs() -> None:
    paths = {curl_request(words)[1].split("?")[0] for page in PAGES[1] for words in curls(page)}
    assert {"/v1/games", "/v1/apply", "/v1/suggest", "/v1/advance", "/v1/preview"} <= paths
    assert len(graphql_operations(ADJUDICATE)) >= 10
    assert any("manhattan_client" in block for block in blocks(ADJUDICATE, "python"))
    readme_paths = {curl_request(words)[1] for words in curls(README)}
    assert {"/v1/games", "/v1/legal-moves", "/v1/apply"} <= readme_paths
    assert graphql_operations(README) and any(
        "manhattan_client" in block for block in blocks(README, "python")
    )


@pytest.mark.parametrize("pages", PAGES, ids=lambda pages: pages[0].name)
def test_every_rest_example_answers(service: str, pages: tuple[Path, ...]) -> None:
    latest = Latest()
    with httpx.Client(base_url=service, timeout=30) as client:
        for words in (words for page in pages for words in curls(page)):
            method, path, headers, data = curl_request(words)
            body = None if data is None else latest.fill(data)
            headers = {k: latest.fill(v) for k, v in headers.items()}
            answer = client.request(method, latest.fill(path), headers=headers, content=body)
            assert answer.status_code < 300, (" ".join(words), answer.status_code, answer.text)
            latest.learn(answer.json())


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


@pytest.mark.parametrize("page", (README, ADJUDICATE), ids=lambda p: p.name)
def test_every_graphql_example_answers(service: str, page: Path) -> None:
    with httpx.Client(base_url=service, timeout=30) as client:
        game = client.post("/v1/games", json={"players": 4, "seed": "readme"}).json()
        state_id = game["stateId"]
        for operation in graphql_operations(page):
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


PYTHON_BLOCKS = [(page, i) for page in PYTHON_PAGES for i in range(len(blocks(page, "python")))]


@pytest.mark.parametrize(("page", "index"), PYTHON_BLOCKS, ids=lambda v: getattr(v, "name", v))
def test_every_python_example_runs(service: str, page: Path, index: int) -> None:
    code = blocks(page, "python")[index].replace("http://127.0.0.1:8000", service)
    if str(CLIENT_SRC) not in sys.path:
        sys.path.insert(0, str(CLIENT_SRC))
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, f"{page.name} python block {index}", "exec"), {})
