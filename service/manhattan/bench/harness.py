"""What the ``manhattan bench`` commands share: a service process of their own on a free
loopback port (started, waited for, stopped) or one already running on loopback, the figures
Linux's /proc gives of it, nearest-rank latency percentiles, and the report's last step (JSON or
text). Standard library and the tools' one HTTP client only, like the benches themselves.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import gc
import ipaddress
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import MISSING, field, fields
from typing import Any, TypeVar, cast, get_args, get_type_hints
from urllib.parse import urlsplit

from manhattan.http_client import HttpError, Reply, request

T = TypeVar("T")


class HarnessError(RuntimeError):
    """A bench cannot run as asked: not a loopback service, or the service did not start."""


class PortTaken(HarnessError):
    """The service could not listen on its port: another process took it first."""


# -- the bench's own process ------------------------------------------------------------------
@contextmanager
def quiet_collector() -> Iterator[None]:
    """The bench's own garbage collector kept out of what it times: what was built before (the
    people, their connections) is collected once and frozen, so that a full collection walks
    only what came after, and unfrozen at the end. Full collections walked some 800 people's
    objects every second or two, 30-70 ms each, and the pushes that arrived meanwhile were
    timed that much late (a driver in Node collects incrementally). The young collections are
    left as they are: made rarer, as the service's are (``server.serve.settle_heap``), each walked
    more and paused up to 16 ms."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


# -- the service process ----------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def require_loopback(url: str) -> None:
    """The benches load what they drive to its limit: never a machine of someone else's."""
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise HarnessError(f"the benches drive loopback services only, not {host!r}")


def answered_200(reply: Reply) -> bool:
    return reply.status == 200


def wait_until_ready(
    url: str,
    process: subprocess.Popen[bytes] | None,
    timeout: float,
    ready: Callable[[Reply], bool] = answered_200,
    *,
    port: int | None = None,
) -> None:
    """Ask ``url`` every 0.1 s until its reply is ``ready``; a ``process`` that exits first
    is an error. Given the ``port`` it serves on, a reply counts only when ``process`` holds the
    socket listening there (not another server answering in its place), and its exit while
    another process listens there is ``PortTaken``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            if port is not None and listening_socket(port) is not None:
                raise PortTaken(f"another process listens on port {port}")
            raise HarnessError(f"the service exited with status {process.returncode} at start")
        try:
            answered = ready(request(url, timeout=1.0))
        except HttpError:
            answered = False
        if answered and _its_own(process, port):
            return
        time.sleep(0.1)
    raise HarnessError(f"{url} was not ready within {timeout:.0f} s")


def _its_own(process: subprocess.Popen[bytes] | None, port: int | None) -> bool:
    """Whether an answer on ``port`` is ``process``'s own (True when either is not known, or
    /proc cannot tell)."""
    return process is None or port is None or listens(process.pid, port) is not False


def stop(process: subprocess.Popen[bytes], grace: float = 15.0) -> None:
    """SIGTERM, then SIGKILL after ``grace`` seconds."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def spawned_service(
    settings: Mapping[str, str | None] | None = None,
    *,
    name: str = "bench",
    ready: Callable[[Reply], bool] = answered_200,
    timeout: float = 30.0,
) -> Iterator[tuple[str, int]]:
    """``manhattan serve`` on a free loopback port; yields (url, pid) once ``/readyz`` is
    ``ready``, and stops it afterwards. The environment is this process's with the access log
    off, WARNING logs unless set, a fresh token key (its id ``name``) and a fresh data directory
    (removed afterwards) unless set, and ``settings`` over it (None removes a variable)."""
    data_dir = tempfile.mkdtemp(prefix=f"manhattan-{name}-")
    environment = dict(os.environ)
    environment["MANHATTAN_ACCESS_LOG"] = "false"
    environment.setdefault("MANHATTAN_LOG_LEVEL", "WARNING")
    for variable, value in (settings or {}).items():
        if value is None:
            environment.pop(variable, None)
        else:
            environment[variable] = value
    environment.setdefault("MANHATTAN_DATA_DIR", data_dir)
    if not environment.get("MANHATTAN_TOKEN_KEY"):
        key = base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("=")
        environment["MANHATTAN_TOKEN_KEY"] = f"{name}:{key}"
    try:
        process, url = _started_on_a_free_port(environment, timeout, ready)
        try:
            yield url, process.pid
        finally:
            stop(process, grace=20.0)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


#: Ports a spawned service is tried on when another process takes each first.
PORT_TRIES = 5


