#!/usr/bin/python3
"""Distance to both bounds, case by case (issue: toward the lower bound at scale).

    docs/results/sim/overlap/bounds.py [--csv results.csv] [--plots] > bounds.md

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


# Each overlapped variant and the phase-after-phase algorithm it overlaps.
PAIRS = [("node_aware", "node_aware_overlap"), ("node_aware", "node_aware_overlap:batches=1"),
         ("locality_aware:groups=4", "locality_aware_overlap:groups=4"),
         ("multileader:leaders=4", "multileader_overlap:leaders=4"),
         ("hierarchical", "multileader_overlap:leaders=1")]


def goal(size):
    return 2.5 if size <= 16 else 1.5 if size >= 4096 else None


def us(t):
    return f"{t * 1e6:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", default=os.path.join(HERE, "results.csv"))
    ap.add_argument("--plots", action="store_true", help="write the t / AB plots beside the csv")
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
        print("Overlapped / phased (time of the overlapped variant over the algorithm it "
              "overlaps; < 1: overlap wins):\n")
        sizes = sorted(cases[key])
        print("| overlapped | phased | " + " | ".join(f"{x} B" for x in sizes) + " |")
        print("|" + "---|" * (2 + len(sizes)))
        for phased, overlapped in PAIRS:
            cells = []
            for size in sizes:
                t = cases[key][size]["t"]
                cells.append(f"{t[overlapped] / t[phased]:.2f}" if overlapped in t and phased in t else "-")
            if any(c != "-" for c in cells):
                print(f"| {overlapped} | {phased} | " + " | ".join(cells) + " |")
        print()
        if args.plots:
            plot(key, cases[key], os.path.dirname(os.path.abspath(args.csv)))


def plot(key, points, outdir):
    """t / AB against the size, one line per algorithm of PAIRS and baseline."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    platform, node, P, Q, coll, dist = key
    names = []
    for phased, overlapped in PAIRS:
        names += [n for n in (phased, overlapped) if n not in names]
    names += list(BASELINES)
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, name in enumerate(names):
        xs = [s for s in sorted(points) if name in points[s]["t"] and points[s].get("ab")]
        if not xs:
            continue
        ys = [points[s]["t"][name] / points[s]["ab"] for s in xs]
        style = "--" if name in BASELINES else "-" if OVERLAPPED.search(name) else ":"
        label = BASELINES.get(name, name)
        ax.plot(xs, ys, style, marker="o", label=label, color=plt.cm.tab20(i % 20))
    ax.axhline(1.5, color="black", lw=0.8)
    ax.axhline(2.5, color="black", lw=0.8, ls="-.")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bytes per peer (mean)")
    ax.set_ylabel("simulated time / achievable bound")
    ax.set_title(f"{coll}, {dist}: {platform}, node {node}, P={P} ({P // Q} nodes x {Q})\n"
                 "solid: overlapped, dotted: phased, dashed: baselines; goals 2.5 (16 B), 1.5 (4 KiB+)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, f"ratio-{platform}-{node}-P{P}-Q{Q}-{coll}-{dist}.png"), dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    main()
