"""``manhattan serve``: the app under uvicorn, one worker, settings from the environment."""

from __future__ import annotations

import dataclasses

import uvicorn

from ..settings import Settings
from .app import create_app
from .request_log import configure_logging


def run(host: str | None, port: int | None) -> None:
    """Serve until interrupted; ``host`` and ``port`` override MANHATTAN_HOST/MANHATTAN_PORT."""
    settings = Settings.from_env()
    overrides = {k: v for k, v in (("host", host), ("port", port)) if v is not None}
    settings = dataclasses.replace(settings, **overrides)  # type: ignore[arg-type]
    configure_logging(settings.log_level)
    app = create_app(settings)
    uvicorn.run(
        app,
        host=settings.host,
        port=settings.port,
        workers=1,
        log_config=None,
        access_log=False,
        proxy_headers=False,
        server_header=False,
        timeout_keep_alive=30,
        timeout_graceful_shutdown=max(1, round(settings.graceful_timeout)),
    )
