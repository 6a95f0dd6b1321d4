#!/usr/bin/python3
"""Tables and plot of the xchg-closure study (run.sh, run-smpi.sh).

  plot.py [--csv closure.csv] [--iterations closure-iterations.csv]
          [--png closure.png] [--tables tables.md] [--title TEXT]

closure.png, top row: per graph, the time in the tuple alltoallv (bars)
and the total closure time (markers) of every algorithm, one bar group per
rank count (the paper's Figure 15: bars communication, lines total).
Bottom row, for the graph of the per-iteration CSV at its largest rank
count: the delta and the new tuples per iteration; the bytes one rank
sends (maximum over ranks, and the mean: their ratio is the
non-uniformity of the exchange); the alltoallv time per iteration and
algorithm. tables.md: per graph and rank count, total_s, exchange_s and
the exchange speedup over the MPI_Alltoallv baseline.
"""
import argparse
import csv
import os
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def pos(v):
    """v, or NaN (not drawn on a log axis) when it is 0."""
    v = float(v)
    return v if v > 0 else float("nan")


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def tables(rows, out):
    graphs = list(OrderedDict.fromkeys(r["graph"] for r in rows))
    lines = []
    for g in graphs:
        gr = [r for r in rows if r["graph"] == g]
        ps = sorted({int(r["P"]) for r in gr})
        algos = list(OrderedDict.fromkeys(r["algo"] for r in gr))
        first = gr[0]
        lines.append(f"### {g} (n = {first['n']}, m = {first['m']}, "
                     f"{first['iterations']} iterations, {first['paths']} paths)\n")
        head = "| algo | " + " | ".join(f"P={p} total_s | P={p} exchange_s | P={p} exch. speedup"
                                        for p in ps) + " |"
        lines.append(head)
        lines.append("|---" * (1 + 3 * len(ps)) + "|")
        for a in algos:
            cells = [a]
            for p in ps:
                r = [x for x in gr if x["algo"] == a and int(x["P"]) == p]
                base = [x for x in gr if x["algo"] == "MPI_Alltoallv" and int(x["P"]) == p]
                if not r:
                    cells += ["", "", ""]
                    continue
                r = r[0]
                sp = ""
                if base and float(r["exchange_s"]) > 0:
                    sp = f"{float(base[0]['exchange_s']) / float(r['exchange_s']):.2f}x"
                flag = "" if r["checked"] in ("serial", "agree") else f" ({r['checked']})"
                cells += [f"{float(r['total_s']):.4g}{flag}", f"{float(r['exchange_s']):.4g}", sp]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    with open(out, "w") as f:
        f.write("\n".join(lines))


def plot(rows, its, png, title):
    graphs = list(OrderedDict.fromkeys(r["graph"] for r in rows))
    fig, axes = plt.subplots(2, max(3, len(graphs)), figsize=(6 * max(3, len(graphs)), 9.5))
    for k, g in enumerate(graphs):
        ax = axes[0][k]
        gr = [r for r in rows if r["graph"] == g]
        ps = sorted({int(r["P"]) for r in gr})
        algos = list(OrderedDict.fromkeys(r["algo"] for r in gr))
        w = 0.8 / len(ps)
        for j, p in enumerate(ps):
            xs, ex, tot = [], [], []
            for i, a in enumerate(algos):
                r = [x for x in gr if x["algo"] == a and int(x["P"]) == p]
                if r:
                    xs.append(i + (j - (len(ps) - 1) / 2) * w)
                    ex.append(float(r[0]["exchange_s"]))
                    tot.append(float(r[0]["total_s"]))
            bars = ax.bar(xs, ex, w, label=f"alltoallv, P={p}")
            ax.plot(xs, tot, "o", color=bars.patches[0].get_facecolor() if bars.patches else None,
                    markeredgecolor="black", label=f"total, P={p}")
        first = gr[0]
        ax.set_title(f"{g}: n={first['n']}, m={first['m']}, {first['iterations']} iterations")
        ax.set_xticks(range(len(algos)))
        ax.set_xticklabels(algos, rotation=45, ha="right", fontsize=8)
        ax.set_ylabel("seconds (max over ranks)")
        ax.legend(fontsize=7)
    for k in range(len(graphs), len(axes[0])):
        axes[0][k].axis("off")
    if its:
        g = its[0]["graph"]
        pmax = max(int(r["P"]) for r in its if r["graph"] == g)
        sel = [r for r in its if r["graph"] == g and int(r["P"]) == pmax]
        algos = list(OrderedDict.fromkeys(r["algo"] for r in sel))
        one = [r for r in sel if r["algo"] == algos[0]]
        it = [int(r["iteration"]) for r in one]
        ax = axes[1][0]
        ax.semilogy(it, [pos(r["delta"]) for r in one], "o-", label="delta (joined)")
        ax.semilogy(it, [pos(r["joined"]) for r in one], "s-", label="tuples sent")
        ax.semilogy(it, [pos(r["new"]) for r in one], "^-", label="new")
        ax.set_xlabel("iteration")
        ax.set_ylabel("tuples (all ranks)")
        ax.set_title(f"{g}, P={pmax}: relation sizes per iteration")
        ax.legend(fontsize=8)
        ax = axes[1][1]
        ax.semilogy(it, [pos(r["bytes_max"]) for r in one], "o-", label="max over ranks")
        ax.semilogy(it, [pos(int(r["bytes_total"]) / pmax) for r in one], "s-",
                    label="mean over ranks")
        ax.set_xlabel("iteration")
        ax.set_ylabel("bytes one rank sends to others")
        ax.set_title(f"{g}, P={pmax}: alltoallv bytes per iteration")
        ax.legend(fontsize=8)
        ax = axes[1][2]
        for a in algos:
            ra = [r for r in sel if r["algo"] == a]
            ax.semilogy([int(r["iteration"]) for r in ra],
                        [pos(r["alltoallv_s"]) for r in ra], ".-", label=a)
        ax.set_xlabel("iteration")
        ax.set_ylabel("alltoallv seconds (max over ranks)")
        ax.set_title(f"{g}, P={pmax}: alltoallv time per iteration")
        ax.legend(fontsize=7)
    else:
        for ax in axes[1]:
            ax.axis("off")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--csv", default=os.path.join(here, "closure.csv"))
    ap.add_argument("--iterations", default=os.path.join(here, "closure-iterations.csv"))
    ap.add_argument("--png", default=os.path.join(here, "closure.png"))
    ap.add_argument("--tables", default=os.path.join(here, "tables.md"))
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    rows = read(a.csv)
    if not rows:
        sys.exit("plot.py: no rows in " + a.csv)
    its = read(a.iterations) if os.path.exists(a.iterations) else []
    tables(rows, a.tables)
    plot(rows, its, a.png, a.title)
    print(f"plot.py: {a.png}, {a.tables}")


if __name__ == "__main__":
    main()
