"""Compiles the rules kernel with mypyc where it can; the same source runs interpreted otherwise.
Ships the web page inside the package.

``pip install .`` and ``pip install -e .`` build C extensions of the modules listed in
``service/manhattan/engine/build.py`` (KERNEL_MODULES) when mypyc, a C compiler and the Python
headers are there. Without them, or with MANHATTAN_PURE_PYTHON=1, the package installs as plain
Python and says so in one line. ``manhattan --version`` and ``/readyz`` tell which build runs.

A built package (a wheel, ``pip install .``, the Docker image) carries the web page served at
``/play`` as ``manhattan/web``, copied from its one source, ``clients/web/play``. An editable
install serves the checkout's directory itself (``settings.DEFAULT_WEB_DIR`` looks for both).
"""

from __future__ import annotations

import runpy
import shutil
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
BUILD = runpy.run_path(str(HERE / "service" / "manhattan" / "engine" / "build.py"))


def notice(reason: str) -> None:
    print(f"manhattan-rules: installing the pure-Python kernel ({reason})", file=sys.stderr)


def remove_compiled_modules() -> None:
    """A pure build removes the compiled modules an earlier editable build left in the source
    tree (Python would load them before the ``.py`` files)."""
    for name in BUILD["KERNEL_MODULES"]:
        source = Path("service", *name.split("."))
        for built in source.parent.glob(f"{source.name}.*"):
            if built.name.endswith(BUILD["EXTENSIONS"]):
                built.unlink()
    for shared in Path("service").glob("*__mypyc.*"):
        shared.unlink()


def kernel_extensions() -> list[Any]:
    reason = BUILD["missing_toolchain"]()
    if reason is not None:
        notice(reason)
        remove_compiled_modules()
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        notice("mypyc is not installed")
        return []
    paths = [
        str(Path("service", *name.split(".")).with_suffix(".py"))
        for name in BUILD["KERNEL_MODULES"]
    ]
    # The build's environment has the kernel's own types (pyproject.toml's build-system) but not
    # the web layers' (starlette, redis, ...), which a table move's compiled modules import:
    # there they are Any, which the project's strict checks (run by the suite on a full
    # install) would refuse in the modules mypyc reads beside them.
    relaxed = [
        "--ignore-missing-imports",
        "--allow-subclassing-any",
        "--no-warn-return-any",
        "--no-warn-unused-ignores",
    ]
    return list(mypycify([*relaxed, *paths], opt_level="3"))


class OptionalBuildExt(build_ext):
    """A failed compile falls back to the pure-Python package instead of failing the install."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # the compiler's own failure, whatever its class
            self._fall_back(exc)

    def _fall_back(self, exc: Exception) -> None:
        for ext in self.extensions:
            built = Path(self.get_ext_fullpath(ext.name))
            built.unlink(missing_ok=True)
        notice(f"the C build failed: {exc}")


#: The web page's one source, and where a built package carries it.
WEB_SOURCE = HERE / "clients" / "web" / "play"
WEB_PACKAGED = Path("manhattan", "web")


class BuildWithWebPage(build_py):
    """``build_py`` that also copies the web page into the built package (not in an editable
    build, which serves the checkout's own copy)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        if not (WEB_SOURCE / "index.html").is_file():
            raise RuntimeError(f"the web page is missing: {WEB_SOURCE} (clients/web/play)")
        target = Path(self.build_lib) / WEB_PACKAGED
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(WEB_SOURCE, target, ignore=shutil.ignore_patterns(".*", "__pycache__"))


setup(
    ext_modules=kernel_extensions(),
    cmdclass={"build_ext": OptionalBuildExt, "build_py": BuildWithWebPage},
)
