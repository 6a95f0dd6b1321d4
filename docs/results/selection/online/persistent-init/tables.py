#!/usr/bin/env python3
"""Tables and plot of run.sh's results.csv: per collective, rank count and
size, the median over rounds of each row's time per start and init, and
their ratios to the MPI library's own persistent collective; writes
tables.md, persistent.png and the README's tables (between the `tables`
markers)."""
import collections
import csv
import os
import statistics

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = ("MPI", "auto", "model", "mpi")
GOAL = 1.02  # issue 26: auto at most 1.02x MPI's own


def load():
    """cells[(coll, P, bytes)][row] = [(start_us, init_us)], ran[...][row] = Counter."""
    cells = collections.defaultdict(lambda: collections.defaultdict(list))
    ran = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    with open(os.path.join(HERE, "results.csv")) as f:
        for r in csv.DictReader(f):
            key = (r["coll"], int(r["P"]), int(r["bytes"]))
            cells[key][r["row"]].append((float(r["start_us"]), float(r["init_us"])))
            ran[key][r["row"]][r["ran"].split(":")[0]] += 1
    return cells, ran


def med(values, i):
    return statistics.median(v[i] for v in values)


def choice(counter):
    return ", ".join(f"{a} {n}" if len(counter) > 1 else a for a, n in counter.most_common())


def break_even(t, init):
    """Starts after which auto's longer init is paid back by faster starts
    (None: never, its starts are not faster than the model's)."""
    gain = t["model"] - t["auto"]
    extra = init["auto"] - init["model"]
    return None if gain <= 0 else max(0.0, extra / gain)


def tables(cells, ran):
    lines, within, total, worst = [], 0, 0, (0, None)
    vs_model = []
    for coll, nproc in sorted({k[:2] for k in cells}):
        sizes = sorted(k[2] for k in cells if k[:2] == (coll, nproc))
        n = len(cells[(coll, nproc, sizes[0])]["auto"])
        lines += [f"\n**{coll}, {nproc} ranks** (time per start, us: the median over {n} "
                  "requests of each one's mean start; init in us)\n",
                  "| bytes | auto ran | MPI | auto | model | mpi | auto / MPI | model / MPI "
                  "| auto / model | init MPI | init auto | init model | auto pays back after |",
                  "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for size in sizes:
            c = cells[(coll, nproc, size)]
            t = {k: med(c[k], 0) for k in ROWS}
            init = {k: med(c[k], 1) for k in ROWS}
            ratio = t["auto"] / t["MPI"]
            total += 1
            within += ratio <= GOAL
            if ratio > worst[0]:
                worst = (ratio, (coll, nproc, size))
            vs_model.append(t["auto"] / t["model"])
            even = break_even(t, init)
            lines.append(
                f"| {size} | {choice(ran[(coll, nproc, size)]['auto'])} "
                + "".join(f"| {t[k]:.2f} " for k in ROWS)
                + f"| {ratio:.2f} | {t['model'] / t['MPI']:.2f} | {t['auto'] / t['model']:.2f} "
                + "".join(f"| {init[k]:.0f} " for k in ("MPI", "auto", "model"))
                + f"| {'-' if even is None else f'{even:.0f} starts'} |")
    summary = (f"\n`auto` at most {GOAL:.2f}x the MPI library's own persistent collective at "
               f"**{within} of {total}** points (worst {worst[0]:.2f}x: {worst[1][0]}, "
               f"{worst[1][1]} ranks, {worst[1][2]} B); `auto` / the model's choice "
               f"{min(vs_model):.2f}-{max(vs_model):.2f}.\n")
    return summary + "\n".join(lines) + "\n"


def plot(cells):
    configs = sorted({k[:2] for k in cells})
    colls = sorted({c for c, _ in configs})
    nps = sorted({p for _, p in configs})
    fig, axes = plt.subplots(len(nps), len(colls), figsize=(5 * len(colls), 3.6 * len(nps)),
                             squeeze=False)
    for i, nproc in enumerate(nps):
        for j, coll in enumerate(colls):
            ax = axes[i][j]
            sizes = sorted(k[2] for k in cells if k[:2] == (coll, nproc))
            for name in ROWS[1:]:
                ratio = [med(cells[(coll, nproc, s)][name], 0) / med(cells[(coll, nproc, s)]["MPI"], 0)
                         for s in sizes]
                ax.plot(sizes, ratio, marker="o", label=name)
            ax.axhline(1.0, color="black", linewidth=0.8)
            ax.set_xscale("log", base=2)
            ax.set_title(f"{coll}, {nproc} ranks")
            ax.set_xlabel("bytes per block")
            ax.set_ylabel("time per start / MPI's own")
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "persistent.png"), dpi=100)


def fft_table():
    """fft.sh's fft.csv: per row the median over repetitions of the
    transform, its exchange and init; what auto's measurements chose."""
    path = os.path.join(HERE, "fft.csv")
    if not os.path.exists(path):
        return ""
    rows = collections.defaultdict(list)
    head = None
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["checked"].startswith("FAIL"):
                raise SystemExit(f"a failed check in fft.csv: {r}")
            head = head or r
            rows[r["algo"]].append((float(r["total_s"]), float(r["exchange_s"]),
                                    float(r["init_s"] or 0)))
    chosen = collections.Counter()
    with open(os.path.join(HERE, "fft-measured.txt")) as f:
        for line in f:
            if " auto: " in line and "-> " in line:
                chosen[line.split("-> ")[1].split(";")[0].split(":")[0]] += 1
    t = {k: [statistics.median(v[i] for v in rows[k]) for i in range(3)] for k in rows}
    base, model = t["MPI_Alltoallv"][0], t["auto[XCHG_ONLINE=0]"][0]
    lines = [f"\n**FFT** (xchg-fft3d {head['n']}, {head['P']} ranks, persistent transposes; "
             f"time per transform, us, the median over {len(rows['auto'])} runs; `auto`'s "
             f"measurements chose: " + ", ".join(f"{a} {n}" for a, n in chosen.most_common())
             + ")\n",
             "| row | total | exchange | init (ms) | total / MPI_Alltoallv | total / model's choice |",
             "|---|---:|---:|---:|---:|---:|"]
    for k in sorted(t, key=lambda k: t[k][0]):
        lines.append(f"| {k} | {t[k][0] * 1e6:.0f} | {t[k][1] * 1e6:.0f} | {t[k][2] * 1e3:.1f} "
                     f"| {t[k][0] / base:.2f} | {t[k][0] / model:.2f} |")
    return "\n".join(lines) + "\n"


def main():
    cells, ran = load()
    text = tables(cells, ran) + fft_table()
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
