"""``manhattan.bench.harness``, what the benches share: nearest-rank percentiles, the loopback
rule, waiting for a service (a real local server), stopping a process, and the report's output."""

from __future__ import annotations

import argparse
import gc
import json
import os
import signal
import subprocess
import sys
import threading
import time
import weakref
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from manhattan.bench import harness
from manhattan.bench.harness import (
    HarnessError,
    add_service_arguments,
    emit,
    free_port,
    latency_summary,
    latency_text,
    percentile,
    quiet_collector,
    require_loopback,
    seconds_per_call,
    service_under_test,
    stop,
    wait_until_ready,
)


def test_percentiles_use_the_nearest_rank() -> None:
    values = [float(v) for v in range(1, 1001)]
    assert percentile(values, 0.5) == 500
    assert percentile(values, 0.99) == 990
    assert percentile(values, 0.999) == 999
    assert percentile([], 0.5) == 0.0 and percentile([3.0], 0.99) == 3.0


def test_latency_summary_names_each_percentile_in_milliseconds() -> None:
    seconds = [k / 1000 for k in range(1000, 0, -1)]  # 1 .. 1000 ms, in any order
    assert latency_summary(seconds, (0.5, 0.9, 0.99, 0.999)) == {
        "count": 1000,
        "p50_ms": pytest.approx(500.0),
        "p90_ms": pytest.approx(900.0),
        "p99_ms": pytest.approx(990.0),
        "p999_ms": pytest.approx(999.0),
        "max_ms": pytest.approx(1000.0),
    }
    assert latency_summary([], (0.5,)) == {"count": 0, "p50_ms": 0.0, "max_ms": 0.0}


def test_latency_text_says_the_figures_asked_for_in_order() -> None:
    summary = latency_summary([k / 1000 for k in range(1, 1001)], (0.5, 0.99))
    assert latency_text(summary, "p50", "p99", "max") == "p50 500.0 ms, p99 990.0 ms, max 1000.0 ms"
    two_places = latency_text(summary, "max", "p50", digits=2, sep="   ")
    assert two_places == "max 1000.00 ms   p50 500.00 ms"


@pytest.mark.parametrize("url", ["http://10.0.0.1:8000", "http://example.com", "http://0.0.0.0:1"])
def test_only_loopback_services_are_driven(url: str) -> None:
    with pytest.raises(HarnessError, match="loopback"):
        require_loopback(url)
    for url in ("http://127.0.0.1:1", "http://localhost:1", "http://[::1]:1"):
        require_loopback(url)


class _Ready(BaseHTTPRequestHandler):
    """``/readyz``: 503 for the first two asks, then 200."""

    protocol_version = "HTTP/1.1"
    asked = 0

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        type(self).asked += 1
        status = 200 if type(self).asked > 2 else 503
        self.send_response(status)
        self.send_header("content-length", "0")
        self.end_headers()


def test_waiting_until_a_real_server_is_ready() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Ready)
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        wait_until_ready(f"{url}/readyz", None, timeout=10)
        assert _Ready.asked == 3
        args = argparse.Namespace(url=url + "/", pid=42, redis_url=None)
        with service_under_test(args, "test") as (driven, pid):
            assert (driven, pid) == (url, 42)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    with pytest.raises(HarnessError, match="not ready within"):
        wait_until_ready(f"http://127.0.0.1:{free_port()}/readyz", None, timeout=0.3)


def test_a_process_that_exits_at_start_is_reported_and_one_that_hangs_is_stopped() -> None:
    exited = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    exited.wait(10)
    with pytest.raises(HarnessError, match="exited with status 3"):
        wait_until_ready(f"http://127.0.0.1:{free_port()}/", exited, timeout=5)
    stubborn = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print(1, flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
    )
    assert stubborn.stdout is not None and stubborn.stdout.readline()  # SIGTERM now ignored
    started = time.monotonic()
    stop(stubborn, grace=0.3)
    assert stubborn.returncode is not None and time.monotonic() - started < 10
    stubborn.stdout.close()


def test_the_service_arguments_and_the_report() -> None:
    parser = argparse.ArgumentParser()
    add_service_arguments(parser)
    args = parser.parse_args(["--url", "http://127.0.0.1:9", "--pid", "7"])
    assert (args.url, args.pid, args.redis_url) == ("http://127.0.0.1:9", 7, None)
    printed: list[dict[str, int]] = []
    emit({"a": 1}, False, printed.append)
    assert printed == [{"a": 1}]


def test_the_report_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    emit({"a": 1}, True, lambda report: None)
    assert json.loads(capsys.readouterr().out) == {"a": 1}


def test_seconds_per_call_counts_every_call() -> None:
    calls = 0

    def call() -> None:
        nonlocal calls
        calls += 1
        time.sleep(0.001)

    mean = seconds_per_call(call, 0.05, batch=5)
    assert calls % 5 == 0 and calls >= 5
    assert 0.001 <= mean < 0.05


def test_process_cpu_counts_the_processes_a_service_started() -> None:
    """A service's CPU includes its workers' (the webhook worker, the bot pool)."""
    script = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'while 1: pass'])"
    parent = subprocess.Popen([sys.executable, "-c", script])
    try:

        def beyond_its_own() -> float:  # the CPU counted for the service beyond its own
            own = harness.cpu_seconds(parent.pid) or 0.0
            return (harness.process_cpu(parent.pid) or 0.0) - own

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and beyond_its_own() < 0.5:
            time.sleep(0.1)
        assert len(harness.descendants(parent.pid)) == 1
        assert beyond_its_own() >= 0.5  # the busy child's
    finally:
        for child in harness.descendants(parent.pid):
            os.kill(child, signal.SIGKILL)
        parent.kill()
        parent.wait()


def test_the_collector_leaves_what_was_built_before_a_measurement_alone() -> None:
    """While a bench measures, what it built before is frozen (a full collection does not walk
    it) and garbage made before is gone; after, the collector is as it was."""
    before = gc.get_freeze_count()
    built = [[k] for k in range(1000)]
    cycle: list[object] = []
    cycle.append(cycle)
    gone = weakref.ref(_Held(cycle))
    del cycle
    with quiet_collector():
        assert gone() is None  # collected first
        assert gc.get_freeze_count() >= before + len(built)
    assert gc.get_freeze_count() == before


class _Held:
    """A weakly referenceable object in a reference cycle (only a collection frees it)."""

    def __init__(self, cycle: list[object]) -> None:
        self.cycle = cycle
        cycle.append(self)


class _AlwaysReady(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()


def test_a_spawned_service_whose_port_another_server_took_moves_to_another() -> None:
    """A real server (one that answers /readyz) took the port found free first: its answers do
    not count for the service, which cannot listen there, exits and is started on another."""
    other = ThreadingHTTPServer(("127.0.0.1", 0), _AlwaysReady)
    thread = threading.Thread(target=other.serve_forever)
    thread.start()
    taken = other.server_address[1]
    handed = iter([taken])
    real = harness.free_port
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(harness, "free_port", lambda: next(handed, None) or real())
            with harness.spawned_service(name="ports") as (url, pid):
                port = int(url.rsplit(":", 1)[1])
                assert port != taken and harness.listens(pid, port) is True
                assert harness.listens(pid, taken) is False
    finally:
        other.shutdown()
        other.server_close()
        thread.join(5)
