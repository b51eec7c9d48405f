"""The service as the end-to-end test runs it: ``python -m tests.clients.web_app --port N``.
``create_app`` serves the web page at /play itself (from ``MANHATTAN_WEB_DIR``, by default the
checkout's clients/web/play)."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace

import uvicorn

from manhattan.server.app import create_app
from manhattan.settings import Settings


def build() -> object:
    """The app with the default settings but for the page's directory, which
    ``MANHATTAN_WEB_DIR`` may name (a built or patched copy of clients/web/play), the data
    directory, which ``MANHATTAN_DATA_DIR`` may name (tables kept across a restart; in memory
    otherwise), the origins that may frame the page, ``MANHATTAN_EMBED_ORIGINS``, and the table
    streams' heartbeat, ``MANHATTAN_TABLE_HEARTBEAT_SECONDS``."""
    settings = Settings(access_log=False)
    if web_dir := os.environ.get("MANHATTAN_WEB_DIR"):
        settings = replace(settings, web_dir=web_dir)
    if data_dir := os.environ.get("MANHATTAN_DATA_DIR"):
        settings = replace(settings, data_dir=data_dir)
    if origins := os.environ.get("MANHATTAN_EMBED_ORIGINS"):
        read = Settings.from_env({"MANHATTAN_EMBED_ORIGINS": origins})
        settings = replace(settings, embed_origins=read.embed_origins)
    if heartbeat := os.environ.get("MANHATTAN_TABLE_HEARTBEAT_SECONDS"):
        settings = replace(settings, table_heartbeat_seconds=float(heartbeat))
    return create_app(settings)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(build(), host="127.0.0.1", port=args.port, log_level="warning")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
