"""The front page and the documentation site: the README stays short and starts with the two
set-up commands, the site builds with ``mkdocs build --strict`` (a broken link, a missing page or
a reference page the code cannot fill fails it), and neither speaks of its own making: no dates,
issue numbers, session times or machine loads (the changelog is where dated history belongs)."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
HOOKS = DOCS / "_hooks"

SETUP_COMMANDS = (
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/manhattan serve",
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest",
)

#: What a page about the product does not say: when or in which session it was made.
WORK_LOG = {
    "a date": re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),
    "an issue number": re.compile(r"\bissues? #?\d+|(?<![\w&/#])#\d+\b", re.IGNORECASE),
    "a session time": re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*-\s*\d{1,2}:\d{2})?\s*UTC\b"),
    "a machine load": re.compile(r"\bload averages?\b|\bat a load of\b", re.IGNORECASE),
}
#: A standard's number is not an issue's: a Unicode Technical Standard's ("UTS" or "TS", a hash,
#: the number).
STANDARD = re.compile(r"\bU?TS\s*$")
#: Pages that still carry such notes, each to leave this set when it is rewritten (the test
#: fails for a listed page that no longer has any).
NOT_YET_CLEAN: set[str] = set()


def documentation_files() -> list[Path]:
    files = [README, ROOT / "mkdocs.yml"]
    files += [p for p in DOCS.rglob("*") if p.suffix in {".md", ".py", ".yml"} and p.is_file()]
    return sorted(files)


#: Code whose comments and docstrings speak of the product the same way the pages do.
CODE_DIRS = (
    "service",
    "tests",
    "clients/web/play",
    "clients/python/src",
    "clients/typescript/src",
    "deploy",
)
JS_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
HASH_COMMENT = re.compile(r"(?:^|\s)(#[^\n]*)")


#: Third-party bundles and files generated from the schema, whose comments are not ours.
SKIPPED = {"node_modules", ".venv", "vendor", "generated"}


def code_files() -> list[Path]:
    suffixes = {".py", ".js", ".mjs", ".ts", ".yml", ".yaml"}
    files = []
    for folder in CODE_DIRS:
        for p in (ROOT / folder).rglob("*"):
            if not p.is_file() or SKIPPED.intersection(p.parts):
                continue
            if p.suffix in suffixes or p.name.startswith("Dockerfile"):
                files.append(p)
    return sorted(files)


def _python_comments(text: str) -> Iterator[str]:
    """Comments, and strings standing alone as statements (docstrings and the like)."""
    previous = tokenize.NEWLINE
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        standalone = previous in {tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT}
        if token.type == tokenize.COMMENT or (token.type == tokenize.STRING and standalone):
            yield token.string
        if token.type not in {tokenize.COMMENT, tokenize.NL}:
            previous = token.type


def code_comments(path: Path) -> Iterator[str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        yield from _python_comments(text)
    elif path.suffix in {".js", ".mjs", ".ts"}:
        yield from JS_COMMENT.findall(text)
    else:
        yield from HASH_COMMENT.findall(text)


def test_the_comment_reader_finds_comments_and_docstrings_only() -> None:
    source = '"""Made 2024-01-02."""\nx = "issue 9"  # issue 12\ndef f():\n    """At 9:30 UTC."""\n'
    assert list(_python_comments(source)) == [
        '"""Made 2024-01-02."""',
        "# issue 12",
        '"""At 9:30 UTC."""',
    ]
    assert JS_COMMENT.findall('a = "b"; // issue 3\n/* two\nlines */') == [
        "// issue 3",
        "/* two\nlines */",
    ]


@pytest.mark.parametrize("path", code_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_work_log_in_code_comments(path: Path) -> None:
    found = [
        f"{what}: {match.group(0)!r}"
        for comment in code_comments(path)
        for what, pattern in WORK_LOG.items()
        for match in pattern.finditer(comment)
    ]
    assert not found, f"{path.relative_to(ROOT)}: {found[:5]}"


def test_the_readme_is_short_and_starts_with_the_two_set_up_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    commands = re.findall(r"^```\w*\n(.*?)^```", text, re.S | re.M)
    assert [c.strip() for c in commands[:2]] == list(SETUP_COMMANDS)
    assert "MANHATTAN_PURE_PYTHON=1" in text.split("## Play with friends")[0]
    for heading in ("Play with friends", "The API at a glance", "Integrating a platform"):
        assert f"## {heading}" in text
    assert "/docs" in text and "/play/" in text


@pytest.mark.parametrize("path", documentation_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_work_log_in_the_readme_or_the_docs(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = [
        f"{what}: {match.group(0)!r}"
        for what, pattern in WORK_LOG.items()
        for match in pattern.finditer(text)
        if not STANDARD.search(text[: match.start()])
    ]
    name = str(path.relative_to(ROOT))
    if name in NOT_YET_CLEAN:
        assert found, f"{name} is clean now: take it out of NOT_YET_CLEAN"
    else:
        assert not found, f"{name}: {found[:5]}"


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rest = (site / "reference" / "rest" / "index.html").read_text(encoding="utf-8")
    assert "/v1/legal-moves" in rest and "/v1/tables/{id}/moves" in rest
    settings = (site / "reference" / "settings" / "index.html").read_text(encoding="utf-8")
    assert "MANHATTAN_DATA_DIR" in settings and "REDIS_URL" in settings
    codes = (site / "reference" / "error-codes" / "index.html").read_text(encoding="utf-8")
    assert "STALE_VERSION" in codes
    graphql = (site / "reference" / "graphql" / "index.html").read_text(encoding="utf-8")
    assert "applyMove" in graphql and "createTable" in graphql
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "manhattan bench tables" in cli
    python = (site / "reference" / "python-api" / "index.html").read_text(encoding="utf-8")
    assert "legal_moves" in python


def _hook_module(name: str):  # type: ignore[no-untyped-def]
    if str(HOOKS) not in sys.path:
        sys.path.insert(0, str(HOOKS))
    return __import__(name)


def test_a_code_or_setting_the_reference_cannot_explain_stops_the_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from manhattan.wire import codes

    pages = _hook_module("code_pages")
    monkeypatch.setitem(codes.HTTP_STATUS, "BRAND_NEW_CODE", 400)
    with pytest.raises(RuntimeError, match="BRAND_NEW_CODE"):
        pages.error_codes_page()
    monkeypatch.setattr(pages, "_field_comments", lambda: {})
    with pytest.raises(RuntimeError, match="host"):
        pages.settings_page()
