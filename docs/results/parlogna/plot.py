#!/usr/bin/python3
"""Figures and summary from results.csv (written by run.sh).

  fig6_time_vs_radix.png  ParLogNa time vs radix for small/medium/large S (paper Fig. 6)
  fig8_radix_heatmap.png  per P: over (S, radix), speedup of ParLogNa over MPI_Alltoallv
                          where it wins, grey where it loses (paper Fig. 8)
  fig12_best.png          best ParLogNa / ParLinNa variants vs MPI_Alltoallv and the
                          best-batch scattered, per S (paper Fig. 12)
  summary.md              ideal radix per S, speedups vs MPI_Alltoallv, where we lose
Usage: /usr/bin/python3 docs/results/parlogna/plot.py  (Debian python3-matplotlib) [results.csv]
"""
import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results.csv")

rows = list(csv.DictReader(open(CSV)))
# t[(P, nodes, dist, S)][algo] = median microseconds
t = defaultdict(dict)
for r in rows:
    if r["status"] != "ok":
        continue
    algo = "mpi" if r["algorithm"] == "MPI" else r["algorithm"]
    t[(int(r["P"]), r["nodes"], r["dist"], int(r["S_bytes"]))][algo] = float(r["median_us"])


def family(algo):
    """Algorithm name; ParLogNa's bounce=copy mode counts as its own family."""
    name = algo.split(":")[0]
    return name + "_copy" if name == "parlogna" and "bounce=copy" in algo else name


def radix(algo):
    return int(algo.split("radix=")[1].split(",")[0])


def best(times, fam):
    cands = {a: v for a, v in times.items() if family(a) == fam}
    if not cands:
        return None, None
    a = min(cands, key=cands.get)
    return a, cands[a]


Ps = sorted({k[0] for k in t})
layouts = sorted({k[1] for k in t}, key=int)
# ParLogNa does not depend on the node layout: use the layout with most nodes.
L0 = {P: max((k[1] for k in t if k[0] == P), key=int) for P in Ps}

