#!/usr/bin/python3
"""Figure and table from results*.csv (written by run.sh in this directory).

  arrival-sim-<tag>.png   completion time (mean over ranks of exit minus own arrival,
                   mean of the 2 timed calls, simulated) against MIF, one panel
                   per S, one line per algorithm. <tag>: the CSV's name after
                   "results-" (nothing for results.csv) followed by the arrival
                   pattern unless the name has it: results.csv -> uniform,
                   results-one-late.csv -> one-late, results-p128.csv ->
                   p128-uniform, results-allgather-p64.csv -> allgather-p64-uniform.
Prints a markdown table: per S and MIF, the completion time of each algorithm
(us) and the ratios MPI / rma aware=1 and rma aware=0 / rma aware=1; "n/f": the
smpirun did not finish (error or timeout), FAIL: the byte check failed.
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
NAMES = {"mpi": "MPI_%s (SMPI, mpich selector)",
         "rma_direct:scheme=copy,aware=1": "rma_direct copy, aware=1",
         "rma_direct:scheme=copy,aware=0": "rma_direct copy, aware=0",
         "pairwise": "xchg pairwise", "scattered": "xchg scattered",
         "scattered:batch=32": "xchg scattered:batch=32",
         "ring": "xchg ring", "recursive_doubling": "xchg recursive_doubling",
         "bruck": "xchg bruck"}

t = defaultdict(dict)  # (S, mif) -> algo -> us
bad = defaultdict(dict)  # (S, mif) -> algo -> "n/f" or "FAIL"
meta = {}
lines = list(csv.reader(open(CSV)))
head = lines[0]
for fields in lines[1:]:
    extra = len(fields) - len(head)  # an unquoted algo with commas
    if extra > 0:
        fields = fields[:1] + [",".join(fields[1:2 + extra])] + fields[2 + extra:]
    r = dict(zip(head, fields))
    key, algo = (int(r["S"]), float(r["skew_mif"])), r["algo"].strip('"')
    meta = {"P": r["P"], "nodes": r["nodes"], "Q": r["Q"], "dist": r["skew_dist"], "coll": r["coll"]}
    if r["status"] != "ok" or r["verified"] != "ok":
        bad[key][algo] = "n/f" if r["status"] != "ok" else "FAIL"
        continue
    t[key][algo] = float(r["t_avg"]) * 1e6
coll = meta["coll"].capitalize()
NAMES["mpi"] = NAMES["mpi"] % coll
tag = os.path.basename(CSV)[len("results"):-len(".csv")].strip("-")
if meta["dist"] not in tag:
    tag = (tag + "-" if tag else "") + meta["dist"]
sizes = sorted({s for s, _ in t})
algos = [a for a in NAMES if any(a in v for v in list(t.values()) + list(bad.values()))]
fig, axes = plt.subplots(1, len(sizes), figsize=(4.5 * len(sizes), 3.8), squeeze=False)
for ax, s in zip(axes[0], sizes):
    for a in algos:
        pts = sorted((m, v[a]) for (ss, m), v in t.items() if ss == s and a in v)
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=NAMES[a],
                    color="C%d" % algos.index(a))  # same colour in every panel
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_title("%s, S = %d B, P = %s (%s x %s), %s" % (meta["coll"], s, meta["P"], meta["nodes"],
                                                           meta["Q"], meta["dist"]), fontsize=9)
    ax.set_xlabel("MIF (delay bound = MIF x T(S))")
    ax.set_ylabel("completion time (us, simulated)")
    ax.grid(True, which="both", alpha=0.3)
handles = {}
for ax in axes[0]:
    for h, lab in zip(*ax.get_legend_handles_labels()):
        handles.setdefault(lab, h)
axes[0][0].legend(handles.values(), handles.keys(), fontsize=7)
fig.tight_layout()
fig.savefig(os.path.join(OUTDIR, "arrival-sim-%s.png" % tag), dpi=110)

cols = algos
print("| S | MIF | " + " | ".join(NAMES[a] for a in cols) + " | MPI / aware=1 | aware=0 / aware=1 |")
print("|---|---|" + "---|" * (len(cols) + 2))
for (s, m) in sorted(set(t) | set(bad)):
    v, b = t.get((s, m), {}), bad.get((s, m), {})
    a1 = v.get("rma_direct:scheme=copy,aware=1")
    a0 = v.get("rma_direct:scheme=copy,aware=0")
    mp = v.get("mpi")
    ratio = lambda x, y: "%.2f" % (x / y) if x and y else "-"  # noqa: E731
    print("| %d | %g | " % (s, m) + " | ".join("%.1f" % v[a] if a in v else b.get(a, "-") for a in cols)
          + " | %s | %s |" % (ratio(mp, a1), ratio(a0, a1)))
