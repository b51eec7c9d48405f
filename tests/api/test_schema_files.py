"""The committed schema/schema.graphql and schema/openapi.json are what the code generates."""

from __future__ import annotations

from pathlib import Path

from manhattan.api.export import (
    GRAPHQL_FILE,
    OPENAPI_FILE,
    export_schemas,
    graphql_sdl,
    openapi_text,
)

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schema"
HINT = "schema drifted from the code: run `manhattan export-schema` and commit schema/"


def test_graphql_sdl_matches_the_code() -> None:
    assert (SCHEMA_DIR / GRAPHQL_FILE).read_text(encoding="utf-8") == graphql_sdl(), HINT


def test_openapi_matches_the_code() -> None:
    assert (SCHEMA_DIR / OPENAPI_FILE).read_text(encoding="utf-8") == openapi_text(), HINT


def test_export_writes_both_files(tmp_path: Path) -> None:
    written = export_schemas(tmp_path)
    assert [p.name for p in written] == [GRAPHQL_FILE, OPENAPI_FILE]
