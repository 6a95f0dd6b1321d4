#!/usr/bin/env python3
"""bias.csv and regime.csv (run.sh) -> table.md: per point and candidate the
median over the runs of (exploration's median / the benchmark's row), and
the regime experiment's medians; ab.csv (ab.sh), when there: the same per
build, before and after timed runs, with auto's choices."""
import collections
import csv
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
ratios = collections.defaultdict(list)
with open(os.path.join(HERE, "bias.csv")) as f:
    for r in csv.DictReader(f):
        ratios[(int(r["np"]), r["coll"], int(r["S"]))].append(
            (r["candidate"], float(r["explored_us"]) / float(r["row_us"])))
lines = ["| P | coll | S | runs | `mpi`: explored / row | `linear` | `nonblocking` | "
         "`mpi` against the others |", "|---|---|---|---:|---:|---:|---:|---:|"]
for key in sorted(ratios):
    by = collections.defaultdict(list)
    for cand, ratio in ratios[key]:
        by[cand].append(ratio)
    med = {c: statistics.median(v) for c, v in by.items()}
    others = [med[c] for c in ("linear", "nonblocking") if c in med]
    rel = med["mpi"] / statistics.mean(others) if "mpi" in med and others else None
    fmt = lambda c: f"{med[c]:.3f}" if c in med else "-"  # noqa: E731
    lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {len(by.get('mpi', []))} | {fmt('mpi')} | "
                 f"{fmt('linear')} | {fmt('nonblocking')} | "
                 f"{'-' if rel is None else f'{rel:.3f}'} |")
regime = collections.defaultdict(list)
with open(os.path.join(HERE, "regime.csv")) as f:
    for r in csv.DictReader(f):
        regime[(r["mode"], r["exchange"])].append(float(r["median_us"]))
rlines = ["| before the barrier | MPI_Alltoallv (us) | linear (us) |", "|---|---:|---:|"]
for mode in ("barrier", "allreduce+barrier", "barrier+allreduce+barrier", "sweep+barrier"):
    m = statistics.median(regime[(mode, "MPI_Alltoallv")])
    lin = statistics.median(regime[(mode, "linear")])
    rlines.append(f"| {mode} | {m:.3f} | {lin:.3f} |")

# ab.sh: the builds before and after timed runs, per point the medians over
# the runs; auto's choices (how many runs chose `mpi`) and auto / MPI's own
alines = []
if os.path.exists(os.path.join(HERE, "ab.csv")):
    ab = collections.defaultdict(list)
    auto = collections.defaultdict(dict)
    with open(os.path.join(HERE, "ab.csv")) as f:
        for r in csv.DictReader(f):
            key = (int(r["np"]), r["coll"], int(r["S"]), r["build"])
            ab[key + (r["candidate"],)].append(float(r["explored_us"]) / float(r["row_us"]))
            own = float(r["mpi_own_us"]) if r["mpi_own_us"] else None  # not in the first runs
            auto[key][r["run"]] = (r["auto_choice"], float(r["auto_us"]) / own if own else None)
    alines = ["| P | coll | S | build | runs | `mpi`: explored / row | `linear` | `nonblocking` | "
              "`mpi` against the others | `auto` chose `mpi` | `auto` / MPI's own (runs) |",
              "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for key in sorted(auto, key=lambda k: (k[:3], k[3] != "old")):
        med = {c: statistics.median(ab[key + (c,)]) for c in ("mpi", "linear", "nonblocking")
               if ab[key + (c,)]}
        others = [med[c] for c in ("linear", "nonblocking") if c in med]
        rel = med["mpi"] / statistics.mean(others) if "mpi" in med and others else None
        fmt = lambda c: f"{med[c]:.3f}" if c in med else "-"  # noqa: E731
        runs = auto[key].values()
        chose = sum(1 for c, _ in runs if c == "mpi")
        owns = [v for _, v in runs if v is not None]
        ratio = f"{statistics.median(owns):.3f} ({len(owns)})" if owns else "-"
        alines.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {len(runs)} | {fmt('mpi')} | "
                      f"{fmt('linear')} | {fmt('nonblocking')} | "
                      f"{'-' if rel is None else f'{rel:.3f}'} | {chose} of {len(runs)} | "
                      f"{ratio} |")
text = "\n".join(lines) + "\n\n" + "\n".join(rlines) + "\n"
if alines:
    text += "\n" + "\n".join(alines) + "\n"
with open(os.path.join(HERE, "table.md"), "w") as f:
    f.write(text)
print(text)
