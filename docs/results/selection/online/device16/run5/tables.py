#!/usr/bin/env python3
"""The fifth device run's tables (README.md beside this file), from the files
scripts/device/run.sh brought back:
  real/results-K.csv   real.sh's five runs at 4 and 8 ranks (two calls of the
                       device: runs 1-3, then 4-5) -> real.md, real.json,
                       real.png (the parent folder's evaluate.py, pointed here)
  wide-16.csv          one real.sh run at 16 ranks
  order-1.csv, order-2.csv   order.sh (auto against xchg's mpi rows)
and prints the per-rank-count counts the README quotes.
  usage: /usr/bin/python3 docs/results/selection/online/device16/run5/tables.py
"""
import collections
import csv
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import evaluate  # noqa: E402  (docs/results/selection/online/evaluate.py)


def counts(points_per_run, label):
    """Per rank count: auto at most 1.02x and 1.05x MPI's own, within 5% of
    the fastest row, xchg's mpi row at most 1.02x, on the median over the runs."""
    keys = sorted(set().union(*points_per_run))
    for nranks in sorted({k[0] for k in keys}):
        ks = [k for k in keys if k[0] == nranks]

        def med(key, field):
            return statistics.median(run[key][field] for run in points_per_run if key in run)
        auto = [med(k, "auto_over_mpi") for k in ks]
        best = [med(k, "auto_over_best") for k in ks]
        mpi = [med(k, "mpi_over_mpi") for k in ks]
        per_run = [sum(run[k]["auto_over_mpi"] <= 1.02 for k in ks if k in run)
                   for run in points_per_run]
        print(f"{label}, {nranks} ranks, {len(ks)} points: auto <= 1.02x {sum(a <= 1.02 for a in auto)} "
              f"(runs: {per_run}), <= 1.05x {sum(a <= 1.05 for a in auto)}, within 5% of the fastest "
              f"row {sum(b <= 1.05 for b in best)}, mpi row <= 1.02x {sum(m <= 1.02 for m in mpi)}, "
              f"worst auto {max(auto):.3f}, median mpi row {statistics.median(mpi):.3f}")


def order(path):
    """order.sh's rows: auto (both rows) within 0.03 of the worse mpi row,
    auto at most 1.02x, the median mpi row, the worst auto row, the choices."""
    points = collections.defaultdict(list)
    with open(path) as f:
        for row in csv.DictReader(f):
            points[(row["np"], row["coll"], row["S_bytes"])].append(
                (row["algorithm"], float(row["ratio"])))
    within = at_most = 0
    mpi_rows, gaps, choices, worst = [], [], collections.Counter(), (0.0, None)
    for key, rows in points.items():
        mpi = [r for a, r in rows if a == "mpi"]
        auto = [(a, r) for a, r in rows if a.startswith("auto")]
        mpi_rows += mpi
        choices.update(a for a, _ in auto)
        within += all(r <= max(mpi) + 0.03 for _, r in auto)
        at_most += all(r <= 1.02 for _, r in auto)
        gaps.append(statistics.mean(r for _, r in auto) - statistics.mean(mpi))
        worst = max(worst, (max(r for _, r in auto), key))
    print(f"{os.path.basename(path)}: auto within 0.03 of the worse mpi row at {within} of "
          f"{len(points)}, auto at most 1.02x at {at_most}; median mpi row "
          f"{statistics.median(mpi_rows):.3f}; auto minus mpi (means of the two rows): median "
          f"{statistics.median(gaps):+.4f}; worst auto {worst[0]:.3f} at {worst[1]}; "
          f"choices {dict(choices)}")


if __name__ == "__main__":
    evaluate.HERE = HERE
    evaluate.real()
    counts([evaluate.real_run(os.path.join(HERE, "real", f"results-{k}.csv")) for k in range(1, 6)],
           "real.sh, 5 runs")
    counts([evaluate.real_run(os.path.join(HERE, "wide-16.csv"))], "real.sh, 1 run")
    for k in (1, 2):
        order(os.path.join(HERE, f"order-{k}.csv"))
