#!/usr/bin/env python3
"""Tables and plot of the xchg-fft3d study (docs/results/apps/fft/run.sh).

Reads fft.csv (xchg-fft3d's CSV: n,P,grid,algo,total_s,exchange_s,
compute_s,checked,mode,init_s), writes tables.md (per ranks and grid:
every algorithm's times in microseconds and its speedup over the
MPI_Alltoallv row, fastest first) and fft.png (one panel per ranks x grid:
stacked bars of compute and exchange per algorithm, a marker at the total;
fftw-mpi has a total only).

usage: report.py fft.csv [--png=fft.png] [--tables=tables.md]
"""
import csv
import sys


def load(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("algo")]
    points = {}
    for r in rows:
        # virtual_nodes: a column the 16-core study adds (XCHG_VIRTUAL_NODES)
        key = (int(r["P"]), r["grid"], r["n"], r.get("virtual_nodes") or "")
        points.setdefault(key, []).append(r)
    return points


def num(s):
    return float(s) if s not in ("", None) else None


def tables(points):
    out = ["| P | grid | n | algo | total (us) | exchange (us) | compute (us) | vs MPI_Alltoallv | checked |",
           "|---|---|---|---|---|---|---|---|---|"]
    for (p, grid, n, vn), rows in sorted(points.items(),
                                         key=lambda kv: (kv[0][0], kv[0][3], kv[0][2])):
        ranks = f"{p} (nodes of {vn})" if vn else f"{p}"
        base = next((num(r["total_s"]) for r in rows if r["algo"] == "MPI_Alltoallv"), None)
        for r in sorted(rows, key=lambda r: num(r["total_s"])):
            t, e, c = num(r["total_s"]), num(r["exchange_s"]), num(r["compute_s"])
            us = lambda x: "" if x is None else f"{x * 1e6:.1f}"
            sp = f"{base / t:.2f}x" if base and t else ""
            out.append(f"| {ranks} | {grid} | {n} | {r['algo']} | {us(t)} | {us(e)} | {us(c)} | {sp} | {r['checked']} |")
    return "\n".join(out) + "\n"


def plot(points, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    keys = sorted(points, key=lambda k: (k[0], k[3], k[2]))
    cols = min(2, len(keys))
    nrows = (len(keys) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(7.5 * cols, 3.6 * nrows), squeeze=False)
    for ax, key in zip(axes.flat, keys):
        rows = points[key]
        names = [r["algo"] for r in rows]
        x = range(len(rows))
        comp = [(num(r["compute_s"]) or 0) * 1e3 for r in rows]
        exch = [(num(r["exchange_s"]) or 0) * 1e3 for r in rows]
        tot = [num(r["total_s"]) * 1e3 for r in rows]
        only_total = [r["exchange_s"] == "" for r in rows]
        ax.bar(x, comp, color="tab:blue", label="compute (FFT + pack/unpack)")
        ax.bar(x, exch, bottom=comp, color="tab:orange", label="exchange (2 alltoallv)")
        ax.bar([i for i in x if only_total[i]], [tot[i] for i in x if only_total[i]],
               color="tab:gray", label="fftw-mpi (total only)")
        ax.plot(list(x), tot, "k_", markersize=12, label="total (max of medians)")
        ax.set_xticks(list(x))
        ax.set_xticklabels(names, rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("ms per transform")
        p, grid, n, vn = key
        nodes = f", nodes of {vn}" if vn else ""
        ax.set_title(f"{n} on {p} ranks (grid {grid}{nodes})", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    for ax in list(axes.flat)[len(keys):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    path, png, tab = argv[1], "fft.png", "tables.md"
    for a in argv[2:]:
        if a.startswith("--png="):
            png = a[len("--png="):]
        elif a.startswith("--tables="):
            tab = a[len("--tables="):]
        else:
            sys.exit(__doc__)
    points = load(path)
    if not points:
        sys.exit(f"report.py: no rows in {path}")
    text = tables(points)
    with open(tab, "w") as f:
        f.write(text)
    sys.stdout.write(text)
    plot(points, png)


if __name__ == "__main__":
    main(sys.argv)
