"""``manhattan bench tables --lobby N``: does the lobby cost more than a health check?

Creates N public waiting tables (names, two to four seats, either edition, some with a person
seated), then measures, in the same run and with the same connections, ``GET /healthz``, the
lobby's first page (``GET /v1/tables``, 20 tables), a full page (``?limit=100``), a filtered
page (``?players=3&open=true``) and the second page by its cursor, ``--lobby-seconds`` each.
Reported: each rate and its ratio to ``/healthz`` (the target: the first page at least
0.25x), and the service's CPU per request when its process id is known.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from manhattan.bench.harness import process_cpu
from manhattan.bench.table_people import SETUP_CONCURRENCY, Endpoint, Pool, must
from manhattan.bench.table_report import per_second, ratio
from manhattan.bench.tables_scale import PROBE_WORKERS, _for, _per, timed_setup

#: Target: lobby first pages per second over /healthz per second, same run.
LOBBY_TARGET = 0.25
EDITIONS = ("classic", "modern")


async def public_tables(endpoint: Endpoint, count: int) -> float:
    """``count`` public waiting tables; the seconds it took."""
    pool = Pool(endpoint, SETUP_CONCURRENCY)

    async def one(k: int) -> None:
        setup = {"players": 2 + k % 3, "edition": EDITIONS[k % 2]}
        if k % 5 == 0:
            setup["variants"] = {"antiTrust": True}
        body = {"name": f"table {k}", "setup": setup, "turnSeconds": 60 if k % 4 else None}
        created = await must(pool, "POST", "/v1/tables", body)
        if k % 3 == 0:
            await must(pool, "POST", f"/v1/tables/{created['tableId']}/join", {"name": f"p{k}"})

    return await timed_setup(pool, count, one)


async def lobby_phase(
    endpoint: Endpoint, pid: int | None, count: int, seconds: float
) -> dict[str, Any]:
    created_in = await public_tables(endpoint, count)
    pool = Pool(endpoint, PROBE_WORKERS)
    try:
        first = await must(pool, "GET", "/v1/tables")
        paths = {
            "healthz": "/healthz",
            "first_page": "/v1/tables",
            "page_of_100": "/v1/tables?limit=100",
            "filtered": "/v1/tables?players=3&open=true",
            "second_page": f"/v1/tables?cursor={first['next']}",
        }
        probes: dict[str, Any] = {}
        for name, path in paths.items():
            before = process_cpu(pid)
            done = await _for(seconds, partial(must, pool, "GET", path))
            probes[name] = {
                "path": path,
                "per_s": per_second(done, seconds),
                "cpu_ms": _per(before, process_cpu(pid), done),
            }
    finally:
        pool.close()
    health = probes["healthz"]["per_s"]
    for probe in probes.values():
        probe["vs_healthz"] = ratio(probe["per_s"], health)
    share = probes["first_page"]["vs_healthz"]
    return {
        "tables": count,
        "created_in_s": created_in,
        "listed_on_first_page": len(first["tables"]),
        "probes": probes,
        "target": LOBBY_TARGET,
        "met": None if share is None else share >= LOBBY_TARGET,
    }


def print_lobby(report: dict[str, Any]) -> None:
    print(
        f"  lobby: {report['tables']} public waiting tables created in "
        f"{report['created_in_s']:.1f} s; first page lists {report['listed_on_first_page']}"
    )
    for name, probe in report["probes"].items():
        cpu = "" if probe["cpu_ms"] is None else f", service CPU {probe['cpu_ms']:.3f} ms each"
        print(
            f"    {name} ({probe['path']}): {probe['per_s']:.0f}/s = "
            f"{probe['vs_healthz'] or 0:.2f}x /healthz{cpu}"
        )
    verdict = {True: "met", False: "MISSED", None: "not measured"}[report["met"]]
    print(f"    target: first page >= {report['target']}x /healthz: {verdict}")
