#!/usr/bin/python3
"""Held-out evaluation of automatic selection on 16 real cores (README.md).

select-test.csv: xchg-bench rows prefixed by a mode column: "model" (every
algorithm and parameter variant the tuner tries, plus auto as the built-in
model chooses) and "tuned" (auto and MPI only, with XCHG_TUNING_FILE =
tuning-16x4.json, tuned at other sizes). Times are compared through the
ratio to MPI's own collective in the same run (the runs differ).
Prints a markdown table and the summary; writes chosen-vs-best.png.
Usage: /usr/bin/python3 evaluate.py [select-test.csv]
"""
import csv
import os
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
rows = [r for r in csv.DictReader(open(sys.argv[1] if len(sys.argv) > 1 else
                                       os.path.join(HERE, "select-test.csv")))
        if r["status"] == "ok"]
cases = defaultdict(lambda: defaultdict(dict))  # case -> mode -> algorithm -> ratio to MPI
for r in rows:
    case = (int(r["P"]) // int(r["nodes"]), r["coll"], r["dist"] or "uniform", int(r["S_bytes"]))
    cases[case][r["mode"]][r["algorithm"]] = float(r["ratio"])

ARRIVAL = ("rma_direct", "shm_direct")  # not in the cost model (no skew input)
out, stats = [], defaultdict(list)
print("| nodes of | coll | counts | S | best xchg (any) | best modelled | auto (model) | "
      "auto (tuned file) | model / best | tuned / best | model vs MPI | tuned vs MPI |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for case in sorted(cases):
    m = cases[case]["model"]
    xs = {a: v for a, v in m.items() if a not in ("MPI", "mpi") and not a.startswith("auto")}
    if not xs:
        continue
    best_any = min(xs.items(), key=lambda kv: kv[1])
    best_mod = min(((a, v) for a, v in xs.items() if not a.startswith(ARRIVAL)),
                   key=lambda kv: kv[1])
    auto_m = next(((a, v) for a, v in m.items() if a.startswith("auto")), None)
    auto_t = next(((a, v) for a, v in cases[case]["tuned"].items() if a.startswith("auto")), None)
    cell = lambda av: "%s %.2f" % av if av else "-"  # noqa: E731
    rel = lambda av: av[1] / best_mod[1] if av else None  # noqa: E731
    for name, av in (("model", auto_m), ("tuned", auto_t)):
        if av:
            stats[name].append((rel(av), av[1], case))
    print("| %d | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        case + (cell(best_any), cell(best_mod), cell(auto_m), cell(auto_t),
                "%.2f" % rel(auto_m) if auto_m else "-", "%.2f" % rel(auto_t) if auto_t else "-",
                "%.2f" % auto_m[1] if auto_m else "-", "%.2f" % auto_t[1] if auto_t else "-")))
    out.append((case, best_mod[1], auto_m[1] if auto_m else None, auto_t[1] if auto_t else None))

print("\nRatios are times over MPI's own collective in the same run (< 1: faster than MPI).")
for name, s in stats.items():
    within = sum(r <= 1.10 for r, _, _ in s)
    worst = max(s)
    slower = sum(v > 1.05 for _, v, _ in s)
    print("- auto (%s): within 10%% of the best modelled algorithm in %d of %d cases; worst "
          "%.2fx (%s); more than 5%% slower than MPI in %d." % (
              name, within, len(s), worst[0], worst[2], slower))

import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
fig, ax = plt.subplots(figsize=(9, 3.8))
x = range(len(out))
ax.plot(x, [o[1] for o in out], "ks", label="best modelled xchg algorithm")
ax.plot(x, [o[2] for o in out], "o", color="tab:blue", label="auto (built-in model)")
ax.plot(x, [o[3] for o in out], "^", color="tab:orange", label="auto (tuning file)")
ax.axhline(1.0, color="gray", lw=0.8, ls="--")
ax.set_xticks(list(x))
ax.set_xticklabels(["%s %s\n%d B /%d" % (c[1][-1] == "v" and "a2av" or "a2a", c[2][:2], c[3], c[0])
                    for c, *_ in out], fontsize=7)
ax.set_ylabel("time / MPI's own (same run)")
ax.set_title("16 real cores: chosen vs best per held-out case (label: coll, counts, S / ranks per node)",
             fontsize=9)
ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(os.path.join(HERE, "chosen-vs-best.png"), dpi=110)