def _started_on_a_free_port(
    environment: dict[str, str], timeout: float, ready: Callable[[Reply], bool]
) -> tuple[subprocess.Popen[bytes], str]:
    """The service started on a port found free, and its URL once ready. A port is free only
    until someone binds it: when another process took it first, the service exits and is
    started again on another port."""
    for _ in range(PORT_TRIES):
        port = free_port()
        environment.update(MANHATTAN_HOST="127.0.0.1", MANHATTAN_PORT=str(port))
        process = subprocess.Popen(
            [sys.executable, "-m", "manhattan.cli", "serve"],
            env=environment,
            stdout=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_until_ready(f"{url}/readyz", process, timeout, ready, port=port)
        except PortTaken:
            continue
        except BaseException:
            stop(process, grace=20.0)
            raise
        return process, url
    raise HarnessError(f"another process took each of {PORT_TRIES} free ports first")


def bench_parser(prog: str, doc: str | None) -> argparse.ArgumentParser:
    """A bench command's parser, described by the first paragraph of its module's ``doc``, with
    ``--json`` (``emit``)."""
    parser = argparse.ArgumentParser(
        prog=prog, description=" ".join((doc or "").split("\n\n")[0].split())
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    return parser


def option(default: T, about: str | None = None) -> T:
    """A field of a bench's options (a dataclass) that is a flag of its command (``add_options``),
    with its default and ``about``, its help line."""
    return field(default=default, metadata={"help": about})


def add_options(parser: argparse.ArgumentParser, options: type[Any]) -> None:
    """A flag for each field of the dataclass ``options`` that has a default: ``--`` and its name
    with dashes, of the field's type (an optional one: of the type besides None; a ``bool`` is
    ``store_true``), with its default and its ``option`` help line."""
    hints = get_type_hints(options)
    for declared in fields(options):
        if declared.default is MISSING:
            continue  # not a flag: the command gives it (``options_from``)
        flag = f"--{declared.name.replace('_', '-')}"
        about = declared.metadata.get("help")
        hint = hints[declared.name]
        kind = next(k for k in get_args(hint) or (hint,) if k is not type(None))
        if kind is bool:
            parser.add_argument(flag, action="store_true", help=about)
        else:
            parser.add_argument(flag, type=kind, default=declared.default, help=about)


def options_from(args: argparse.Namespace, options: type[T], **given: Any) -> T:
    """The dataclass ``options`` made of the flags ``add_options`` added, and ``given``: the
    fields that are not flags."""
    flags = {
        declared.name: getattr(args, declared.name)
        for declared in fields(cast(Any, options))
        if declared.default is not MISSING
    }
    return options(**flags, **given)


def refused(message: str) -> int:
    """Say why a bench cannot run (``error: ...`` on stderr); its exit status, 2."""
    print(f"error: {message}", file=sys.stderr)
    return 2


def timing_parser(prog: str, seconds: float) -> argparse.ArgumentParser:
    """A micro-benchmark's parser: ``--runs`` (the median is reported) of ``--seconds`` each."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=seconds, help="length of each run")
    return parser


def add_service_arguments(parser: argparse.ArgumentParser) -> None:
    """``--url``, ``--pid`` and ``--redis-url``: the service a bench drives
    (``service_under_test``)."""
    parser.add_argument("--url", help="a running service on loopback; default: start one")
    parser.add_argument("--pid", type=int, help="the running service's process id, for RSS")
    parser.add_argument("--redis-url", help="REDIS_URL for the service this command starts")


@contextmanager
def service_under_test(args: argparse.Namespace, name: str) -> Iterator[tuple[str, int | None]]:
    """The service of ``add_service_arguments``: the one at ``--url`` (loopback only; its
    process ``--pid``, if given), or one started here; yields (url, pid)."""
    if args.url:
        url = args.url.rstrip("/")
        require_loopback(url)
        wait_until_ready(f"{url}/readyz", None, timeout=10)
        yield url, args.pid
        return
    settings = {} if args.redis_url is None else {"REDIS_URL": args.redis_url}
    with spawned_service(settings, name=name, timeout=120.0) as (url, pid):
        yield url, pid


Report = dict[str, Any]


def report_on_service(
    args: argparse.Namespace,
    name: str,
    measure: Callable[[str, int | None], Coroutine[Any, Any, Report]],
    print_report: Callable[[Report], None],
    *,
    errors: tuple[type[Exception], ...] = (),
) -> Report | None:
    """Run ``measure(url, pid)`` against the service of ``add_service_arguments`` and print its
    report (``--json`` or text); None, after saying why on stderr, if the harness or one of
    ``errors`` stopped it."""
    stops: tuple[type[Exception], ...] = (HarnessError, *errors)
    try:
        with service_under_test(args, name) as (url, pid):
            report = asyncio.run(measure(url, pid))
    except stops as exc:
        refused(str(exc))
        return None
    emit(report, args.json, print_report)
    return report


# -- what /proc says of a process -------------------------------------------------------------
def resident_kib(pid: int) -> int | None:
    """The process's resident set size from /proc (Linux), or None when unavailable."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def tree_resident_kib(pid: int) -> int | None:
    """The resident set size of ``pid`` and of every process below it (the service's spectator
    relay holds streams of its own, its webhook worker and bot pool their work), or None."""
    own = resident_kib(pid)
    if own is None:
        return None
    return own + sum(resident_kib(child) or 0 for child in descendants(pid))


def process_cpu(pid: int | None) -> float | None:
    """CPU seconds of the service ``pid`` and the processes it started (its webhook worker, its
    bot pool: their work is the service's); None without a process id."""
    if pid is None:
        return None
    own = cpu_seconds(pid)
    if own is None:
        return None
    return own + sum(cpu_seconds(child) or 0.0 for child in descendants(pid))


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time the process has used, from /proc (Linux), or None."""
    fields = _stat_fields(pid)
    if fields is None:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime (fields 14, 15)


def descendants(pid: int) -> list[int]:
    """The living processes below ``pid`` (children, their children, ...), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(int(entry))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry))  # ppid (field 4)
    found, todo = [], list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo.extend(children.get(child, []))
    return found


