#!/usr/bin/python3
"""bursts.csv (run.sh) as periods.png: per line (launch, pass, burst length)
xchg's `nonblocking` and the hand-written exchange against MPI's own."""
import csv
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
rows = list(csv.DictReader(open(os.path.join(HERE, "bursts.csv"))))
lib = [float(r["library_us"]) for r in rows]
fig, ax = plt.subplots(figsize=(6.5, 5))
ax.scatter(lib, [float(r["xchg_us"]) for r in rows], s=10, label="xchg nonblocking")
ax.scatter(lib, [float(r["handwritten_us"]) for r in rows], s=10, marker="x",
           label="hand-written Isend/Irecv")
top = max(lib) * 1.05
ax.plot([0, top], [0, top], "k--", lw=0.8, label="as fast as MPI's own")
ax.set_xlim(0, top)
ax.set_ylim(0, top)
ax.set_xlabel("MPI's own alltoallv, median of the line (us)")
ax.set_ylabel("median of the same line (us)")
ax.set_title("8 ranks, 16 B blocks, 30 launches: periods of the machine")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(os.path.join(HERE, "periods.png"), dpi=110)
