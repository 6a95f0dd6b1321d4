#!/usr/bin/env python3
"""bias.csv and regime.csv (run.sh) -> table.md: per point and candidate the
median over the runs of (exploration's median / the benchmark's row), and
the regime experiment's medians."""
import collections
import csv
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
ratios = collections.defaultdict(list)
with open(os.path.join(HERE, "bias.csv")) as f:
    for r in csv.DictReader(f):
        ratios[(int(r["np"]), r["coll"], int(r["S"]))].append(
            (r["candidate"], float(r["explored_us"]) / float(r["row_us"])))
lines = ["| P | coll | S | runs | `mpi`: explored / row | `linear` | `nonblocking` | "
         "`mpi` against the others |", "|---|---|---|---:|---:|---:|---:|---:|"]
for key in sorted(ratios):
    by = collections.defaultdict(list)
    for cand, ratio in ratios[key]:
        by[cand].append(ratio)
    med = {c: statistics.median(v) for c, v in by.items()}
    others = [med[c] for c in ("linear", "nonblocking") if c in med]
    rel = med["mpi"] / statistics.mean(others) if "mpi" in med and others else None
    fmt = lambda c: f"{med[c]:.3f}" if c in med else "-"  # noqa: E731
    lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {len(by.get('mpi', []))} | {fmt('mpi')} | "
                 f"{fmt('linear')} | {fmt('nonblocking')} | "
                 f"{'-' if rel is None else f'{rel:.3f}'} |")
regime = collections.defaultdict(list)
with open(os.path.join(HERE, "regime.csv")) as f:
    for r in csv.DictReader(f):
        regime[(r["mode"], r["exchange"])].append(float(r["median_us"]))
rlines = ["| before the barrier | MPI_Alltoallv (us) | linear (us) |", "|---|---:|---:|"]
for mode in ("barrier", "allreduce+barrier", "barrier+allreduce+barrier", "sweep+barrier"):
    m = statistics.median(regime[(mode, "MPI_Alltoallv")])
    lin = statistics.median(regime[(mode, "linear")])
    rlines.append(f"| {mode} | {m:.3f} | {lin:.3f} |")
with open(os.path.join(HERE, "table.md"), "w") as f:
    f.write("\n".join(lines) + "\n\n" + "\n".join(rlines) + "\n")
print("\n".join(lines) + "\n\n" + "\n".join(rlines))
