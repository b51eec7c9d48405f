"""The committed schema/ files are generated from the code (`manhattan export-schema`)."""

from pathlib import Path

import jsonschema

from manhattan.engine import jsonschema as state_schema

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "schema"


def test_state_schema_matches_code() -> None:
    committed = (SCHEMA_DIR / state_schema.SCHEMA_FILE).read_text(encoding="utf-8")
    assert committed == state_schema.render(), "schema drifted: run `manhattan export-schema`"


def test_state_schema_is_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(state_schema.build_schema())
