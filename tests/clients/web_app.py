"""The service as the end-to-end test runs it: ``python -m tests.clients.web_app --port N``.
``create_app`` serves the web page at /play itself (from ``MANHATTAN_WEB_DIR``, by default the
checkout's clients/web/play)."""

from __future__ import annotations

import argparse

import uvicorn

from manhattan.api.app import create_app
from manhattan.settings import Settings


def build() -> object:
    return create_app(Settings(access_log=False))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(build(), host="127.0.0.1", port=args.port, log_level="warning")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
