#!/usr/bin/python3
"""Plots and tables of the overlap study (docs/results/overlap/README.md).

    python3 docs/results/overlap/plot.py

Reads every xchg-bench --overlap CSV here (smpi-*.csv, real-*.csv): one
figure per file, hidden fraction per algorithm (bars) for each size, compute
level (1x, 2x MPI's own exchange) and test setting; and tables.md with, per
file, size and test setting, comm_us and hidden fraction per level. The
xchg-fft3d --pipeline CSVs (fft-*.csv) give a table of batch vs pipeline
time per field.
"""
import csv
import glob
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))


def read(path):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if not r.get("coll", "").startswith("#")]


def short(name):
    """The selection as asked (xchg-bench writes 'asked[ran]' when they differ)."""
    return name if len(name) <= 34 else name[:33] + "~"


def overlap_tables(path, rows, out):
    out.append(f"\n### {os.path.basename(path)}\n")
    keys = sorted({(int(r["size"]), float(r["test_every_us"])) for r in rows})
    for size, te in keys:
        sel = [r for r in rows if int(r["size"]) == size and float(r["test_every_us"]) == te]
        factors = sorted({float(r["compute_factor"]) for r in sel})
        comp = {float(r["compute_factor"]): float(r["compute_us"]) for r in sel}
        out.append(f"\nS = {size} B, P = {sel[0]['P']}, {sel[0]['mode']}, "
                   f"test every {'never' if te == 0 else f'{te:g} us'}; compute "
                   + ", ".join(f"{f:g}x = {comp[f]:.1f} us" for f in factors) + "\n")
        out.append("| algorithm | comm_us | " +
                   " | ".join(f"total {f:g}x | hidden {f:g}x" for f in factors) + " |")
        out.append("|---|---:|" + "---:|---:|" * len(factors))
        algos = []
        for r in sel:
            if r["algorithm"] not in algos:
                algos.append(r["algorithm"])
        for a in algos:
            cells = []
            comm = ""
            for f in factors:
                m = [r for r in sel if r["algorithm"] == a and float(r["compute_factor"]) == f]
                if not m or m[0]["status"] != "ok":
                    cells.append("n/a | n/a")
                    continue
                comm = f"{float(m[0]['comm_us']):.1f}"
                cells.append(f"{float(m[0]['total_us']):.1f} | {float(m[0]['hidden']):.2f}")
            out.append(f"| {a} | {comm} | " + " | ".join(cells) + " |")


def overlap_plot(path, rows):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot.py: no matplotlib: tables only", file=sys.stderr)
        return
    rows = [r for r in rows if r["status"] == "ok"]
    panels = sorted({(int(r["size"]), float(r["test_every_us"])) for r in rows})
    if not panels:
        return
    factors = sorted({float(r["compute_factor"]) for r in rows})
    fig, axes = plt.subplots(len(panels), 1, figsize=(11, 2.6 * len(panels)), squeeze=False)
    for ax, (size, te) in zip(axes[:, 0], panels):
        sel = [r for r in rows if int(r["size"]) == size and float(r["test_every_us"]) == te]
        algos = []
        for r in sel:
            if r["algorithm"] not in algos:
                algos.append(r["algorithm"])
        width = 0.8 / max(1, len(factors))
        for k, f in enumerate(factors):
            ys = []
            for a in algos:
                m = [r for r in sel if r["algorithm"] == a and float(r["compute_factor"]) == f]
                ys.append(float(m[0]["hidden"]) if m else 0)
            ax.bar([i + k * width for i in range(len(algos))], ys, width, label=f"compute {f:g}x")
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(algos))])
        ax.set_xticklabels([short(a) for a in algos], rotation=30, ha="right", fontsize=7)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("hidden")
        ax.set_title(f"S = {size} B, test every {'never' if te == 0 else f'{te:g} us'}",
                     fontsize=9)
        ax.legend(fontsize=7, loc="upper right")
    fig.suptitle(f"{os.path.basename(path)}: fraction of the exchange hidden behind compute "
                 "(MPI = the MPI library's own nonblocking call)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path[:-4] + ".png", dpi=90)
    plt.close(fig)


def fft_tables(path, out):
    rows = read(path)
    out.append(f"\n### {os.path.basename(path)}\n")
    out.append("| algo | batch total_s/field | pipeline total_s/field | speedup | "
               "batch exchange_s | pipeline exchange_s (not hidden) | checked |")
    out.append("|---|---:|---:|---:|---:|---:|---|")
    algos = []
    for r in rows:
        if r["algo"] not in algos:
            algos.append(r["algo"])
    for a in algos:
        b = [r for r in rows if r["algo"] == a and r["mode"] == "batch"]
        p = [r for r in rows if r["algo"] == a and r["mode"] == "pipeline"]
        if not b or not p:
            continue
        b, p = b[0], p[0]
        tb, tp = float(b["total_s"]), float(p["total_s"])
        out.append(f"| {a} | {tb:.3e} | {tp:.3e} | {tb / tp:.2f} | {float(b['exchange_s']):.3e} "
                   f"| {float(p['exchange_s']):.3e} | {b['checked']}/{p['checked']} |")


def main():
    out = ["# Overlap tables (generated by plot.py)"]
    for path in sorted(glob.glob(os.path.join(here, "smpi-*.csv")) +
                       glob.glob(os.path.join(here, "real-*.csv"))):
        rows = read(path)
        if not rows:
            continue
        overlap_tables(path, rows, out)
        overlap_plot(path, rows)
    for path in sorted(glob.glob(os.path.join(here, "fft-*.csv"))):
        fft_tables(path, out)
    with open(os.path.join(here, "tables.md"), "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
