#!/usr/bin/python3
"""The main job with two builds (run.sh): tables and plot.

`tables.py --collect RAW OLD_LABEL NEW_LABEL` reads run.sh's raw runs
(RAW/{old,new}-N.csv from xchg-bench --csv, RAW/{old,new}-N.txt with the
XCHG_VERBOSE lines) and appends them to main-job.csv (every row of every
run) and explored.csv (each candidate's median in exploration, per run and
size). Without arguments it writes table.md and long-runs.png from those.
"""
import collections
import csv
import glob
import math
import os
import re
import statistics
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MAIN, EXPLORED = os.path.join(HERE, "main-job.csv"), os.path.join(HERE, "explored.csv")
GOAL = 1.02
TRIED = re.compile(r"xchg: online alltoallv, P=\d+, \d+ B \(largest (\d+) B.*?: tried (.*) "
                   r"\(median of up to (\d+), slowest rank\) -> (\S+);")
CAND = re.compile(r"(?:, )?([a-z_]+(?::\S+?)?) ([0-9.]+) us( \(dropped after \d+\))?")


def append(path, header, rows):
    new = not os.path.exists(path)
    with open(path, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(header)
        w.writerows(rows)


def collect(raw, labels):
    for side, label in zip(("old", "new"), labels):
        for path in sorted(glob.glob(os.path.join(raw, side + "-*.csv"))):
            run = int(re.search(r"-(\d+)\.csv$", path).group(1))
            rows, sizes = [], []
            with open(path) as f:
                for r in csv.DictReader(f):
                    if r["status"] != "ok":
                        continue
                    s = int(r["S_bytes"])
                    sizes.append(s)
                    rows.append([label, run, s, r["algorithm"], r["median_us"], r["ratio"]])
            append(MAIN, ["build", "run", "S_bytes", "algorithm", "median_us", "ratio"], rows)
            sizes = sorted(set(sizes))
            seen, explored = set(), []
            with open(path[:-4] + ".txt") as f:
                for m in TRIED.finditer(f.read()):
                    largest = int(m.group(1))  # the size: the nearest S (buckets of 1/4 octave)
                    s = min(sizes, key=lambda x: abs(math.log2(x) - math.log2(max(largest, 1))))
                    if s in seen:
                        continue  # a later exploration of the same size (a re-check)
                    seen.add(s)
                    for name, us, dropped in CAND.findall(m.group(2)):
                        explored.append([label, run, s, name, us, int(bool(dropped)),
                                         int(name == m.group(4))])
            append(EXPLORED, ["build", "run", "S_bytes", "candidate", "explored_us", "dropped",
                              "winner"], explored)


def read():
    rows = collections.defaultdict(dict)  # (build, run, S) -> {algorithm: (us, ratio)}
    order = []
    with open(MAIN) as f:
        for r in csv.DictReader(f):
            key = (r["build"], int(r["run"]), int(r["S_bytes"]))
            rows[key][r["algorithm"]] = (float(r["median_us"]), float(r["ratio"]))
            if r["build"] not in order:
                order.append(r["build"])
    explored = collections.defaultdict(dict)
    with open(EXPLORED) as f:
        for r in csv.DictReader(f):
            explored[(r["build"], int(r["run"]), int(r["S_bytes"]))][r["candidate"]] = \
                float(r["explored_us"])
    return rows, explored, order


def auto_of(cells):
    name = next(a for a in cells if a.startswith("auto["))
    return name[5:-1].split(":")[0], cells[name][1]


def tables(rows, explored, order):
    out = ["<!-- long-runs table (tables.py) -->",
           f"`auto` over MPI's own: median over the runs (range), and in how many runs over "
           f"{GOAL}x / in how many it ran `mpi`:", ""]
    sizes = sorted({k[2] for k in rows})
    out += ["| S | " + " | ".join(order) + " |", "|---:|" + "---:|" * len(order)]
    # cells over GOAL, all cells, the same from 512 B, sizes whose median is over GOAL,
    # cells from 512 B that ran mpi
    counts = {b: [0, 0, 0, 0, 0, 0] for b in order}
    for s in sizes:
        cells = []
        for b in order:
            runs = [rows[k] for k in sorted(rows) if k[0] == b and k[2] == s]
            got = [auto_of(c) for c in runs]
            ratios = [r for _, r in got]
            over = sum(r > GOAL for r in ratios)
            ran_mpi = sum(n == "mpi" for n, _ in got)
            counts[b][0] += over
            counts[b][1] += len(ratios)
            counts[b][4] += statistics.median(ratios) > GOAL
            if s >= 512:
                counts[b][2] += over
                counts[b][3] += len(ratios)
                counts[b][5] += ran_mpi
            cells.append(f"{statistics.median(ratios):.3f} ({min(ratios):.2f}-{max(ratios):.2f}) "
                         f"{over}/{ran_mpi}")
        out.append(f"| {s} | " + " | ".join(cells) + " |")
    out.append("")
    for b in order:
        c = counts[b]
        out.append(f"- {b}: the median over the runs over {GOAL}x MPI's own at {c[4]} of "
                   f"{len(sizes)} sizes; single runs over {GOAL}x in {c[0]} of {c[1]} (run, size) "
                   f"cells, from 512 B in {c[2]} of {c[3]}; from 512 B `auto` ran `mpi` in {c[5]} "
                   f"of {c[3]}.")
    out += ["", "Exploration's median of a candidate over its own row in the same run "
            "(median over runs; `mpi`: xchg's `mpi` row):", "",
            "| build | sizes | mpi | nonblocking | node_aware_overlap | runs x sizes |",
            "|---|---|---:|---:|---:|---:|"]
    for b in order:
        for lo, hi in ((16, 256), (512, 16384)):
            cols, n = [], 0
            for full in CANDIDATES.values():
                v = bias(rows, explored, b, lo, hi, full)
                n = max(n, len(v))
                cols.append(f"{statistics.median(v):.3f}" if v else "-")
            out.append(f"| {b} | {lo}-{hi} B | " + " | ".join(cols) + f" | {n} |")
    out.append("<!-- /long-runs table -->")
    return "\n".join(out) + "\n"


CANDIDATES = {"mpi": "mpi", "nonblocking": "nonblocking",
              "node_aware_overlap": "node_aware_overlap:batches=each"}


def bias(rows, explored, build, lo, hi, full):
    """Exploration's median of candidate `full` over its row, per (run, size)."""
    return [explored[k][full] / rows[k][full][0] for k in explored
            if k[0] == build and lo <= k[2] <= hi and full in explored[k] and full in rows[k]]


def plot(rows, explored, order):
    sizes = sorted({k[2] for k in rows})
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.4), gridspec_kw={"width_ratios": [3, 2]})
    for i, b in enumerate(order):
        for j, s in enumerate(sizes):
            ratios = [auto_of(rows[k])[1] for k in rows if k[0] == b and k[2] == s]
            x = j + (i - (len(order) - 1) / 2) * 0.8 / len(order)
            ax.scatter([x] * len(ratios), ratios, s=8, alpha=0.5, color=f"C{i}",
                       label=b if j == 0 else None)
            ax.plot([x - 0.05, x + 0.05], [statistics.median(ratios)] * 2, color=f"C{i}", lw=2)
    ax.axhline(GOAL, color="gray", ls="--", lw=1)
    ax.axhline(1.0, color="black", lw=0.5)
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels([str(s) for s in sizes], fontsize=8)
    ax.set_xlabel("S (bytes, largest alltoallv block)")
    ax.set_ylabel("auto / MPI_Alltoallv (same run)")
    ax.set_ylim(0.7, 1.2)
    ax.set_title("README main job, 8 ranks on 2 cores: auto per run, median (bar)", fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    width = 0.8 / len(order)
    for i, b in enumerate(order):
        med = [statistics.median(bias(rows, explored, b, 512, 1 << 30, full) or [float("nan")])
               for full in CANDIDATES.values()]
        bx.bar([j + (i - (len(order) - 1) / 2) * width for j in range(len(CANDIDATES))], med,
               width, color=f"C{i}", label=b)
    bx.axhline(1.0, color="black", lw=0.5)
    bx.set_xticks(range(len(CANDIDATES)))
    bx.set_xticklabels(list(CANDIDATES), fontsize=8)
    bx.set_ylim(0.9, 1.25)
    bx.set_ylabel("explored median / own row (512 B - 16 KiB)")
    bx.set_title("What exploration reads, against the benchmark", fontsize=10)
    bx.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "long-runs.png"), dpi=110)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--collect":
        collect(sys.argv[2], sys.argv[3:5])
        return
    rows, explored, order = read()
    text = tables(rows, explored, order)
    with open(os.path.join(HERE, "table.md"), "w") as f:
        f.write(text)
    readme = os.path.join(HERE, "README.md")
    if os.path.exists(readme):
        body = open(readme).read()
        a, b = body.find("<!-- long-runs table"), body.find("<!-- /long-runs table -->")
        if a >= 0 and b > a:
            body = body[:a] + text + body[b + len("<!-- /long-runs table -->\n"):]
            open(readme, "w").write(body)
    plot(rows, explored, order)


if __name__ == "__main__":
    main()
