#!/usr/bin/python3
"""Per-algorithm table (algorithm x S) from docs/results/sim/results.csv.

    sim/table.py [--csv results.csv] [--platform dragonfly] [--node fatpipe] [--P 256] [--Q 16]
                 [--coll alltoallv] [--dist uniform] [--algos REGEX]

Prints a markdown table: simulated time (us), speedup of the algorithm over the
simulated Open MPI and MPICH MPI_Alltoall(v) (>1 = xchg faster), time / model
lower bound, time / achievable bound (where the rows have one), the wall seconds the point cost and
the CPU seconds of the smpirun (cpu_s; what it costs on an idle core). Points that did not finish
show their status (timeout, error).
"""
import argparse
import csv
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", default=os.path.join(ROOT, "docs", "results", "sim", "results.csv"))
    ap.add_argument("--platform", default="dragonfly")
    ap.add_argument("--node", default="fatpipe", help="node model (sim/run --node)")
    ap.add_argument("--P", type=int, default=256)
    ap.add_argument("--Q", type=int, default=16)
    ap.add_argument("--coll", default="alltoallv")
    ap.add_argument("--dist", default="uniform")
    ap.add_argument("--algos", default=".", help="regex on the algorithm's selection string")
    args = ap.parse_args()
    with open(args.csv) as f:
        rows = [r for r in csv.DictReader(f) if r["platform"] == args.platform and
                (r.get("node") or "fatpipe") == args.node and
                int(r["P"]) == args.P and int(r["Q"]) == args.Q and r["coll"] == args.coll and
                r["dist"] == args.dist]
    sizes = sorted({int(r["S"]) for r in rows})
    base = {}
    for r in rows:
        if r["algo"] == "mpi" and r["status"] == "ok" and r["t_min"]:
            base[(r["selector"], int(r["S"]))] = float(r["t_min"])
    order = []
    for r in rows:
        if r["algo"] != "mpi" and re.search(args.algos, r["algo"]) and r["algo"] not in order:
            order.append(r["algo"])
    print(f"{args.platform} (node {args.node}), P={args.P}, Q={args.Q}, {args.coll}, {args.dist}\n")
    print("| algorithm | S (B) | t (us) | vs Open MPI | vs MPICH | t / LB | t / AB | wall (s) | cpu (s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for s in sizes:
        for sel, name in (("ompi", "SMPI Open MPI"), ("mpich", "SMPI MPICH")):
            if (sel, s) in base:
                lb = [float(r["lower_bound"]) for r in rows if int(r["S"]) == s and r["lower_bound"]]
                ratio = f"{base[(sel, s)] / lb[0]:.2f}" if lb else "-"
                print(f"| *{name}* | {s} | {base[(sel, s)] * 1e6:.1f} | | | {ratio} | | | |")
        for a in order:
            pts = [r for r in rows if r["algo"] == a and int(r["S"]) == s]
            if not pts:
                continue
            r = pts[-1]
            if r["status"] != "ok" or not r["t_min"]:
                print(f"| {a} | {s} | {r['status']} | | | | | {r['wall_s']} | |")
                continue
            t = float(r["t_min"])
            sp = [f"{base[(sel, s)] / t:.2f}x" if (sel, s) in base else "-" for sel in ("ompi", "mpich")]
            ab = f"{float(r['t_over_ab']):.2f}" if r.get("t_over_ab") else "-"
            print(f"| {a} | {s} | {t * 1e6:.1f} | {sp[0]} | {sp[1]} | {float(r['t_over_lb']):.2f} | {ab} | "
                  f"{r['wall_s']} | {r.get('cpu_s') or ''} |")


if __name__ == "__main__":
    main()
