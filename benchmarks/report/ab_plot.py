#!/usr/bin/env python3
"""Plots alternated A/B pairs (benchmarks/results/issue17-ab.json): for each change, the CPU per
notification before and after it, each run a dot and the mean a bar.

Install:  pip install matplotlib
Run:      python3 benchmarks/report/ab_plot.py [results-file] [png]
          (defaults: benchmarks/results/issue17-ab.json, docs/benchmarks/issue17-ab.png)
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results/issue17-ab.json"
    target = sys.argv[2] if len(sys.argv) > 2 else "docs/benchmarks/issue17-ab.png"
    with open(source) as f:
        data = json.load(f)
    changes = data["changes"]
    fig, ax = plt.subplots(figsize=(10, 0.9 * len(changes) + 1.5))
    for row, change in enumerate(reversed(changes)):
        for offset, key, color in ((0.18, "before", "#b0b0b0"), (-0.18, "after", "#2b6cb0")):
            runs = change[key]
            mean = sum(runs) / len(runs)
            ax.barh(row + offset, mean, height=0.34, color=color, label=key if row == 0 else None)
            ax.scatter(runs, [row + offset] * len(runs), color="black", s=10, zorder=3)
            ax.text(mean + 0.5, row + offset, f"{mean:.1f}", va="center", fontsize=8)
    ax.set_yticks(range(len(changes)))
    ax.set_yticklabels([f"{c['change']} ({c['tokens']} token{'s' if c['tokens'] > 1 else ''})" for c in reversed(changes)], fontsize=8)
    ax.set_xlabel(data["unit"])
    ax.set_title("Issue 17: CPU per notification before and after each change", fontsize=10)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(target, dpi=110)
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
