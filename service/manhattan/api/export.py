"""``manhattan export-schema``: the service's contract files, generated from the code.

``schema.graphql`` is the SDL of the strawberry schema; ``openapi.json`` is the REST document the
service serves at ``/openapi.json``. ``tests/api/test_schema_files.py`` fails when the committed
files drift from what this writes.
"""

from __future__ import annotations

import json
from pathlib import Path

from manhattan.api.graphql.schema import build_schema
from manhattan.api.rest.openapi import openapi_document

GRAPHQL_FILE = "schema.graphql"
OPENAPI_FILE = "openapi.json"


def graphql_sdl() -> str:
    return build_schema().as_str().rstrip() + "\n"


def openapi_text() -> str:
    return json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n"


def export_schemas(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in ((GRAPHQL_FILE, graphql_sdl()), (OPENAPI_FILE, openapi_text())):
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
