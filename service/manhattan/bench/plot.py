"""The tournament's PNG: candidate win rate against budget, one line per player count, with
95% Wilson intervals as error bars and the fair-share rate (1 / players) dotted.

Needs matplotlib (``pip install 'manhattan-rules[plot]'``); imported only when a plot is asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from manhattan.bench.arena import bot_label
from manhattan.bots import BotChoice


def plot_win_rates(
    summaries: Sequence[dict[str, Any]], candidates: Sequence[BotChoice], path: str
) -> None:
    # matplotlib is an optional extra (``[plot]``) and slow to import: only a plot loads it.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [bot_label(c) for c in candidates]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for players in sorted({s["players"] for s in summaries}):
        rows = {s["candidate"]: s for s in summaries if s["players"] == players}
        xs = [i for i, label in enumerate(labels) if label in rows]
        rates = [rows[labels[i]]["win_rate"] for i in xs]
        low = [r - rows[labels[i]]["ci95"][0] for i, r in zip(xs, rates, strict=True)]
        high = [rows[labels[i]]["ci95"][1] - r for i, r in zip(xs, rates, strict=True)]
        line = ax.errorbar(
            xs, rates, yerr=[low, high], marker="o", capsize=4, label=f"{players} players"
        )
        ax.axhline(1 / players, linestyle=":", color=line[0].get_color(), linewidth=1)
    opponent = summaries[0]["opponent"] if summaries else "?"
    ax.set_xticks(range(len(labels)), labels, rotation=15)
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (sole first place), 95% CI")
    ax.set_xlabel("candidate budget per move")
    ax.set_title(f"{candidates[0].level if candidates else '?'} against {opponent} bots")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
