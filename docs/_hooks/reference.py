"""MkDocs hook: the reference pages, generated from the code and the schema at every build.

Each page below is drawn from the one place its facts live, so the site cannot say what the
code does not: the REST API from ``schema/openapi.json``, GraphQL from
``schema/schema.graphql``, the settings from ``manhattan.settings.Settings``, the error codes
from ``manhattan.wire.codes``, the state and move formats from ``schema/state.schema.json`` and
the notation's grammar in ``manhattan.engine.moves``, the command line from its parsers. A fact
the code lacks (a setting or a code without its sentence) stops the build with its name.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # MkDocs loads a hook by its path; its siblings come along
    sys.path.insert(0, str(HERE))

from code_pages import cli_page, error_codes_page, settings_page  # noqa: E402
from graphql_page import graphql_page  # noqa: E402
from schema_pages import formats_page, rest_page  # noqa: E402
from mkdocs.structure.files import File, Files  # noqa: E402

ROOT = HERE.parents[1]
SCHEMA = ROOT / "schema"

#: Generated page -> the function that writes it.
PAGES = {
    "reference/rest.md": lambda: rest_page(SCHEMA / "openapi.json"),
    "reference/graphql.md": lambda: graphql_page(SCHEMA / "schema.graphql"),
    "reference/settings.md": settings_page,
    "reference/error-codes.md": error_codes_page,
    "reference/formats.md": lambda: formats_page(SCHEMA / "state.schema.json"),
    "reference/cli.md": cli_page,
}


def on_files(files: Files, config: Any) -> Files:
    for uri, write in PAGES.items():
        files.append(File.generated(config, uri, content=write()))
    return files
