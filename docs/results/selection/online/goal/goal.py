#!/usr/bin/python3
"""Issue 26's goal on this machine from goal.sh's runs (results.csv).

Per point (ranks, collective, block size): the median over the runs of
each row's ratio to MPI's own collective of the same run (xchg-bench's
`ratio`), a 90% interval of auto's median (bootstrap over the runs), what
auto ran in each run, and auto against xchg's own `mpi` row and against
the fastest fixed row of real.sh (`best`), both per run, then the median.
Writes goal.md (the table, between the markers of README.md too) and
goal.png. `goal.py --summary CSV...` prints the counts of each other set
of runs (results-<commit>.csv) and writes nothing.
"""
import collections
import csv
import os
import random
import statistics
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from evaluate import fill_readme  # noqa: E402  (../evaluate.py)
GOAL, WITHIN = 1.02, 1.05
COLLS = ["alltoallv", "alltoall", "allgather"]


def read_runs(path=os.path.join(HERE, "results.csv")):
    """{(np, coll, S): {run: {"auto": ratio, "auto_choice": name, "mpi": ratio, "best": ratio}}}"""
    points = collections.defaultdict(dict)
    best_name = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["status"] != "ok" or row["algorithm"] == "MPI":
                continue
            key = (int(row["np"]), row["coll"], int(row["S_bytes"]))
            run = points[key].setdefault(int(row["run"]), {})
            ratio = float(row["ratio"])
            name = row["algorithm"]
            if name.startswith("auto["):
                run["auto"] = ratio
                run["auto_choice"] = name[5:-1].split(":")[0]
            elif name == "mpi":
                run["mpi"] = ratio
            else:
                run["best"] = ratio
                best_name[key] = name.split(":")[0]
    return points, best_name


def interval(values, rounds=2000, seed=1):
    """90% bootstrap interval of the median of `values`."""
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(rounds))
    return medians[int(0.05 * rounds)], medians[int(0.95 * rounds) - 1]


def summarize(points, best_name):
    table = []
    for key in sorted(points, key=lambda k: (k[0], COLLS.index(k[1]), k[2])):
        runs = [r for r in points[key].values() if "auto" in r and "mpi" in r]
        if not runs:
            continue
        auto = [r["auto"] for r in runs]
        low, high = interval(auto)
        best = [r for r in runs if "best" in r]
        choices = collections.Counter(r["auto_choice"] for r in runs)
        table.append({
            "np": key[0], "coll": key[1], "S": key[2], "runs": len(runs),
            "auto": statistics.median(auto), "low": low, "high": high,
            "mpi": statistics.median(r["mpi"] for r in runs),
            "auto_over_mpi_row": statistics.median(r["auto"] / r["mpi"] for r in runs),
            "best_name": best_name.get(key, "mpi"),
            "best": statistics.median(r["best"] for r in best) if best else None,
            "auto_over_best": statistics.median(r["auto"] / min(r["best"], r["mpi"])
                                                for r in best) if best else
                              statistics.median(r["auto"] / r["mpi"] for r in runs),
            "choices": ", ".join(f"{n} {c}" for n, c in choices.most_common()),
        })
    return table


def markdown(table):
    n = len(table)
    met = sum(t["auto"] <= GOAL for t in table)
    met_interval = sum(t["low"] <= GOAL for t in table)
    mpi_met = sum(t["mpi"] <= GOAL for t in table)
    near_mpi = sum(t["auto_over_mpi_row"] <= GOAL for t in table)
    within = sum(t["auto_over_best"] <= WITHIN for t in table)
    lines = [
        f"{table[0]['runs']} runs per point. `auto` at most {GOAL}x MPI's own (median over the runs): "
        f"**{met} of {n}** points; where the 90% interval of that median reaches {GOAL}x: {met_interval} "
        f"of {n}. xchg's own `mpi` row at most {GOAL}x: {mpi_met} of {n}. `auto` at most {GOAL}x the "
        f"`mpi` row of the same run: {near_mpi} of {n}. `auto` within 5% of the faster of `mpi` and "
        f"the best fixed row: {within} of {n}.",
        "",
        "| P | coll | S | auto /MPI | 90% interval | auto ran (runs) | mpi /MPI | auto /mpi row "
        "| best fixed (real.sh) /MPI | auto /best |",
        "|---|---|---|---:|---|---|---:|---:|---|---:|",
    ]
    for t in table:
        best = f"{t['best_name']} {t['best']:.2f}" if t["best"] is not None else "(mpi)"
        lines.append(
            f"| {t['np']} | {t['coll']} | {t['S']} | {t['auto']:.3f} | {t['low']:.2f}-{t['high']:.2f} "
            f"| {t['choices']} | {t['mpi']:.3f} | {t['auto_over_mpi_row']:.3f} | {best} "
            f"| {t['auto_over_best']:.2f} |")
    return "\n".join(lines) + "\n"


def plot(table):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for ax, np_ in zip(axes, (4, 8)):
        for i, coll in enumerate(COLLS):
            rows = [t for t in table if t["np"] == np_ and t["coll"] == coll]
            if not rows:
                continue
            x = [t["S"] * (1 + 0.08 * (i - 1)) for t in rows]
            y = [t["auto"] for t in rows]
            err = [[t["auto"] - t["low"] for t in rows], [t["high"] - t["auto"] for t in rows]]
            ax.errorbar(x, y, yerr=err, fmt="o-", capsize=3, label=f"{coll}: auto")
            ax.plot(x, [t["mpi"] for t in rows], "x:", color=ax.lines[-1].get_color(),
                    label=f"{coll}: mpi row")
        ax.axhline(GOAL, color="red", lw=1, ls="--", label=f"goal {GOAL}x")
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_title(f"{np_} ranks on this 2-core machine (Open MPI)")
        ax.set_xlabel("block size S (bytes)")
    axes[0].set_ylabel("median over runs of time / MPI's own")
    axes[1].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "goal.png"), dpi=110)


def main():
    if sys.argv[1:2] == ["--summary"]:
        for path in sys.argv[2:]:
            table = summarize(*read_runs(path))
            mpi = {np_: statistics.median(t["mpi"] for t in table if t["np"] == np_) for np_ in (4, 8)}
            print(f"{os.path.basename(path)}: {markdown(table).splitlines()[0]} `mpi` row, median "
                  f"over the points: 4 ranks {mpi[4]:.4f}, 8 ranks {mpi[8]:.4f}.")
        return
    points, best_name = read_runs()
    table = summarize(points, best_name)
    text = markdown(table)
    with open(os.path.join(HERE, "goal.md"), "w") as f:
        f.write(text)
    fill_readme({"goal table": text.rstrip()}, os.path.join(HERE, "README.md"))
    plot(table)
    print(text.splitlines()[0])


if __name__ == "__main__":
    main()
