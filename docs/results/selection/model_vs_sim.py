#!/usr/bin/python3
"""The cost model against the simulations it was not fitted to.

For every case of docs/results/sim/results.csv (SimGrid SMPI 3.32; platform,
collective, P, ranks per node Q, block size S, count distribution) that has
at least three xchg algorithms measured, ask the model (xchg-info --select
... --ranks P --ppn Q --predict ALGO, built-in constants) for the time of each
measured algorithm, take the one it predicts cheapest, and compare its
measured time with the best measured xchg algorithm of the case and with the
MPI library's own (SMPI's "mpich" selector). Writes model_vs_sim.csv and
prints a summary table (Markdown).

    docs/results/selection/model_vs_sim.py [BUILD_DIR]     (default: build)
"""
import collections
import csv
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", "..", ".."))
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build")
info = os.path.join(build, "tools", "xchg-info")

cases = collections.defaultdict(dict)
mpich = {}
with open(os.path.join(root, "docs", "results", "sim", "results.csv")) as f:
    for r in csv.DictReader(f):
        if r["status"] != "ok" or r["verified"] != "ok":
            continue
        key = (r["platform"], r["coll"], int(r["P"]), int(r["Q"]), int(r["S"]), r["dist"])
        t = float(r["t_min"])
        if r["selector"] == "xchg":
            cases[key][r["algo"]] = min(t, cases[key].get(r["algo"], t))
        elif r["selector"] == "mpich":
            mpich[key] = t


def predict(key, algos):
    platform, coll, P, Q, S, dist = key
    # the busiest rank's mean block: S is the largest block for alltoallv
    # (uniform counts are 1..S, so the mean is about S/2); the model takes
    # the mean block
    block = S if coll != "alltoallv" else max(1, S // 2)
    cmd = [info, "--select", coll, "--bytes", str(block), "--ranks", str(P), "--ppn", str(Q),
           "--top", "0"]
    for a in algos:
        cmd += ["--predict", a]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    pred = {}
    for line in out.splitlines():
        if line.startswith("predict "):
            _, name, value = line.split(" ", 2)
            if value.replace(".", "", 1).isdigit():
                pred[name] = float(value)
    return pred


rows = []
for key in sorted(cases):
    measured = cases[key]
    if len(measured) < 3:
        continue
    pred = predict(key, list(measured))
    if not pred:
        continue
    chosen = min(pred, key=lambda a: pred[a])
    best = min(measured, key=lambda a: measured[a])
    rows.append(dict(platform=key[0], coll=key[1], P=key[2], Q=key[3], S=key[4], dist=key[5],
                     candidates=len(pred), chosen=chosen, chosen_us=measured[chosen] * 1e6,
                     best=best, best_us=measured[best] * 1e6,
                     chosen_over_best=measured[chosen] / measured[best],
                     mpich_us=mpich.get(key, float("nan")) * 1e6,
                     chosen_over_mpich=measured[chosen] / mpich[key] if key in mpich else float("nan")))

with open(os.path.join(here, "model_vs_sim.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)

within = sum(r["chosen_over_best"] <= 1.10 for r in rows)
print(f"{len(rows)} cases; the model's choice within 10% of the best measured: {within} "
      f"({100.0 * within / len(rows):.0f}%); worst {max(r['chosen_over_best'] for r in rows):.2f}x\n")
print("| platform | coll | P | Q | S | dist | n | model's choice | its us | best measured | best us | choice/best | choice/SMPI mpich |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['platform']} | {r['coll']} | {r['P']} | {r['Q']} | {r['S']} | {r['dist']} | "
          f"{r['candidates']} | {r['chosen']} | {r['chosen_us']:.1f} | {r['best']} | "
          f"{r['best_us']:.1f} | {r['chosen_over_best']:.2f} | {r['chosen_over_mpich']:.2f} |")
