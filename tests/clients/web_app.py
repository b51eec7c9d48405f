"""The service with the web page at /play, for the end-to-end test, until the API serves /play
itself: ``python -m tests.clients.web_app --port N``. When ``create_app`` already routes /play,
it is served as is."""

from __future__ import annotations

import argparse
from pathlib import Path

import uvicorn
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from manhattan.api.app import create_app
from manhattan.settings import Settings

WEB = Path(__file__).resolve().parents[2] / "clients" / "web" / "play"


def build() -> object:
    app = create_app(Settings(access_log=False))
    paths = {getattr(route, "path", None) for route in app.router.routes}
    if "/play" not in paths:
        app.router.routes.append(Mount("/play", StaticFiles(directory=WEB, html=True)))
    return app


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(build(), host="127.0.0.1", port=args.port, log_level="warning")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
