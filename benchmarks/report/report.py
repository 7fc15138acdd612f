#!/usr/bin/env python3
"""Turns `herald-dev bench` result files into Markdown tables and PNG plots for docs/benchmarks.md.

Install:  pip install matplotlib
Run:      python3 benchmarks/report/report.py [results-dir] [plots-dir]
          (defaults: benchmarks/results, docs/benchmarks)

Writes, per scenario found in the results:
  <scenario>-throughput.png   completions per second over each run's seconds
  <scenario>-latency.png      p50/p90/p99/p99.9/max per run
  <scenario>-load.png         latency percentiles against offered load (open-loop runs), when
                              there are at least two open-loop runs
and prints a Markdown table per scenario (the run, its mode, rate, throughput, percentiles,
errors) to paste next to the plots, naming each plot it wrote.
"""

import json
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PERCENTILES = [("p50", "p50"), ("p90", "p90"), ("p99", "p99"), ("p999", "p99.9"), ("max", "max")]


def load(results):
    runs = []
    for name in sorted(os.listdir(results)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(results, name)) as handle:
            run = json.load(handle)
        run["file"] = name
        runs.append(run)
    return runs


def label(run):
    if run["mode"] == "closed":
        return f"closed, {run['concurrency']} in flight"
    return f"open, {run.get('offeredRate', run['requestsPerSecond']):.0f}/s"


def offered(run):
    return run.get("offeredRate") or run["requestsPerSecond"]


def table(scenario, runs):
    lines = [
        f"**{scenario}** (`benchmarks/results/`, rendered by `benchmarks/report/report.py`)",
        "",
        "| run | notifications/s | p50 | p90 | p99 | p99.9 | max | errors |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        latency = run["latencyMilliseconds"]
        errors = sum(run.get("errors", {}).values())
        cells = [f"{latency[key]:.1f} ms" for key, _ in PERCENTILES]
        lines.append(f"| {label(run)} | {run['notificationsPerSecond']:,.0f} | " + " | ".join(cells) + f" | {errors} |")
    return "\n".join(lines)


def plot_throughput(scenario, runs, directory):
    figure, axes = plt.subplots(figsize=(7, 3.5))
    for run in runs:
        series = run.get("completedPerSecond", [])
        # The last bucket is a partial second.
        series = series[:-1] if len(series) > 1 else series
        axes.plot(range(1, len(series) + 1), series, marker="o", markersize=3, label=label(run))
    axes.set_xlabel("second of the run")
    axes.set_ylabel("requests completed / s")
    axes.set_title(f"{scenario}: throughput over time")
    axes.set_ylim(bottom=0)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    return save(figure, directory, f"{scenario}-throughput.png")


def plot_latency(scenario, runs, directory):
    figure, axes = plt.subplots(figsize=(7, 3.5))
    width = 0.8 / max(len(runs), 1)
    for index, run in enumerate(runs):
        values = [run["latencyMilliseconds"][key] for key, _ in PERCENTILES]
        positions = [p + index * width for p in range(len(PERCENTILES))]
        axes.bar(positions, values, width=width, label=label(run))
    axes.set_xticks([p + width * (len(runs) - 1) / 2 for p in range(len(PERCENTILES))])
    axes.set_xticklabels([name for _, name in PERCENTILES])
    axes.set_ylabel("latency (ms)")
    axes.set_yscale("log")
    axes.set_title(f"{scenario}: latency percentiles")
    axes.grid(alpha=0.3, axis="y")
    axes.legend(fontsize=8)
    return save(figure, directory, f"{scenario}-latency.png")


def plot_load(scenario, runs, directory):
    open_runs = sorted((run for run in runs if run["mode"] != "closed"), key=offered)
    if len(open_runs) < 2:
        return None
    figure, axes = plt.subplots(figsize=(7, 3.5))
    rates = [offered(run) for run in open_runs]
    for key, name in PERCENTILES[:-1]:
        axes.plot(rates, [run["latencyMilliseconds"][key] for run in open_runs], marker="o", label=name)
    axes.set_xlabel("offered load (requests/s)")
    axes.set_ylabel("latency (ms)")
    axes.set_yscale("log")
    axes.set_title(f"{scenario}: latency against offered load (open loop)")
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    return save(figure, directory, f"{scenario}-load.png")


def save(figure, directory, name):
    figure.tight_layout()
    path = os.path.join(directory, name)
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def main():
    results = sys.argv[1] if len(sys.argv) > 1 else "benchmarks/results"
    directory = sys.argv[2] if len(sys.argv) > 2 else "docs/benchmarks"
    os.makedirs(directory, exist_ok=True)
    by_scenario = defaultdict(list)
    for run in load(results):
        by_scenario[run["scenario"]].append(run)
    for scenario, runs in sorted(by_scenario.items()):
        runs.sort(key=lambda run: (run["mode"] != "closed", offered(run)))
        print(table(scenario, runs))
        print()
        for path in (plot_throughput(scenario, runs, directory), plot_latency(scenario, runs, directory),
                     plot_load(scenario, runs, directory)):
            if path:
                print(f"![{os.path.basename(path)}]({os.path.relpath(path, 'docs')})")
        print()


if __name__ == "__main__":
    main()
