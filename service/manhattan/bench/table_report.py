"""The report of ``manhattan bench tables``: its figures (rates, ratios, memory growth, CPU
per move), its targets and verdicts, and its text."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Sequence
from typing import Any

from manhattan.bench.harness import latency_text, process_cpu

TARGETS = {
    "push_p99_ms": 50.0,
    "moves_vs_stateless": 0.7,
    "table_move_cpu_ms": 1.2,
    "idle_growth_mib": 100.0,
    "idle_kib_per_stream": 16.0,
}
#: The latency percentiles reported.
PERCENTILES = (0.50, 0.90, 0.99)
SEATS = 4
#: Table GET and move rates with many live tables, against the same run with few.
LIVE_TARGET = 0.9


# -- arithmetic -------------------------------------------------------------------------------
def per_second(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else 0.0


def ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator > 0 else None


def memory_growth(before_kib: int | None, after_kib: int | None, streams: int) -> dict[str, Any]:
    """RSS growth between two readings, in MiB, and per stream in KiB."""
    if before_kib is None or after_kib is None:
        return {"available": False}
    grown = after_kib - before_kib
    return {
        "available": True,
        "before_mib": before_kib / 1024,
        "after_mib": after_kib / 1024,
        "growth_mib": grown / 1024,
        "per_stream_kib": grown / streams if streams else 0.0,
    }


def verdicts(report: dict[str, Any]) -> dict[str, bool | None]:
    """Each target met (True), missed (False) or not measured (None)."""
    # The push target is judged where people play at a person's pace when that was measured
    # (--think); flat out, pushes queue behind the moves of a saturated service.
    push = (report.get("tables_paced") or report.get("tables") or {}).get("push_latency", {})
    p99 = push.get("p99_ms") if push.get("count") else None
    versus = report.get("moves_vs_stateless")
    cpu = move_cpu_ms(report.get("tables") or {})
    memory = (report.get("idle") or {}).get("memory", {})
    growth = memory.get("growth_mib") if memory.get("available") else None
    per_stream = memory.get("per_stream_kib") if memory.get("available") else None
    return {
        "push_p99_ms": _at_most(p99, TARGETS["push_p99_ms"], strict=True),
        "moves_vs_stateless": None if versus is None else versus >= TARGETS["moves_vs_stateless"],
        "table_move_cpu_ms": _at_most(cpu, TARGETS["table_move_cpu_ms"]),
        "idle_growth_mib": _at_most(growth, TARGETS["idle_growth_mib"]),
        "idle_kib_per_stream": _at_most(per_stream, TARGETS["idle_kib_per_stream"]),
    }


def _at_most(value: float | None, target: float, *, strict: bool = False) -> bool | None:
    if value is None:
        return None
    return value < target if strict else value <= target


def move_cpu_ms(tables: dict[str, Any]) -> float | None:
    """Service CPU per table move: while the people played (set-up left out) when measured so,
    else over the whole phase."""
    found = tables.get("play_cpu_ms_per_move") or tables.get("service_cpu_ms_per_move")
    return None if found is None else float(found)


async def measured(pid: int | None, phase: Awaitable[dict[str, Any]]) -> dict[str, Any]:
    """Run a phase and add the CPU it cost: the service's (from /proc) and this process's. On a
    shared machine CPU per move is a steadier figure than moves per second."""
    service_before = process_cpu(pid)
    bench_before = time.process_time()
    result = await phase
    service_after = process_cpu(pid)
    result["bench_cpu_seconds"] = time.process_time() - bench_before
    result["service_cpu_seconds"] = (
        None if service_before is None or service_after is None else service_after - service_before
    )
    moves = result.get("moves") or 0
    used = result["service_cpu_seconds"]
    result["service_cpu_ms_per_move"] = 1000 * used / moves if used is not None and moves else None
    return result


def cpu_ratio(tables: dict[str, Any], stateless: Sequence[dict[str, Any]]) -> float | None:
    """Table moves per service CPU second over stateless moves per service CPU second."""
    costs = [p["service_cpu_ms_per_move"] for p in stateless if p["service_cpu_ms_per_move"]]
    table_cost = tables.get("service_cpu_ms_per_move")
    if not costs or not table_cost:
        return None
    stateless_cost = float(sum(costs)) / len(costs)
    return stateless_cost / float(table_cost)


def _verdict(met: bool | None) -> str:
    return {True: "met", False: "MISSED", None: "not measured"}[met]


def print_report(report: dict[str, Any]) -> None:
    load = report["load_average_1m"]
    print(
        f"bench tables against {report['url']} ({report['cores']} cores, system load (1 min) "
        f"{load['start']:.1f} -> {load['end']:.1f})"
    )
    if report.get("tables"):
        _print_play(report)
    _print_idle(report)
    if report.get("spectators"):
        print_spectators(report["spectators"])
    if report.get("live"):
        print_live(report["live"])


def _print_play(report: dict[str, Any]) -> None:
    for k, phase in enumerate(report["stateless"], 1):
        print(
            f"  stateless {k}: {phase['players']} players, {phase['moves']} moves in "
            f"{phase['seconds']:.1f} s = {phase['moves_per_s']:.0f} moves/s "
            "(legal-moves + apply per move)"
        )
    _print_tables(report)
    _print_paced(report)
    _print_costs(report)


def _print_tables(report: dict[str, Any]) -> None:
    played, verdict = report["tables"], report["verdicts"]
    push, post = played["push_latency"], played["post_latency"]
    print(
        f"  tables: {played['tables']} tables x {SEATS} people with live streams, "
        f"{played['moves']} moves in {played['seconds']:.1f} s = "
        f"{played['moves_per_s']:.0f} moves/s; {played['tables_finished']} games finished; "
        f"{played['conflicts']} conflicts, {played['errors']} errors, "
        f"{played.get('gets', 0)} table GETs (the events carry the movers' moves)"
    )
    versus = report["moves_vs_stateless"]
    print(
        f"    table moves vs stateless: "
        f"{'n/a' if versus is None else f'{versus:.2f}x'} "
        f"(target >= {TARGETS['moves_vs_stateless']}x: {_verdict(verdict['moves_vs_stateless'])})"
    )
    print(
        f"    push latency (sent -> the other seats), {push['count']} deliveries: "
        f"{latency_text(push, 'p50', 'p90', 'p99', 'max')} "
        + (
            "(flat out; the target is judged at a person's pace, below)"
            if report.get("tables_paced")
            else f"(target p99 < {TARGETS['push_p99_ms']:.0f} ms: "
            f"{_verdict(verdict['push_p99_ms'])})"
        )
    )
    print(f"    move answer (POST or ack) latency: {latency_text(post, 'p50', 'p99')}")
    for sample in played["error_samples"]:
        print(f"      {sample}")


def _print_paced(report: dict[str, Any]) -> None:
    paced = report.get("tables_paced")
    if not paced:
        return
    push = paced["push_latency"]
    print(
        f"  tables, people thinking {paced['think_seconds']:.1f} s a move (0.5-1.5x): "
        f"{paced['moves']} moves in {paced['seconds']:.1f} s = {paced['moves_per_s']:.0f} "
        f"moves/s; {paced['conflicts']} conflicts, {paced['errors']} errors"
    )
    print(
        f"    push latency, {push['count']} deliveries: "
        f"{latency_text(push, 'p50', 'p99', 'max')} "
        f"(target p99 < {TARGETS['push_p99_ms']:.0f} ms: "
        f"{_verdict(report['verdicts']['push_p99_ms'])})"
    )


def _print_idle(report: dict[str, Any]) -> None:
    idle = report["idle"]
    if not idle:
        return
    memory = idle["memory"]
    where = "a fresh service process" if idle.get("fresh_process") else "the service under test"
    if not memory["available"]:
        print(f"  idle: {idle['streams']} streams; RSS not measured (Linux /proc only)")
        return
    verdict = report["verdicts"]
    closed = memory.get("closed_mib")
    print(
        f"  idle, in {where}: {idle['streams']} streams open ({idle['snapshots']} snapshots) "
        f"for {idle['hold_seconds']:.0f} s: RSS {memory['before_mib']:.1f} -> "
        f"{memory['after_mib']:.1f} MiB"
        + ("" if closed is None else f" ({closed:.1f} MiB once closed)")
        + f", growth {memory['growth_mib']:+.1f} MiB (target <= "
        f"{TARGETS['idle_growth_mib']:.0f} MiB: {_verdict(verdict['idle_growth_mib'])})"
    )
    print(
        f"    {memory['per_stream_kib']:.1f} KiB per idle stream, "
        f"{memory['growth_mib'] * 1000 / max(1, idle['streams']):.1f} MiB per 1,000 (target <= "
        f"{TARGETS['idle_kib_per_stream']:.0f} KiB: {_verdict(verdict['idle_kib_per_stream'])})"
    )


def print_spectators(found: dict[str, Any]) -> None:
    targets, push, rss = found["targets"], found["push_latency"], found["rss"]
    idle, busy = found["cheap_idle"], found["cheap_watched"]
    where = "a fresh service process" if found.get("fresh_process") else "the service under test"
    print(
        f"  spectators, in {where}: {found['spectators']} streams on one public table "
        f"(opened in {found['opened_in_s']:.1f} s) beside {found['tables']} tables playing at "
        f"{found['think_seconds']:.1f} s a move ({found['beside']['moves_per_s']:.0f} moves/s)"
    )
    print(
        f"    watched table: {found['watched_moves']} moves at "
        f"{found['watched_moves_per_s']:.1f} moves/s; spectator push latency, "
        f"{push['count']} of {found['deliveries_expected']} deliveries: "
        f"{latency_text(push, 'p50', 'p99', 'max')} "
        f"(target p99 < {targets['push_p99_ms']:.0f} ms: "
        f"{_verdict(_at_most(push['p99_ms'] if push['count'] else None, targets['push_p99_ms']))})"
    )
    if found.get("service_core_share") is not None:
        print(f"    service CPU meanwhile: {found['service_core_share']:.2f} of a core")
    for name, key, share in (
        ("table GET", "table_get", found["cheap_p99_vs_idle"]),
        ("/healthz", "healthz", found["healthz_p99_vs_idle"]),
    ):
        met = _at_most(share, targets["cheap_p99_vs_idle"])
        print(
            f"    {name} p50/p99: {idle[key]['p50_ms']:.1f}/{idle[key]['p99_ms']:.1f} ms before "
            f"the spectators, {busy[key]['p50_ms']:.1f}/{busy[key]['p99_ms']:.1f} ms while they "
            f"watch: {share or 0:.2f}x (target <= {targets['cheap_p99_vs_idle']:.0f}x: "
            f"{_verdict(met)})"
        )
    if rss["available"]:
        back = rss["back_within_mib"]
        print(
            f"    RSS (the service and its processes) {rss['start_mib']:.1f} MiB at the start, "
            f"{rss['open_mib']:.1f} MiB with the spectators ({rss['per_stream_kib']:.1f} KiB "
            f"each), {rss['end_mib']:.1f} MiB after they closed: {back:+.1f} MiB (target within "
            f"{targets['rss_back_mib']:.0f} MiB: {_verdict(abs(back) <= targets['rss_back_mib'])})"
        )
    alone = found.get("rss_service_alone", {})
    if alone.get("available"):
        print(
            f"    RSS of the service alone: {alone['start_mib']:.1f}, {alone['open_mib']:.1f}, "
            f"{alone['end_mib']:.1f} MiB ({alone['back_within_mib']:+.1f} MiB)"
        )
    print(f"    cheap requests that failed (then on a new connection): {found['cheap_failed']}")
    samples = found["beside"]["error_samples"] + found["watched_error_samples"]
    print(f"    errors: {found['errors']}" + "".join(f"\n      {e}" for e in samples))


def _print_costs(report: dict[str, Any]) -> None:
    costs = [(f"stateless {k}", p) for k, p in enumerate(report["stateless"], 1)]
    for name, phase in [*costs, ("tables", report["tables"])]:
        used, per_move = phase["service_cpu_seconds"], phase["service_cpu_ms_per_move"]
        service = "n/a" if used is None else f"{used:.1f} s"
        if per_move is not None:
            service += f" ({per_move:.2f} ms per move)"
        print(f"  CPU in {name}: service {service}, this bench {phase['bench_cpu_seconds']:.1f} s")
    per_cpu = report["moves_per_cpu_vs_stateless"]
    if per_cpu is not None:
        print(f"  table moves per service CPU second vs stateless: {per_cpu:.2f}x")
    cpu = move_cpu_ms(report["tables"])
    if cpu is not None:
        print(
            f"  service CPU per table move while the people played: {cpu:.2f} ms (target <= "
            f"{TARGETS['table_move_cpu_ms']} ms: "
            f"{_verdict(report['verdicts']['table_move_cpu_ms'])})"
        )


def print_live(report: dict[str, Any]) -> None:
    few, many = report["few"], report["many"]
    print(
        f"  live tables: {report['live']} created in {report['created_in_s']:.1f} s "
        "(half playing on a running clock)"
    )
    for name, key in (("table GET", "gets_per_s"), ("move (GET + POST)", "moves_per_s")):
        share = ratio(many[key], few[key])
        verdict = "not measured" if share is None else "met" if share >= LIVE_TARGET else "MISSED"
        print(
            f"    {name}/s: {few[key]:.0f} with few live tables, {many[key]:.0f} with "
            f"{report['live']}: {share or 0:.2f}x (target >= {LIVE_TARGET}x: {verdict})"
        )
    for name, key in (("GET", "cpu_ms_per_get"), ("move", "cpu_ms_per_move")):
        if few[key] is not None and many[key] is not None:
            print(
                f"    service CPU per {name}: {few[key]:.2f} ms with few live tables, "
                f"{many[key]:.2f} ms with {report['live']}"
            )
