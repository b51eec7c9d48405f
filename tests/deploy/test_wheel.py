"""The web page in every install: a wheel built from this checkout, installed in a fresh
virtualenv with no network, serves ``/play/`` and every script it loads, and the REST reference
at ``/docs``, from an empty working directory far from any checkout, and says so when ready.

The wheel is built from a copy of what the Dockerfile copies (``pyproject.toml``, ``setup.py``,
``MANIFEST.in``, ``README.md``, ``service/`` and ``clients/web/play``), pure Python for speed,
with this environment's build backend. Its dependencies come from this environment too: a
``.pth`` line puts this environment's site-packages after the new one's (a plain path, so none
of its own ``.pth`` hooks, the editable install's among them, runs there).
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import venv
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import httpx
import pytest

from tests.clients.conftest import on_a_free_port, stop_server

ROOT = Path(__file__).resolve().parents[2]
#: What a build needs: the Dockerfile's COPY lines name the same.
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "service", "clients/web/play")
IMPORTS = re.compile(r"""(?:from|import)\s*["'](\.{1,2}/[^"']+)["']""")


def build_wheel(into: Path) -> Path:
    source = into / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.c", "*.egg-info", "web")
    for name in SOURCES:
        path = ROOT / name
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=ignore)
        else:
            shutil.copy2(path, source / name)
    wheels = into / "wheels"
    build = ["wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(wheels)]
    subprocess.run(
        [sys.executable, "-m", "pip", *build, str(source)],
        env={**os.environ, "MANHATTAN_PURE_PYTHON": "1", "PIP_NO_INDEX": "1"},
        check=True,
        capture_output=True,
        timeout=120,
    )
    (wheel,) = wheels.glob("manhattan_rules-*.whl")
    return wheel


def fresh_environment(into: Path, wheel: Path) -> Path:
    """A virtualenv with the wheel installed and this environment's packages behind it."""
    home = into / "venv"
    venv.EnvBuilder(with_pip=False).create(home)
    python = home / "bin" / "python"
    install = ["--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)]
    subprocess.run(
        [sys.executable, "-m", "pip", *install],
        check=True,
        capture_output=True,
        timeout=120,
    )
    found = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    )
    ours = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(found.stdout.strip()) / "zz-dependencies.pth").write_text("\n".join(ours) + "\n")
    return home


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    return fresh_environment(work, build_wheel(work))


class Served(NamedTuple):
    url: str
    #: What ``manhattan serve`` printed for the person who started it.
    ready: str
    directory: Path


@pytest.fixture(scope="module")
def served(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    empty = tmp_path_factory.mktemp("empty")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MANHATTAN_", "PYTHON"))}

    def launch(port: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [str(installed / "bin" / "manhattan"), "serve", "--port", str(port)],
            cwd=empty,
            env={**env, "MANHATTAN_ACCESS_LOG": "false"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    process, url = on_a_free_port(launch)
    try:
        assert process.stdout is not None
        yield Served(url, process.stdout.readline().decode(), empty)
    finally:
        stop_server(process)
        if process.stdout:
            process.stdout.close()


def test_the_installed_package_is_the_wheel_not_this_checkout(installed: Path) -> None:
    found = subprocess.run(
        [str(installed / "bin" / "python"), "-c", "import manhattan; print(manhattan.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        cwd=installed,
    ).stdout
    assert Path(found.strip()).is_relative_to(installed), found
    page = next(installed.glob("lib/python*/site-packages/manhattan/web/index.html"))
    assert page.read_bytes() == (ROOT / "clients/web/play/index.html").read_bytes()


def test_the_first_run_says_where_to_go_and_keeps_its_data_where_it_was_started(
    served: Served,
) -> None:
    assert served.ready.startswith(f"manhattan is ready on {served.url}:"), served.ready
    assert f"{served.url}/play/" in served.ready and f"{served.url}/docs" in served.ready
    assert str((served.directory / "manhattan-data").resolve()) in served.ready
    assert (served.directory / "manhattan-data").is_dir()


def test_the_rest_reference_is_served_from_the_package(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=10) as client:
        page = client.get("/docs", headers={"accept": "text/html"})
        assert page.status_code == 200
        for path in re.findall(r'(?:src|href)="(/static/swagger-ui/[^"]+)"', page.text):
            assert client.get(path).status_code == 200, path


def test_the_page_and_every_script_it_loads_are_served(served: Served) -> None:
    """The page, then each script and style it names and each module those import."""
    with httpx.Client(base_url=served.url, timeout=10) as client:
        page = client.get("/play/", headers={"accept": "text/html"})
        assert page.status_code == 200 and "<html" in page.text.lower()
        assert "script-src 'self'" in page.headers["content-security-policy"]
        pending = re.findall(r"""(?:src|href)="(?:\./)?([^"#?:]+\.(?:js|css))\"""", page.text)
        assert "app.js" in pending, pending
        seen: set[str] = set()
        while pending:
            name = pending.pop()
            if name in seen:
                continue
            seen.add(name)
            answer = client.get(f"/play/{name}")
            assert answer.status_code == 200, name
            if name.endswith(".js"):
                base = name.rsplit("/", 1)[0] + "/" if "/" in name else ""
                for found in IMPORTS.findall(answer.text):
                    pending.append(os.path.normpath(base + found))
    page_dir = ROOT / "clients" / "web" / "play"
    with httpx.Client(base_url=served.url, timeout=10) as client:
        for path in sorted(p for p in page_dir.rglob("*") if p.is_file()):
            name = path.relative_to(page_dir).as_posix()
            answer = client.get(f"/play/{name}")
            assert answer.status_code == 200 and answer.content == path.read_bytes(), name