# (a) time vs radix
fig, axes = plt.subplots(len(Ps), 3, figsize=(13, 4 * len(Ps)), squeeze=False)
for i, P in enumerate(Ps):
    sizes = sorted({k[3] for k in t if k[0] == P and k[2] == "uniform"})
    picks = [sizes[0], sizes[len(sizes) // 2], sizes[-1]] if sizes else []
    for j, S in enumerate(picks):
        ax = axes[i][j]
        times = t[(P, L0[P], "uniform", S)]
        for fam, style in (("parlogna", "o-"), ("parlogna_copy", "s:")):
            pts = sorted((radix(a), v) for a, v in times.items() if family(a) == fam)
            if pts:
                label = "parlogna bounce=copy" if fam == "parlogna_copy" else "parlogna"
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, label=label)
        if "mpi" in times:
            ax.axhline(times["mpi"], color="k", ls="--", label="MPI_Alltoallv")
        ax.set_title(f"P={P}, uniform, S={S} B")
        ax.set_xlabel("radix r")
        ax.set_ylabel("median time (us)")
        ax.legend()
fig.tight_layout()
fig.savefig(os.path.join(HERE, "fig6_time_vs_radix.png"), dpi=110)

# (b) heatmap: rows S, columns radix, colour = speedup over MPI where > 1
fig, axes = plt.subplots(1, len(Ps), figsize=(6 * len(Ps), 4.5), squeeze=False)
for i, P in enumerate(Ps):
    ax = axes[0][i]
    sizes = sorted({k[3] for k in t if k[0] == P and k[2] == "uniform"})
    grid = np.full((len(sizes), P - 1), np.nan)
    for y, S in enumerate(sizes):
        times = t[(P, L0[P], "uniform", S)]
        for a, v in times.items():
            if family(a) == "parlogna" and "mpi" in times:
                grid[y, radix(a) - 2] = times["mpi"] / v
    lose = np.where(grid <= 1, 1.0, np.nan)
    win = np.where(grid > 1, grid, np.nan)
    ax.imshow(lose, cmap="Greys", vmin=0, vmax=3, aspect="auto", origin="lower")
    im = ax.imshow(win, cmap="Reds", vmin=1, aspect="auto", origin="lower")
    ax.set_xticks(range(P - 1))
    ax.set_xticklabels(range(2, P + 1))
    ax.set_yticks(range(len(sizes)))
    ax.set_yticklabels(sizes)
    ax.set_xlabel("radix r")
    ax.set_ylabel("S (bytes, uniform in [0, S])")
    ax.set_title(f"P={P}: ParLogNa speedup over MPI_Alltoallv (grey: slower)")
    fig.colorbar(im, ax=ax)
fig.tight_layout()
fig.savefig(os.path.join(HERE, "fig8_radix_heatmap.png"), dpi=110)

# (c) best of each family vs MPI, per S
fams = ["mpi", "scattered", "parlogna", "parlogna_copy", "parlinna_coalesced",
        "parlinna_staggered"]
panels = sorted({(k[0], k[1], k[2]) for k in t if k[2] != "normal"})
fig, axes = plt.subplots(len(panels), 1, figsize=(10, 3.2 * len(panels)), squeeze=False)
for ax, (P, L, dist) in zip(axes[:, 0], panels):
    sizes = sorted({k[3] for k in t if k[:3] == (P, L, dist)})
    w = 0.8 / len(fams)
    for f_i, fam in enumerate(fams):
        vals = []
        for S in sizes:
            times = t[(P, L, dist, S)]
            v = times.get("mpi") if fam == "mpi" else best(times, fam)[1]
            vals.append(v if v else np.nan)
        ax.bar(np.arange(len(sizes)) + (f_i - (len(fams) - 1) / 2) * w, vals, w, label=fam)
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels(sizes)
    ax.set_yscale("log")
    ax.set_ylabel("median time (us)")
    ax.set_title(f"P={P}, {L} node(s), {dist}: best parameters per algorithm")
    ax.legend(fontsize=7, ncol=6)
axes[-1][0].set_xlabel("S (bytes)")
fig.tight_layout()
fig.savefig(os.path.join(HERE, "fig12_best.png"), dpi=110)

# summary
out = ["# ParLogNa / ParLinNa measurements (Open MPI, one 2-core shared machine)", "",
       "Times are medians in microseconds of one call (max over ranks). Oversubscribed",
       "ranks on 2 cores: absolute numbers are not representative of a cluster; relative",
       "numbers are noisy. Speedup = MPI_Alltoallv time / algorithm time (> 1: faster).", "",
       "## Ideal ParLogNa radix per S (uniform in [0, S])", "",
       "| P | S | ideal radix | ParLogNa (us) | MPI_Alltoallv (us) | speedup | radices beating MPI "
       "| ideal radix, bounce=copy | time (us) | speedup |",
       "|---|---|---|---|---|---|---|---|---|---|"]
for P in Ps:
    for S in sorted({k[3] for k in t if k[0] == P and k[2] == "uniform"}):
        times = t[(P, L0[P], "uniform", S)]
        a, v = best(times, "parlogna")
        if not a or "mpi" not in times:
            continue
        m = times["mpi"]
        wins = sorted(radix(x) for x, y in times.items() if family(x) == "parlogna" and y < m)
        ac, vc = best(times, "parlogna_copy")
        copy_cells = f"{radix(ac)} | {vc:.1f} | {m / vc:.2f}" if ac else "- | - | -"
        out.append(f"| {P} | {S} | {radix(a)} | {v:.1f} | {m:.1f} | {m / v:.2f} | "
                   f"{','.join(map(str, wins)) or 'none'} | {copy_cells} |")
out += ["", "## Best parameters of each algorithm vs MPI_Alltoallv", "",
        "| P | nodes | dist | S | MPI (us) | best scattered | best parlogna | "
        "best parlogna bounce=copy | best coalesced | best staggered |",
        "|---|---|---|---|---|---|---|---|---|---|"]
losses = []
for (P, L, dist, S) in sorted(t):
    times = t[(P, L, dist, S)]
    m = times.get("mpi")
    cells = []
    for fam in fams[1:]:
        a, v = best(times, fam)
        if a is None:
            cells.append("-")
            continue
        cells.append(f"{v:.1f} ({m / v:.2f}x) `{a.split(':', 1)[1] if ':' in a else ''}`")
        if fam != "scattered" and m and v > m:
            losses.append(f"- {fam} at P={P}, {L} node(s), {dist}, S={S}: "
                          f"{v:.1f} us vs MPI {m:.1f} us")
    out.append(f"| {P} | {L} | {dist} | {S} | {m:.1f} | " + " | ".join(cells) + " |")
out += ["", "## Overall (best parameters per (P, nodes, dist, S) vs MPI_Alltoallv)", "",
        "| algorithm | cases | wins | geometric-mean speedup |", "|---|---|---|---|"]
for fam in fams[1:]:
    sp = []
    for key, times in t.items():
        a, v = best(times, fam)
        if a and "mpi" in times:
            sp.append(times["mpi"] / v)
    if sp:
        gm = float(np.exp(np.mean(np.log(sp))))
        out.append(f"| {fam} | {len(sp)} | {sum(x > 1 for x in sp)} | {gm:.2f} |")
out += ["", "## Where ParLogNa / ParLinNa (best parameters) lose to MPI_Alltoallv", ""]
out += losses or ["- nowhere in this sweep"]
open(os.path.join(HERE, "summary.md"), "w").write("\n".join(out) + "\n")
print("wrote figures and summary.md to", HERE)
