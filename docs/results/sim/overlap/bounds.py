#!/usr/bin/python3
"""Distance to both bounds, case by case (issue: toward the lower bound at scale).

    docs/results/sim/overlap/bounds.py [--csv results.csv] > bounds.md

Reads results.csv of this directory (written by sim/run, see README.md) and
prints one markdown table per (platform, P, distribution): for every size the
fastest xchg algorithm other than the baselines' reproductions and its time
over the model's lower bound (LB) and over the achievable bound (AB), the best of the node-aware family run phase after
phase and the best overlapped variant, the baselines (xchg's reproductions of
what MPICH 4 and Open MPI 4.1 run, scattered:batch=32 and linear, and SMPI's
built-in MPICH and Open MPI collectives), and the headline speedup: the
fastest baseline that finished over that algorithm (the smaller of the
speedups; < 1: a baseline, which xchg can also run, is faster). Goal column: 2.5x AB at 16 B, 1.5x AB from 4 KiB.
"""
import argparse
import csv
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
BASELINES = {"scattered:batch=32": "MPICH 4 (xchg)", "linear": "Open MPI 4.1 (xchg)",
             "mpich:mpi": "SMPI MPICH", "ompi:mpi": "SMPI Open MPI"}
PHASED = re.compile(r"^(node_aware|locality_aware|multileader|hierarchical)(:|$)")
OVERLAPPED = re.compile(r"_overlap(:|$)")


def goal(size):
    return 2.5 if size <= 16 else 1.5 if size >= 4096 else None


def us(t):
    return f"{t * 1e6:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", default=os.path.join(HERE, "results.csv"))
    args = ap.parse_args()
    with open(args.csv) as f:
        rows = list(csv.DictReader(f))
    cases = {}
    for r in rows:
        name = f"{r['selector']}:mpi" if r["algo"] == "mpi" else r["algo"]
        key = (r["platform"], r.get("node") or "fatpipe", int(r["P"]), int(r["Q"]), r["coll"], r["dist"])
        point = cases.setdefault(key, {}).setdefault(int(r["S"]), {"t": {}, "status": {}})
        point["status"][name] = r["status"]
        if r["status"] == "ok" and r["t_min"]:
            point["t"][name] = float(r["t_min"])
            point["lb"], point["ab"] = float(r["lower_bound"]), float(r["achievable"] or 0)
    print("# Distance to the bounds\n")
    print("Made by `bounds.py` from `results.csv`. Times in us (simulated, minimum of "
          "2 calls); t / LB and t / AB of the fastest xchg algorithm; *speedup*: the "
          "fastest baseline that finished over the fastest xchg algorithm that is not a "
          "baseline's reproduction (> 1: xchg faster); a baseline that did not finish "
          "shows its status.\n")
    for key in sorted(cases):
        platform, node, P, Q, coll, dist = key
        print(f"## {platform}, node model {node}, P = {P} ({P // Q} nodes x {Q}), {coll}, {dist}\n")
        print("| S | fastest xchg (not a baseline) | t | t / LB | t / AB | goal | phased best (t / AB) | "
              "overlapped best (t / AB) | " + " | ".join(BASELINES.values()) + " | speedup |")
        print("|" + "---|" * (9 + len(BASELINES)))
        for size in sorted(cases[key]):
            pt = cases[key][size]
            xchg = {a: t for a, t in pt["t"].items() if a not in BASELINES}
            if not xchg or not pt.get("ab"):
                continue
            best = min(xchg, key=xchg.get)
            t, lb, ab = xchg[best], pt["lb"], pt["ab"]

            def family(pattern):
                found = {a: x for a, x in xchg.items() if pattern.search(a)}
                if not found:
                    return "-"
                a = min(found, key=found.get)
                return f"{a} {us(found[a])} ({found[a] / ab:.2f})"

            g = goal(size)
            met = "-" if g is None else ("met" if t / ab <= g else f"not met ({g})")
            base = [us(pt["t"][b]) if b in pt["t"] else pt["status"].get(b, "-") for b in BASELINES]
            finished = [pt["t"][b] for b in BASELINES if b in pt["t"]]
            speedup = f"{min(finished) / t:.2f}" if finished else "-"
            print(f"| {size} | {best} | {us(t)} | {t / lb:.2f} | {t / ab:.2f} | {met} | "
                  f"{family(PHASED)} | {family(OVERLAPPED)} | " + " | ".join(base) + f" | {speedup} |")
        print()


if __name__ == "__main__":
    main()
