"""The benches' SVG charts, drawn for the documentation's performance page.

``manhattan bench engine --svg PATH`` draws its figures with this module, so the chart on the
page is the one its command prints, redrawn whenever the command runs. Needs matplotlib
(``pip install 'manhattan-rules[plot]'``); imported only when a chart is asked for.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

#: How each engine figure reads on the chart: a label, and whether it is a time (lower is better).
ENGINE_LABELS: dict[str, str] = {
    "legal_moves_us": "legal_moves (µs a call)",
    "apply_move_us": "apply_move (µs a call)",
    "public_games_per_s": "games/s, public API",
    "fast_games_per_s": "games/s, fast path",
    "ismcts_iterations_per_s": "ISMCTS iterations/s",
}


def _pyplot() -> Any:
    # matplotlib is an optional extra and slow to import: only a chart loads it.
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "manhattan"  # the same figures draw the same file
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: a small, searchable file
    import matplotlib.pyplot as plt

    return plt


def engine_chart(
    results: Mapping[str, Sequence[float]],
    baseline: Mapping[str, Sequence[float]] | None,
    kernel: str,
    path: str,
) -> None:
    """One bar per figure: how many times faster ``results`` is than ``baseline`` (medians), or,
    without a baseline, the figures themselves, one panel each."""
    plt = _pyplot()
    names = [name for name in ENGINE_LABELS if name in results]
    medians = {name: statistics.median(results[name]) for name in names}
    if baseline is None:
        fig, axes = plt.subplots(len(names), 1, figsize=(7, 1.1 * len(names) + 0.6))
        for ax, name in zip(axes, names, strict=True):
            ax.barh([0], [medians[name]], color="#2e6fd8")
            ax.set_yticks([0], [ENGINE_LABELS[name]])
            ax.bar_label(ax.containers[0], fmt="%.1f", padding=3)
            ax.set_xlim(0, medians[name] * 1.25)
        axes[0].set_title(f"manhattan bench engine ({kernel})")
    else:
        fig, ax = plt.subplots(figsize=(7, 3.6))
        gains = []
        for name in names:
            here, there = medians[name], statistics.median(baseline[name])
            gains.append(there / here if name.endswith("_us") else here / there)
        bars = ax.barh(range(len(names)), gains, color="#2e6fd8")
        ax.bar_label(bars, fmt="%.2fx", padding=3)
        ax.axvline(1.0, color="#888888", linestyle=":", linewidth=1)
        ax.set_yticks(range(len(names)), [ENGINE_LABELS[n] for n in names])
        ax.invert_yaxis()
        ax.set_xlim(0, max(gains) * 1.2)
        ax.set_xlabel("times faster than the interpreted build (medians, same run)")
        ax.set_title(f"manhattan bench engine --baseline ({kernel})")
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def tables_chart(report: Mapping[str, Any], path: str) -> None:
    """``manhattan bench tables``: moves a second (stateless players, tables flat out, tables at
    a person's pace) beside the push latency's percentiles, flat out and at a person's pace."""
    plt = _pyplot()
    played, paced = report["tables"], report.get("tables_paced")
    rates = [(f"stateless {k}", p["moves_per_s"]) for k, p in enumerate(report["stateless"], 1)]
    rates.append(("tables, flat out", played["moves_per_s"]))
    pushes = [("flat out", played["push_latency"])]
    if paced:
        rates.append((f"tables, {paced['think_seconds']:g} s a move", paced["moves_per_s"]))
        pushes.append((f"{paced['think_seconds']:g} s a move", paced["push_latency"]))
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    bars = left.barh(range(len(rates)), [r for _, r in rates], color="#2e6fd8")
    left.bar_label(bars, fmt="%.0f", padding=3)
    left.set_yticks(range(len(rates)), [name for name, _ in rates])
    left.invert_yaxis()
    left.set_xlim(0, max(r for _, r in rates) * 1.25)
    left.set_xlabel("moves a second")
    points = ("p50", "p90", "p99")
    width = 0.8 / len(pushes)
    for i, (name, push) in enumerate(pushes):
        values = [push.get(f"{p}_ms", 0.0) for p in points]
        shifted = [x + i * width for x in range(len(points))]
        bars = right.bar(shifted, values, width, label=name)
        right.bar_label(bars, fmt="%.0f", fontsize=8, padding=2)
    right.set_xticks([x + width * (len(pushes) - 1) / 2 for x in range(len(points))], points)
    right.set_yscale("log")
    right.set_ylabel("push latency, ms (log)")
    right.set_ylim(top=max(p.get("p99_ms", 1.0) for _, p in pushes) * 4)
    right.legend(loc="upper left", fontsize="small")
    fig.suptitle(f"manhattan bench tables: {played['tables']} tables of 4 people")
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)
