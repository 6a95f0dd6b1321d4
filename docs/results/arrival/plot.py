#!/usr/bin/python3
"""Figures and a table from results.csv (written by run.sh).

  arrival-<coll>-<dist>.png  completion time (mean over ranks of exit minus own
                             arrival) against S, one panel per MIF, one line per
                             row (MPI, rma_direct copy/zerocopy, shm_direct,
                             aware=1/0):
                             the layout of Figures 8 and 11 of Qian & Afsahi 2011
Prints a markdown table on stdout: per collective, distribution, MIF and S, the
completion time of each row and the gain of arrival awareness
(aware=0 / aware=1, > 1: the aware version is faster) per scheme.
Usage: /usr/bin/python3 docs/results/arrival/plot.py [results.csv [outdir]]
"""
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labels import label  # noqa: E402

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results.csv")
OUTDIR = sys.argv[2] if len(sys.argv) > 2 else HERE


rows = [r for r in csv.DictReader(open(CSV)) if r["status"] == "ok"]
# data[(coll, dist)][mif][label] = [(S, completion_us, span_us)]
data = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
for r in rows:
    data[(r["coll"], r["skew_dist"])][float(r["skew_mif"])][label(r["algorithm"])].append(
        (int(r["S_bytes"]), float(r["median_us"]), float(r["span_us"])))

for (coll, dist), by_mif in sorted(data.items()):
    mifs = sorted(by_mif)
    fig, axes = plt.subplots(1, len(mifs), figsize=(4.2 * len(mifs), 3.6), squeeze=False)
    for ax, mif in zip(axes[0], mifs):
        for lab, pts in sorted(by_mif[mif].items()):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3, label=lab,
                    linestyle="--" if "not aware" in lab else "-")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title("MIF %g" % mif)
        ax.set_xlabel("S (bytes per block)")
        ax.set_ylabel("completion time (us)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("%s, %s arrival (P=%s)" % (coll, dist, rows[0]["P"]))
    fig.tight_layout()
    path = os.path.join(OUTDIR, "arrival-%s-%s.png" % (coll, dist))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print("wrote %s" % path, file=sys.stderr)

print("| coll | dist | MIF | S | MPI | copy | copy (not aware) | zerocopy | zerocopy (not aware) "
      "| shm | shm (not aware) | gain copy | gain zerocopy | gain shm |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (coll, dist), by_mif in sorted(data.items()):
    for mif in sorted(by_mif):
        sizes = sorted({p[0] for pts in by_mif[mif].values() for p in pts})
        for s in sizes:
            t = {lab: next((p[1] for p in pts if p[0] == s), None)
                 for lab, pts in by_mif[mif].items()}
            cell = lambda k: "%.1f" % t[k] if t.get(k) else "-"  # noqa: E731
            gain = lambda a, b: ("%.2f" % (t[b] / t[a])  # noqa: E731
                                 if t.get(a) and t.get(b) else "-")
            print("| %s | %s | %g | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                coll, dist, mif, s, cell("MPI"), cell("copy"), cell("copy (not aware)"),
                cell("zerocopy"), cell("zerocopy (not aware)"), cell("shm"),
                cell("shm (not aware)"), gain("copy", "copy (not aware)"),
                gain("zerocopy", "zerocopy (not aware)"), gain("shm", "shm (not aware)")))
