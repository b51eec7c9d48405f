"""deploy/Dockerfile, checked statically (no Docker engine is needed or assumed)."""

from __future__ import annotations

import fnmatch
from typing import Any

import pytest
import uvicorn

from manhattan import cli
from manhattan.engine.build import COMPILED
from manhattan.server import request_log, serve
from tests.deploy.deploy_files import (
    COMPOSE_FILE,
    DEPLOY,
    DOCKERFILE,
    REPO,
    dockerfile_instructions,
    final_stage,
    k8s_object,
    load_yaml_documents,
    shell_words,
)

INSTRUCTIONS = dockerfile_instructions()
RUNTIME = final_stage(INSTRUCTIONS)
#: Seconds a replica may take to finish in-flight requests after SIGTERM.
DRAIN_BUDGET_SECONDS = 20


def one(keyword: str) -> str:
    found = [i.arguments for i in RUNTIME if i.keyword == keyword]
    assert len(found) == 1, f"the runtime stage needs exactly one {keyword}, has {len(found)}"
    return found[0]


def service_command() -> list[str]:
    [cmd] = [i for i in RUNTIME if i.keyword == "CMD"]
    return cmd.exec_form()  # exec form: the service is PID 1 and receives SIGTERM itself


def image_environment() -> dict[str, str]:
    environment: dict[str, str] = {}
    for instruction in RUNTIME:
        if instruction.keyword == "ENV":
            for word in shell_words(instruction.arguments):
                name, _, value = word.partition("=")
                environment[name] = value
    return environment


