#!/usr/bin/python3
"""Figure and table from results.csv (written by run.sh in this directory).

  arrival-sim-<dist>.png  completion time (mean over ranks of exit minus own arrival,
                   mean of the 2 timed calls, simulated) against MIF, one panel
                   per S, one line per algorithm.
Prints a markdown table: per S and MIF, the completion time of each algorithm
(us) and the ratios MPI / rma aware=1 and rma aware=0 / rma aware=1.
Usage: /usr/bin/python3 docs/results/arrival-sim/plot.py [results.csv [outdir]]
"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results.csv")
OUTDIR = sys.argv[2] if len(sys.argv) > 2 else HERE
NAMES = {"mpi": "MPI_Alltoall (SMPI, mpich selector)",
         "rma_direct:scheme=copy,aware=1": "rma_direct copy, aware=1",
         "rma_direct:scheme=copy,aware=0": "rma_direct copy, aware=0",
         "pairwise": "xchg pairwise", "scattered": "xchg scattered"}

t = defaultdict(dict)  # (S, mif) -> algo -> us
meta = {}
lines = list(csv.reader(open(CSV)))
head = lines[0]
for fields in lines[1:]:
    extra = len(fields) - len(head)  # an unquoted algo with commas
    if extra > 0:
        fields = fields[:1] + [",".join(fields[1:2 + extra])] + fields[2 + extra:]
    r = dict(zip(head, fields))
    if r["status"] != "ok" or r["verified"] != "ok":
        continue
    t[(int(r["S"]), float(r["skew_mif"]))][r["algo"].strip('"')] = float(r["t_avg"]) * 1e6
    meta = {"P": r["P"], "nodes": r["nodes"], "Q": r["Q"], "dist": r["skew_dist"]}
sizes = sorted({s for s, _ in t})
algos = [a for a in NAMES if any(a in v for v in t.values())]
fig, axes = plt.subplots(1, len(sizes), figsize=(4.5 * len(sizes), 3.8), squeeze=False)
for ax, s in zip(axes[0], sizes):
    for a in algos:
        pts = sorted((m, v[a]) for (ss, m), v in t.items() if ss == s and a in v)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=NAMES[a])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_title("alltoall, S = %d B, P = %s (%s x %s), %s" % (s, meta["P"], meta["nodes"], meta["Q"],
                                                                 meta["dist"]), fontsize=9)
    ax.set_xlabel("MIF (delay bound = MIF x T(S))")
    ax.set_ylabel("completion time (us, simulated)")
    ax.grid(True, which="both", alpha=0.3)
axes[0][0].legend(fontsize=7)
fig.tight_layout()
fig.savefig(os.path.join(OUTDIR, "arrival-sim-%s.png" % meta["dist"]), dpi=110)

cols = algos
print("| S | MIF | " + " | ".join(NAMES[a] for a in cols) + " | MPI / aware=1 | aware=0 / aware=1 |")
print("|---|---|" + "---|" * (len(cols) + 2))
for (s, m) in sorted(t):
    v = t[(s, m)]
    a1 = v.get("rma_direct:scheme=copy,aware=1")
    a0 = v.get("rma_direct:scheme=copy,aware=0")
    mp = v.get("mpi")
    ratio = lambda x, y: "%.2f" % (x / y) if x and y else "-"  # noqa: E731
    print("| %d | %g | " % (s, m) + " | ".join("%.1f" % v[a] if a in v else "-" for a in cols)
          + " | %s | %s |" % (ratio(mp, a1), ratio(a0, a1)))
