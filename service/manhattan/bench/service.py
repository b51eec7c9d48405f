"""``manhattan bench service``: throughput and latency of the running service under ``wrk``.

Starts the service (uvicorn, one worker, embedded cache unless ``--redis-url``) and, in the same
run, a plain Starlette endpoint that echoes a body of the same size, both on loopback. Then drives
``legalMoves`` on a mid-game 4-player state with ``wrk`` at ``--connections`` connections:
inline state over REST and GraphQL, and a cached state id over both. Each case runs ``--runs``
times, interleaved; the table shows medians of requests/s and of p50/p99 latency, and the ratios
the targets (REST on distinct states >= 0.5x echo, GraphQL >= 0.75x REST in each case, every
case's p99 <= 2.5x the echo's p99 in the same run).

The service memoizes parsed inline states by an exact digest of the decoded JSON, so the inline
cases, which send one body over and over, measure a repeated state. The "distinct states" cases
send ``--distinct`` different mid-game states of the same size class instead, in turn (a wrk Lua
``request()`` picking the next pre-built request): more states than the memo holds, cycled, so
every request misses it and pays for parsing and checking the state.

``--baseline DIR`` also starts the service from another source tree (``DIR`` is put first on the
Python path, e.g. the ``service`` folder of a git worktree of an older commit) and runs every
service case against both, alternating which goes first from run to run, so that the two are
compared on the same machine in the same minutes; a second table gives the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from manhattan.bench.engine import mid_game_state
from manhattan.bench.harness import free_port, stop, wait_until_ready
from manhattan.http_client import Reply, request

TARGETS = {"rest_distinct_vs_echo": 0.5, "graphql_vs_rest": 0.75, "p99_vs_echo": 2.5}
# More than the parsed-state memo holds (Operations(parsed_states=1_024)): cycling through them in
# order, a least-recently-used memo never hits.
DISTINCT_STATES = 1_500
#: How long a server may take to answer its first request (a loaded machine imports slowly).
READY_SECONDS = 90.0
GRAPHQL_QUERY = (
    "query($s: StateRef!) { legalMoves(state: $s) "
    "{ type player card neighborhood floors color pieces block notation } }"
)


@dataclass(frozen=True, slots=True)
class Case:
    name: str
    port_key: str  # "service" or "echo"
    path: str
    body: bytes
    rotate: tuple[bytes, ...] = ()  # bodies sent in turn instead of ``body`` (same size class)


class Measurement(NamedTuple):
    requests_per_s: float
    p50_ms: float
    p99_ms: float
    #: The serving process's CPU time (user and system) per request answered, in microseconds:
    #: what a request costs the server, which a machine shared with other work changes far
    #: less than it changes requests per second (0: not known on this system).
    cpu_us: float = 0.0


def process_cpu_seconds(pid: int) -> float | None:
    """The CPU time ``pid`` has used (Linux: ``/proc/<pid>/stat``), or None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve_echo(port: int) -> None:
    """The baseline: a Starlette app whose one route returns the request body as JSON."""

    async def echo(request: Request) -> Response:
        return Response(await request.body(), media_type="application/json")

    app = Starlette(routes=[Route("/echo", echo, methods=["POST"])])
    # The loop and parser the service runs on (`server.serve.server_config`), so that the two
    # compare like for like.
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        loop="asyncio",
        http="httptools",
        log_level="warning",
        access_log=False,
    )


def _start(code: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", code], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def _answered(reply: Reply) -> bool:
    return True  # any status: the server is up


def _post(url: str, body: bytes) -> dict[str, object]:
    reply = request(url, "POST", body, {"content-type": "application/json"}, timeout=5)
    if not reply.ok:
        raise RuntimeError(f"{url}: HTTP {reply.status}: {reply.body[:200]!r}")
    data: dict[str, object] = reply.json()
    return data


_DURATION = re.compile(r"([\d.]+)(us|ms|s)\b")


def _ms(text: str) -> float:
    m = _DURATION.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"cannot read wrk duration {text!r}")
    value, unit = float(m.group(1)), m.group(2)
    return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value


def parse_wrk(output: str) -> Measurement:
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]
    p50 = re.search(r"^\s+50%\s+(\S+)", output, re.MULTILINE)
    p99 = re.search(r"^\s+99%\s+(\S+)", output, re.MULTILINE)
    if p50 is None or p99 is None:
        raise ValueError("wrk output has no latency distribution (run with --latency)")
    if re.search(r"Non-2xx or 3xx responses", output):
        raise RuntimeError("wrk saw error responses:\n" + output)
    return Measurement(rps, _ms(p50.group(1)), _ms(p99.group(1)))