#: ``/proc/net/tcp``'s state of a listening socket.
LISTEN = "0A"


def listening_socket(port: int) -> str | None:
    """The inode of the socket listening on ``port`` (``/proc/net/tcp`` and ``tcp6``), or None
    when nothing listens there or /proc cannot be read."""
    suffix = f":{port:04X}"
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as lines:
                for line in lines:
                    fields = line.split()  # sl, local address, remote address, state, ..., inode
                    if len(fields) > 9 and fields[1].endswith(suffix) and fields[3] == LISTEN:
                        return fields[9]
        except OSError:
            continue
    return None


def listens(pid: int, port: int) -> bool | None:
    """Whether process ``pid`` holds the socket listening on ``port``; None when /proc cannot
    tell (not Linux, nothing listening yet)."""
    inode = listening_socket(port)
    if inode is None:
        return None
    try:
        names = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    wanted = f"socket:[{inode}]"
    for name in names:
        try:
            if os.readlink(f"/proc/{pid}/fd/{name}") == wanted:
                return True
        except OSError:
            continue
    return False


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/<pid>/stat's fields after the command's name (the 3rd field first), or None."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


# -- figures ----------------------------------------------------------------------------------
def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile of an ascending list (0 for an empty one)."""
    if not sorted_values:
        return 0.0
    rank = math.ceil(fraction * len(sorted_values))  # 1-based
    return sorted_values[min(len(sorted_values), max(rank, 1)) - 1]


def latency_summary(seconds: Iterable[float], fractions: Sequence[float]) -> dict[str, float]:
    """Count, nearest-rank percentiles and maximum in milliseconds: ``count``, ``p50_ms`` for
    0.5, ``p999_ms`` for 0.999, ..., ``max_ms``."""
    ordered = sorted(seconds)
    summary: dict[str, float] = {"count": len(ordered)}
    for fraction in fractions:
        label = f"{fraction * 100:g}".replace(".", "")
        summary[f"p{label}_ms"] = percentile(ordered, fraction) * 1000
    summary["max_ms"] = (ordered[-1] if ordered else 0.0) * 1000
    return summary


def latency_text(
    summary: Mapping[str, float], *points: str, digits: int = 1, sep: str = ", "
) -> str:
    """Figures of a ``latency_summary`` as a report says them: ``latency_text(s, "p50", "max")``
    is ``p50 1.2 ms, max 3.4 ms``."""
    return sep.join(f"{point} {summary[f'{point}_ms']:.{digits}f} ms" for point in points)


def seconds_per_call(call: Callable[[], object], seconds: float, batch: int = 1) -> float:
    """Call ``call`` in batches of ``batch`` until ``seconds`` have passed; the mean time of
    one call."""
    calls, start = 0, time.perf_counter()
    while True:
        for _ in range(batch):
            call()
        calls += batch
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed / calls


# -- the report -------------------------------------------------------------------------------
def emit(
    report: dict[str, Any], as_json: bool, print_report: Callable[[dict[str, Any]], None]
) -> None:
    """``--json``: the whole report as JSON; otherwise the bench's own text."""
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)
