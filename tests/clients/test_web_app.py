"""The server the browser test starts (tests/clients/web_app.py) serves the page from
``MANHATTAN_WEB_DIR`` when it is set, and from the checkout's clients/web/play otherwise."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.clients import web_app
from tests.clients.asgi_sync import SyncASGITransport


def _page() -> httpx.Response:
    with httpx.Client(transport=SyncASGITransport(web_app.build()), base_url="http://t") as c:
        return c.get("/play/")


def test_the_page_comes_from_manhattan_web_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><title>a patched page</title>")
    monkeypatch.setenv("MANHATTAN_WEB_DIR", str(tmp_path))
    page = _page()
    assert page.status_code == 200 and "a patched page" in page.text


def test_without_it_the_checkouts_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MANHATTAN_WEB_DIR", raising=False)
    page = _page()
    assert page.status_code == 200 and 'src="app.js"' in page.text
