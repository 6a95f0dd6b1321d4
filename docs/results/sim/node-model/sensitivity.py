#!/usr/bin/python3
"""Sensitivity of the simulated times to the node model (issue: an honest node).

    docs/results/sim/node-model/sensitivity.py [--P 64] [--dist uniform] > sensitivity-P64.md

Reads results.csv of this directory (written by sim/run --node ...) and prints,
per algorithm and size, the simulated time under every node model (fatpipe =
the XML loopback; low / calibrated / high = sim/node_platform.cpp with 20 / 50
/ 200 GB/s of node memory bandwidth, 10 GB/s per core), the ratio
calibrated / fatpipe, and t / AB (achievable bound) under the calibrated model.
"""
import argparse
import csv
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ["fatpipe", "low", "calibrated", "high"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--P", type=int, default=64)
    ap.add_argument("--dist", default="uniform")
    ap.add_argument("--csv", default=os.path.join(HERE, "results.csv"))
    args = ap.parse_args()
    with open(args.csv) as f:
        rows = [r for r in csv.DictReader(f) if int(r["P"]) == args.P and r["dist"] == args.dist]
    times, ab, names = {}, {}, []
    for r in rows:
        name = r["algo"] if r["algo"] != "mpi" else f"SMPI {r['selector']}"
        if name not in names:
            names.append(name)
        key = (name, int(r["S"]), r["node"])
        times[key] = float(r["t_min"]) if r["status"] == "ok" and r["t_min"] else r["status"]
        if r["achievable"]:
            ab[(int(r["S"]), r["node"])] = float(r["achievable"])
    sizes = sorted({int(r["S"]) for r in rows})
    p, q = args.P, rows[0]["Q"] if rows else "?"
    print(f"# Node-model sensitivity: dragonfly, P={p}, Q={q}, alltoallv, {args.dist}\n")
    print("Simulated time per call (us). fatpipe: XML loopback, 10 GB/s per flow, no node limit; "
          "low / calibrated / high: 10 GB/s per core, 20 / 50 / 200 GB/s per node.\n")
    models = [m for m in MODELS if any(r["node"] == m for r in rows)]
    print("| algorithm | S (B) | " + " | ".join(models) + " | calibrated / fatpipe | t / AB (calibrated) |")
    print("|---|---|" + "---|" * (len(models) + 2))
    for s in sizes:
        for name in names:
            cells = [times.get((name, s, m), "-") for m in models]
            if all(c == "-" for c in cells):
                continue
            fmt = [f"{c * 1e6:.1f}" if isinstance(c, float) else c for c in cells]
            f, c = times.get((name, s, "fatpipe")), times.get((name, s, "calibrated"))
            ratio = f"{c / f:.2f}" if isinstance(f, float) and isinstance(c, float) else "-"
            a = ab.get((s, "calibrated"))
            dist = f"{c / a:.2f}" if a and isinstance(c, float) else "-"
            print(f"| {name} | {s} | " + " | ".join(fmt) + f" | {ratio} | {dist} |")


if __name__ == "__main__":
    main()
