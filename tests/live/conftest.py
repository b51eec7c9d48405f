"""The live wing's tests run the app under a real uvicorn, as the tables' tests do: the same
fixtures (``tests/tables/conftest.py``)."""

from __future__ import annotations

from tests.tables.conftest import anyio_backend, live

__all__ = ["anyio_backend", "live"]