def _rotating_script(bodies: tuple[bytes, ...], workdir: Path) -> str:
    """A wrk script sending ``bodies`` in turn. The requests are formatted once per thread in
    ``init`` so that ``request()`` costs wrk no more than a fixed body does."""
    folder = workdir / "bodies"
    folder.mkdir(exist_ok=True)
    for i, body in enumerate(bodies, 1):
        (folder / f"{i}.json").write_bytes(body)
    return (
        f"local requests, n, i = {{}}, {len(bodies)}, 0\n"
        "init = function(args)\n"
        "  for k = 1, n do\n"
        f'    local f = io.open("{folder}/" .. k .. ".json", "rb")\n'
        '    requests[k] = wrk.format("POST", nil, {["Content-Type"] = "application/json"}, '
        'f:read("*a"))\n'
        "    f:close()\n"
        "  end\n"
        "end\n"
        "request = function()\n"
        "  i = i % n + 1\n"
        "  return requests[i]\n"
        "end\n"
    )


def _run_wrk(
    url: str,
    body: bytes,
    *,
    connections: int,
    threads: int,
    seconds: int,
    workdir: Path,
    rotate: tuple[bytes, ...] = (),
) -> Measurement:
    script = workdir / "post.lua"
    if rotate:
        script.write_text(_rotating_script(rotate, workdir))
    else:
        body_file = workdir / "body.json"
        body_file.write_bytes(body)
        script.write_text(
            f'local f = io.open("{body_file}", "rb")\n'
            "wrk.body = f:read('*a')\nf:close()\n"
            'wrk.method = "POST"\n'
            'wrk.headers["Content-Type"] = "application/json"\n'
        )
    output = subprocess.run(
        [
            "wrk",
            f"-t{threads}",
            f"-c{connections}",
            f"-d{seconds}s",
            "--latency",
            "-s",
            str(script),
            url,
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return parse_wrk(output)


def _gql_body(ref: dict[str, object]) -> bytes:
    return json.dumps({"query": GRAPHQL_QUERY, "variables": {"s": ref}}).encode()


def _cases(service: str, distinct: int) -> list[Case]:
    state = mid_game_state().to_json()
    # Other games at the same point (round 2's build phase), so bodies of the same size class.
    others = [mid_game_state(f"bench-{i}").to_json() for i in range(distinct)]
    stored = _post(f"{service}/v1/states", json.dumps({"state": state}).encode())
    state_id = stored["stateId"]
    rest_inline = json.dumps({"state": state}).encode()
    gql_inline = json.dumps({"query": GRAPHQL_QUERY, "variables": {"s": {"json": state}}}).encode()
    rest_id = json.dumps({"state": {"id": state_id}}).encode()
    gql_id = json.dumps({"query": GRAPHQL_QUERY, "variables": {"s": {"id": state_id}}}).encode()
    return [
        Case("echo (same body size)", "echo", "/echo", rest_inline),
        Case("REST legal-moves, inline state", "service", "/v1/legal-moves", rest_inline),
        Case("GraphQL legalMoves, inline state", "service", "/graphql", gql_inline),
        Case("REST legal-moves, cached id", "service", "/v1/legal-moves", rest_id),
        Case("GraphQL legalMoves, cached id", "service", "/graphql", gql_id),
        Case(
            "REST legal-moves, distinct states",
            "service",
            "/v1/legal-moves",
            rest_inline,
            tuple(json.dumps({"state": s}).encode() for s in others),
        ),
        Case(
            "GraphQL legalMoves, distinct states",
            "service",
            "/graphql",
            gql_inline,
            tuple(_gql_body({"json": s}) for s in others),
        ),
    ]


def _interleaved(cases: list[Case], baseline: list[Case], *, first_baseline: bool) -> list[Case]:
    """Each case, with its baseline twin (same name after "baseline: ") right before or after."""
    twins = {c.name.removeprefix("baseline: "): c for c in baseline}
    out: list[Case] = []
    for case in cases:
        twin = twins.get(case.name)
        pair = [case] if twin is None else ([twin, case] if first_baseline else [case, twin])
        out.extend(pair)
    return out


def _median(runs: list[Measurement]) -> Measurement:
    return Measurement(
        statistics.median(r.requests_per_s for r in runs),
        statistics.median(r.p50_ms for r in runs),
        statistics.median(r.p99_ms for r in runs),
        statistics.median(r.cpu_us for r in runs),
    )


def _comparison(results: dict[str, list[Measurement]], cases: list[Case]) -> dict[str, Measurement]:
    """The table of this service against the baseline; the baseline's medians by name."""
    print(
        f"{'case':36} {'base req/s':>10} {'req/s':>8} {'ratio':>6} {'base p99':>9} {'p99':>7} "
        f"{'base CPU us':>11} {'CPU us':>7}"
    )
    medians = {}
    for case in cases:
        runs = results.get(f"baseline: {case.name}")
        if not runs:
            continue
        base, now = _median(runs), _median(results[case.name])
        medians[f"baseline: {case.name}"] = base
        ratio = now.requests_per_s / base.requests_per_s
        print(
            f"{case.name:36} {base.requests_per_s:10.0f} {now.requests_per_s:8.0f} {ratio:6.2f} "
            f"{base.p99_ms:9.2f} {now.p99_ms:7.2f} {base.cpu_us:11.0f} {now.cpu_us:7.0f}"
        )
    return medians


def _table(results: dict[str, list[Measurement]], cases: list[Case]) -> dict[str, Measurement]:
    medians = {}
    print(f"{'case':36} {'body B':>11} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'CPU us':>7}")
    for case in cases:
        m = medians[case.name] = _median(results[case.name])
        sizes = [len(b) for b in case.rotate] or [len(case.body)]
        size = f"{min(sizes)}" if min(sizes) == max(sizes) else f"{min(sizes)}-{max(sizes)}"
        print(
            f"{case.name:36} {size:>11} {m.requests_per_s:9.0f} {m.p50_ms:8.2f} {m.p99_ms:8.2f} "
            f"{m.cpu_us:7.0f}"
        )
    return medians


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="manhattan bench service", description=__doc__)
    parser.add_argument("--duration", type=int, default=5, help="seconds per wrk run")
    parser.add_argument("--runs", type=int, default=3, help="runs per case (median)")
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--threads", type=int, default=1, help="wrk threads")
    parser.add_argument("--redis-url", default=None, help="cache in Redis instead of the LRU")
    parser.add_argument(
        "--distinct",
        type=int,
        default=DISTINCT_STATES,
        help="states the 'distinct states' cases cycle through (more than the memo holds)",
    )
    parser.add_argument("--json", action="store_true", help="also print the medians as JSON")
    parser.add_argument(
        "--baseline",
        default=None,
        help="a source tree (the folder holding the 'manhattan' package) to run as a second "
        "service, compared case by case with this one",
    )
    return parser


def _start_servers(
    args: argparse.Namespace,
) -> tuple[dict[str, int], list[subprocess.Popen[bytes]]]:
    """The service, the echo server and (``--baseline``) the baseline service, started; their
    ports by role and their processes in that order."""
    env = dict(os.environ)
    env.update(
        {
            "MANHATTAN_ACCESS_LOG": "false",
            "MANHATTAN_LOG_LEVEL": "WARNING",
            "REDIS_URL": args.redis_url or "",
            "MANHATTAN_DATA_DIR": ":memory:",  # stateless calls only: no tables, no files
        }
    )
    ports = {"service": free_port(), "echo": free_port()}
    serve = "from manhattan.server.serve import run; run('127.0.0.1', {})"
    processes = [
        _start(serve.format(ports["service"]), env),
        _start(f"from manhattan.bench.service import serve_echo; serve_echo({ports['echo']})", env),
    ]
    if args.baseline is not None:
        ports["baseline"] = free_port()
        baseline_env = dict(env, PYTHONPATH=str(Path(args.baseline).resolve()))
        processes.append(_start(serve.format(ports["baseline"]), baseline_env))
    return ports, processes


def _ready_cases(
    args: argparse.Namespace, ports: dict[str, int], processes: list[subprocess.Popen[bytes]]
) -> tuple[list[Case], list[Case]]:
    """Once the servers answer (each from its own process: a port another process took first
    is an error, not a server measured in its place): the cases, and the baseline's twins of
    the service cases."""
    service = f"http://127.0.0.1:{ports['service']}"
    wait_until_ready(
        f"{service}/healthz", processes[0], READY_SECONDS, _answered, port=ports["service"]
    )
    echo = ports["echo"]
    wait_until_ready(
        f"http://127.0.0.1:{echo}/echo", processes[1], READY_SECONDS, _answered, port=echo
    )
    cases = _cases(service, args.distinct)
    if args.baseline is None:
        return cases, []
    baseline = f"http://127.0.0.1:{ports['baseline']}"
    wait_until_ready(
        f"{baseline}/healthz", processes[2], READY_SECONDS, _answered, port=ports["baseline"]
    )
    twins = [
        replace(c, name=f"baseline: {c.name}", port_key="baseline")
        for c in _cases(baseline, args.distinct)
        if c.port_key == "service"
    ]
    return cases, twins


def _measure(
    args: argparse.Namespace,
    ports: dict[str, int],
    pids: dict[str, int],
    cases: list[Case],
    baseline: list[Case],
) -> dict[str, list[Measurement]]:
    """Every case ``--runs`` times under wrk, interleaved (the baseline first every other run),
    with the CPU time its server spent per request (``pids`` by role)."""
    results: dict[str, list[Measurement]] = {c.name: [] for c in cases + baseline}
    with tempfile.TemporaryDirectory() as workdir:
        for run_index in range(args.runs):
            for case in _interleaved(cases, baseline, first_baseline=run_index % 2 == 1):
                url = f"http://127.0.0.1:{ports[case.port_key]}{case.path}"
                before = process_cpu_seconds(pids[case.port_key])
                measured = _run_wrk(
                    url,
                    case.body,
                    connections=args.connections,
                    threads=args.threads,
                    seconds=args.duration,
                    workdir=Path(workdir),
                    rotate=case.rotate,
                )
                after = process_cpu_seconds(pids[case.port_key])
                answered = measured.requests_per_s * args.duration
                if before is not None and after is not None and answered:
                    measured = measured._replace(cpu_us=(after - before) / answered * 1e6)
                results[case.name].append(measured)
    return results


def target_lines(connections: int, medians: dict[str, Measurement], names: list[str]) -> list[str]:
    """Each target with its ratio (the cases in ``_cases``'s order: echo, then REST and GraphQL
    for an inline state, a cached id and distinct states)."""
    echo = medians[names[0]]
    lines = []
    for label, r, g in (
        ("inline state", medians[names[1]], medians[names[2]]),
        ("cached id", medians[names[3]], medians[names[4]]),
        ("distinct states", medians[names[5]], medians[names[6]]),
    ):
        lines.append(
            f"{label}: REST / echo {r.requests_per_s / echo.requests_per_s:4.2f}, "
            f"GraphQL / REST {g.requests_per_s / r.requests_per_s:4.2f} "
            f"(target >= {TARGETS['graphql_vs_rest']})"
        )
    distinct = medians[names[5]].requests_per_s / echo.requests_per_s
    target = TARGETS["rest_distinct_vs_echo"]
    lines.append(f"REST distinct states / echo {distinct:4.2f} (target >= {target})")
    if echo.cpu_us and all(medians[name].cpu_us for name in names[1:]):
        # Requests a second are CPU's reciprocal for a server on one core: the same ratios
        # from the server's CPU time a request, which other work on the machine moves less.
        cpu = ", ".join(
            f"{label} {echo.cpu_us / medians[r].cpu_us:4.2f} / "
            f"{medians[r].cpu_us / medians[g].cpu_us:4.2f}"
            for label, r, g in (
                ("inline", names[1], names[2]),
                ("cached id", names[3], names[4]),
                ("distinct", names[5], names[6]),
            )
        )
        lines.append(f"by CPU a request (REST / echo, GraphQL / REST): {cpu}")
    worst = max(names[1:], key=lambda name: medians[name].p99_ms)
    lines.append(
        f"worst p99 at {connections} connections: {worst} {medians[worst].p99_ms:.1f} ms, "
        f"{medians[worst].p99_ms / echo.p99_ms:.2f}x the echo's {echo.p99_ms:.1f} ms "
        f"(target <= {TARGETS['p99_vs_echo']}x)"
    )
    return lines


def run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.baseline is not None and not (Path(args.baseline) / "manhattan").is_dir():
        print(f"--baseline: no 'manhattan' package in {args.baseline}", file=sys.stderr)
        return 2
    if shutil.which("wrk") is None:
        print("wrk is not installed: apt-get install -y wrk", file=sys.stderr)
        return 2
    ports, processes = _start_servers(args)
    try:
        cases, baseline_cases = _ready_cases(args, ports, processes)
        pids = dict(zip(ports, (p.pid for p in processes), strict=True))
        results = _measure(args, ports, pids, cases, baseline_cases)
        print(
            f"wrk -t{args.threads} -c{args.connections} -d{args.duration}s, {args.runs} runs, "
            f"medians; one uvicorn worker; cache: {'redis' if args.redis_url else 'memory'}"
        )
        medians = _table(results, cases)
        print("\n".join(target_lines(args.connections, medians, [c.name for c in cases])))
        if baseline_cases:
            print(f"\nbaseline: {args.baseline} (same runs, alternating)")
            medians.update(_comparison(results, cases))
        if args.json:
            print(json.dumps({name: m._asdict() for name, m in medians.items()}))
        return 0
    finally:
        for process in processes:
            stop(process, grace=10.0)
