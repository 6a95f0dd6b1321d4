#!/usr/bin/env python3
"""Tables and plot of run.sh's results.csv: per configuration and level, the
median over repetitions of each row's time per start and init; writes
tables.md, amg.png and the README's table (between the `tables` markers)."""
import collections
import csv
import os
import statistics

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIXED = ("standard", "locality", "mpi")


def row_name(r):
    """online/auto[X] -> auto, model/auto[X] -> model; fixed rows by name."""
    if r["algo"].startswith("auto"):
        return "auto" if r["launch"] == "online" else "model"
    return r["algo"]


def load():
    cells = collections.defaultdict(lambda: collections.defaultdict(list))
    chosen = collections.defaultdict(collections.Counter)
    with open(os.path.join(HERE, "results.csv")) as f:
        for r in csv.DictReader(f):
            if r["check"] != "ok":
                raise SystemExit(f"a failed check in results.csv: {r}")
            key = (int(r["ranks"]), int(r["nregions"]), int(r["level"]))
            name = row_name(r)
            cells[key][name].append((float(r["time_s"]), float(r["init_s"])))
            if name in ("auto", "model"):
                chosen[key + (name,)][r["algo"][5:-1]] += 1
    return cells, chosen


def med(values, i):
    return statistics.median(v[i] for v in values)


def choice(counter):
    return ", ".join(f"{a} {n}" for a, n in counter.most_common())


def tables(cells, chosen):
    lines, summary = [], []
    for ranks, nreg in sorted({k[:2] for k in cells}):
        levels = sorted(k[2] for k in cells if k[:2] == (ranks, nreg))
        lines += [f"\n**{ranks} ranks, {nreg} regions** (time per start, us; median over "
                  f"{len(cells[(ranks, nreg, levels[0])]['auto'])} runs)\n",
                  "| level | auto ran | auto | model ran | model | standard | locality | mpi "
                  "| auto / model | auto / mpi | auto / best fixed | auto init (ms) | model init (ms) |",
                  "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        tot = collections.Counter()
        for lv in levels:
            c = cells[(ranks, nreg, lv)]
            t = {k: med(v, 0) * 1e6 for k, v in c.items()}
            init = {k: med(v, 1) * 1e3 for k, v in c.items()}
            best = min(t[k] for k in FIXED if k in t)
            for k in t:
                tot[k] += t[k]
            tot["best"] += best
            tot["auto_init"] += init["auto"]
            tot["model_init"] += init["model"]
            lines.append(
                f"| {lv} | {choice(chosen[(ranks, nreg, lv, 'auto')])} | {t['auto']:.2f} "
                f"| {choice(chosen[(ranks, nreg, lv, 'model')])} | {t['model']:.2f} "
                + "".join(f"| {t[k]:.2f} " if k in t else "| - " for k in FIXED)
                + f"| {t['auto'] / t['model']:.2f} | {t['auto'] / t['mpi']:.2f} "
                f"| {t['auto'] / best:.2f} | {init['auto']:.2f} | {init['model']:.2f} |")
        lines.append(
            f"| all levels | | {tot['auto']:.2f} | | {tot['model']:.2f} "
            + "".join(f"| {tot[k]:.2f} " for k in FIXED)
            + f"| {tot['auto'] / tot['model']:.2f} | {tot['auto'] / tot['mpi']:.2f} "
            f"| {tot['auto'] / tot['best']:.2f} | {tot['auto_init']:.2f} | {tot['model_init']:.2f} |")
        summary.append((ranks, nreg, tot))
    return "\n".join(lines) + "\n", summary


def plot(cells):
    configs = sorted({k[:2] for k in cells})
    fig, axes = plt.subplots(1, len(configs), figsize=(6 * len(configs), 4), squeeze=False)
    for ax, (ranks, nreg) in zip(axes[0], configs):
        levels = sorted(k[2] for k in cells if k[:2] == (ranks, nreg))
        width = 0.15
        for i, name in enumerate(("auto", "model") + FIXED):
            ratio = [med(cells[(ranks, nreg, lv)][name], 0) / med(cells[(ranks, nreg, lv)]["mpi"], 0)
                     for lv in levels]
            ax.bar([lv + (i - 2) * width for lv in levels], ratio, width, label=name)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_title(f"xchg-amg, {ranks} ranks, {nreg} regions")
        ax.set_xlabel("AMG level")
        ax.set_ylabel("time per start / mpi's")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "amg.png"), dpi=100)


def smpi_table():
    """smpi.sh's smpi.csv: per point the start and init of auto (online),
    the model's choice (XCHG_ONLINE=0) and the fixed algorithms."""
    path = os.path.join(HERE, "smpi.csv")
    if not os.path.exists(path):
        return ""
    points = collections.OrderedDict()
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["correct"] != "yes":
                raise SystemExit(f"a wrong value in smpi.csv: {r}")
            key = (r["pattern"], int(r["P"]), r["count"], r["fraction"])
            name = "model" if r["launch"] == "model" else r["algorithm"]
            points.setdefault(key, {})[name] = (float(r["start_us"]), float(r["init_us"]))
    winners = []
    with open(os.path.join(HERE, "smpi-measured.txt")) as f:
        winners = [line.split("-> ")[1].split(";")[0].split(":")[0] for line in f if "-> " in line]
    lines = ["\n**SimGrid SMPI** (xchg-neighbor-bench, dragonfly, nodes of 16; simulated "
             "time per start, us)\n",
             "| pattern | P | auto ran | auto | model | standard | locality | auto / model "
             "| auto / best fixed | auto init (us) | model init (us) |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for i, ((pattern, nproc, count, fraction), t) in enumerate(points.items()):
        best = min(t[k][0] for k in ("standard", "locality"))
        what = pattern if pattern == "stencil" else f"coarse ({count} values, {fraction} of ranks)"
        lines.append(f"| {what} | {nproc} | {winners[i] if i < len(winners) else '?'} "
                     f"| {t['auto'][0]:.2f} | {t['model'][0]:.2f} | {t['standard'][0]:.2f} "
                     f"| {t['locality'][0]:.2f} | {t['auto'][0] / t['model'][0]:.2f} "
                     f"| {t['auto'][0] / best:.2f} | {t['auto'][1]:.1f} | {t['model'][1]:.1f} |")
    return "\n".join(lines) + "\n"


def main():
    cells, chosen = load()
    text, _ = tables(cells, chosen)
    text += smpi_table()
    with open(os.path.join(HERE, "tables.md"), "w") as f:
        f.write(text.lstrip("\n"))
    readme = os.path.join(HERE, "README.md")
    if os.path.exists(readme):
        s = open(readme).read()
        a, b = s.find("<!-- tables -->"), s.find("<!-- /tables -->")
        if a >= 0 and b > a:
            s = s[:a] + "<!-- tables -->\n" + text.lstrip("\n") + s[b:]
            open(readme, "w").write(s)
    plot(cells)


if __name__ == "__main__":
    main()
