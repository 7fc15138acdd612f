#!/usr/bin/env python3
"""Plots a churn run's log (the output of benchmarks/scripts/churn-window.sh): registration
writes so far and the log keys etcd holds, over time, so the window's flat line shows beside the
writes' rising one.

Install:  pip install matplotlib
Run:      python3 benchmarks/report/churn_plot.py churn.log [png]
          (default png: docs/benchmarks/churn-window.png)
"""

import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LINE = re.compile(r"t=(\d+)s writes=(\d+) log-keys=(\d+) head=(\d+)")


def main():
    source = sys.argv[1]
    target = sys.argv[2] if len(sys.argv) > 2 else "docs/benchmarks/churn-window.png"
    rows = [tuple(int(x) for x in m.groups()) for m in map(LINE.search, open(source)) if m]
    minutes = [r[0] / 60 for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(minutes, [r[1] / 1000 for r in rows], color="#2b6cb0", label="registration writes (thousands)")
    ax.plot(minutes, [r[2] / 1000 for r in rows], color="#c05621", label="log keys in etcd (thousands)")
    ax.set_xlabel("minutes of load")
    ax.set_ylabel("thousands")
    ax.set_title("Churn on cluster/up 3: 100,000 subjects re-registering; retention 10,000 revisions", fontsize=10)
    ax.legend(loc="upper left")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(target, dpi=110)
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