def served_with(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """What ``manhattan serve`` in the image configures uvicorn with, captured instead of
    serving."""
    for name, value in image_environment().items():
        if name.startswith("MANHATTAN_"):
            monkeypatch.setenv(name, value)
    # The image's /data is the container's volume; here the tables stay in memory.
    monkeypatch.setenv("MANHATTAN_DATA_DIR", ":memory:")
    captured: dict[str, Any] = {}

    def fake_run(server: uvicorn.Server, sockets: object = None) -> None:
        captured.update(vars(server.config))
        server.started = True  # as a server that listened and stopped

    monkeypatch.setattr(uvicorn.Server, "run", fake_run)
    monkeypatch.setattr(request_log, "configure_logging", lambda level: None)
    monkeypatch.setattr(serve, "configure_logging", lambda level: None)
    assert cli.main(service_command()[1:]) == 0
    return captured


def test_runtime_stage_runs_as_a_numeric_non_root_user() -> None:
    user = one("USER").split(":")[0]
    assert user.isdigit() and int(user) != 0, "a numeric uid lets Kubernetes check runAsNonRoot"


def test_runtime_stage_is_slim_and_multi_stage() -> None:
    assert max(i.stage for i in INSTRUCTIONS) >= 1, "build in one stage, run in another"
    image = next(i for i in INSTRUCTIONS if i.keyword == "ARG" and "PYTHON_IMAGE" in i.arguments)
    assert "slim" in image.arguments
    assert not any(i.keyword == "RUN" and "apt-get install" in i.arguments for i in RUNTIME)


def test_healthcheck_probes_healthz_with_a_timeout() -> None:
    [check] = [i for i in RUNTIME if i.keyword == "HEALTHCHECK"]
    flags = check.flags()
    assert {"interval", "timeout", "retries"} <= set(flags)
    probe = " ".join(check.exec_form())
    assert "/healthz" in probe and "timeout=" in probe


def test_command_is_manhattan_serve_on_the_exposed_port(monkeypatch: pytest.MonkeyPatch) -> None:
    command = service_command()
    assert command[:2] == ["manhattan", "serve"]
    options = served_with(monkeypatch)
    assert options["host"] == "0.0.0.0", "reachable from outside the container"
    assert str(options["port"]) in one("EXPOSE").split()
    assert options["workers"] == 1, "scale with replicas; one worker per container"
    assert one("STOPSIGNAL") == "SIGTERM"


def test_serve_bounds_the_graceful_drain(monkeypatch: pytest.MonkeyPatch) -> None:
    graceful = served_with(monkeypatch).get("timeout_graceful_shutdown")
    assert isinstance(graceful, int | float) and 0 < graceful <= DRAIN_BUDGET_SECONDS


def test_grace_periods_cover_the_pre_stop_delay_and_the_drain() -> None:
    [compose] = load_yaml_documents(COMPOSE_FILE)
    compose_grace = compose["services"]["manhattan"]["stop_grace_period"]
    assert compose_grace.endswith("s") and int(compose_grace[:-1]) >= DRAIN_BUDGET_SECONDS
    pod = k8s_object("Deployment", "manhattan")["spec"]["template"]["spec"]
    pre_stop = pod["containers"][0]["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    assert pod["terminationGracePeriodSeconds"] >= int(pre_stop[1]) + DRAIN_BUDGET_SECONDS


def test_copied_sources_exist_and_survive_the_dockerignore() -> None:
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
    patterns = [p.strip() for p in ignore if p.strip() and not p.startswith("#")]

    def ignored(path: str) -> bool:
        verdict = False
        for pattern in patterns:
            negated = pattern.startswith("!")
            glob = pattern.lstrip("!")
            if fnmatch.fnmatch(path, glob) or fnmatch.fnmatch(path, glob.rstrip("/*") + "/*"):
                verdict = not negated
        return verdict

    copies = [i for i in INSTRUCTIONS if i.keyword == "COPY" and "--from" not in i.arguments]
    assert copies
    for copy in copies:
        *sources, _destination = copy.arguments.split()
        for source in sources:
            path = REPO / source
            assert path.exists(), f"COPY {source}: not in the repository"
            files = [path] if path.is_file() else [f for f in path.rglob("*") if f.is_file()]
            sent = [f for f in files if not ignored(f.relative_to(REPO).as_posix())]
            assert sent, f"COPY {source}: excluded by Dockerfile.dockerignore"
    for needed in ("service/manhattan/engine/state.py", "service/manhattan/__init__.py"):
        assert not ignored(needed), f"{needed} would be missing from the image"
    assert ignored("tests/test_cli.py") and ignored(".venv/bin/python")


def test_dockerfile_is_where_compose_expects_it() -> None:
    assert DOCKERFILE.is_file()


def test_healthcheck_command_passes_on_200_and_fails_otherwise() -> None:
    import http.server
    import subprocess
    import sys
    import threading

    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/healthz" else 404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    [check] = [i for i in RUNTIME if i.keyword == "HEALTHCHECK"]
    command = check.exec_form()
    assert command[0] == "python"
    server = http.server.HTTPServer(("127.0.0.1", 0), Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = str(server.server_address[1])
        passed = subprocess.run(
            [sys.executable, *command[1:]], env={"MANHATTAN_PORT": port}, timeout=10
        )
        assert passed.returncode == 0
    finally:
        server.shutdown()
        server.server_close()
    failed = subprocess.run(
        [sys.executable, *command[1:]],
        env={"MANHATTAN_PORT": port},
        capture_output=True,
        timeout=10,
    )
    assert failed.returncode != 0, "a stopped service must fail the healthcheck"


def test_the_image_builds_the_compiled_kernel() -> None:
    """Issue 27: the build stage has a C compiler and stops if the kernel fell back to pure
    Python; setup.py (which compiles it) is in the build context."""
    build = [i for i in INSTRUCTIONS if i.stage < max(i.stage for i in INSTRUCTIONS)]
    runs = " ".join(i.arguments for i in build if i.keyword == "RUN")
    assert "apt-get install" in runs and " gcc " in f"{runs} "
    assert f'manhattan --version | grep -F "rules kernel {COMPILED}"' in runs
    copied = " ".join(i.arguments for i in build if i.keyword == "COPY")
    assert "setup.py" in copied.split()
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
    assert "!setup.py" in ignore and "**/*.so" in ignore


def test_the_embedded_store_has_a_writable_volume() -> None:
    """Without Redis the service keeps its tables in MANHATTAN_DATA_DIR: the image points it at
    a directory the service user owns, declared a volume, since the working directory is not
    writable."""
    text = DOCKERFILE.read_text()
    assert "MANHATTAN_DATA_DIR=/data" in text
    assert "install -d -o 10001 -g 10001 -m 0700 /data" in text
    assert 'VOLUME ["/data"]' in text


def test_the_image_carries_the_web_page() -> None:
    """The build copies the page's one source, so the package it builds serves /play (and the
    build checks that the installed package, not a source tree, is where the page is)."""
    build = [i for i in INSTRUCTIONS if i.stage < max(i.stage for i in INSTRUCTIONS)]
    copied = [i.arguments.split() for i in build if i.keyword == "COPY"]
    assert ["clients/web/play", "./clients/web/play"] in copied
    assert any("MANIFEST.in" in c for c in copied)
    runs = " ".join(i.arguments for i in build if i.keyword == "RUN")
    assert "DEFAULT_WEB_DIR" in runs
