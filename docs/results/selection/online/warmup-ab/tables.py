#!/usr/bin/env python3
"""old-K.csv / new-K.csv (run.sh) -> table.md and ab.png: per point the
median over the 4 runs of auto / MPI's own and xchg's mpi row / MPI's own,
for the benchmark before (old) and after (new) its warm-up change."""
import os
import statistics
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import evaluate  # noqa: E402  (real_run: one real.sh CSV -> its points)

runs = {v: [evaluate.real_run(os.path.join(HERE, f"{v}-{k}.csv")) for k in range(1, 5)]
        for v in ("old", "new")}
keys = sorted(set().union(*runs["old"]))


def med(v, key, field):
    return statistics.median(run[key][field] for run in runs[v])


lines = ["| P | coll | S | auto /MPI, old | auto /MPI, new | mpi row, old | mpi row, new | "
         "auto's choices, new |", "|" + "---|" * 8]
for k in keys:
    lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {med('old', k, 'auto_over_mpi'):.3f} | "
                 f"{med('new', k, 'auto_over_mpi'):.3f} | {med('old', k, 'mpi_over_mpi'):.3f} | "
                 f"{med('new', k, 'mpi_over_mpi'):.3f} | "
                 f"{', '.join(r[k]['auto'].split(':')[0] for r in runs['new'])} |")
summary = []
for v in ("old", "new"):
    auto = [med(v, k, "auto_over_mpi") for k in keys]
    per_run = [sum(r[k]["auto_over_mpi"] <= 1.02 for k in keys) for r in runs[v]]
    summary.append(f"{v}: auto at most 1.02x MPI's own at {sum(a <= 1.02 for a in auto)} of "
                   f"{len(keys)} points (median of 4 runs; the runs alone: {per_run}); median "
                   f"auto {statistics.median(auto):.3f}, median mpi row "
                   f"{statistics.median(med(v, k, 'mpi_over_mpi') for k in keys):.3f}")
with open(os.path.join(HERE, "table.md"), "w") as f:
    f.write("\n\n".join(summary) + "\n\n" + "\n".join(lines) + "\n")
print("\n".join(summary))

fig, ax = plt.subplots(figsize=(11, 4.2))
x = range(len(keys))
for v, off, color in (("old", -0.2, "tab:gray"), ("new", 0.2, "tab:blue")):
    ax.bar([i + off for i in x], [med(v, k, "auto_over_mpi") - 1 for k in keys], 0.4, bottom=1,
           color=color, label=f"auto / MPI's own, {v} warm-up")
ax.plot(list(x), [med("new", k, "mpi_over_mpi") for k in keys], "k_", markersize=12,
        label="xchg's mpi row, new")
ax.axhline(1.02, color="red", lw=0.8, ls="--", label="1.02")
ax.set_xticks(list(x))
ax.set_xticklabels([f"{k[0]} {k[1][:9]} {k[2]}" for k in keys], rotation=70, fontsize=7)
ax.set_ylim(0.55, 1.12)
ax.set_ylabel("median of 4 runs / MPI's own")
ax.legend(fontsize=7, ncol=4, loc="lower left")
fig.tight_layout()
fig.savefig(os.path.join(HERE, "ab.png"), dpi=120)
