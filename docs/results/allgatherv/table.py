#!/usr/bin/python3
"""Compact tables of the allgatherv study from sim/results.csv (sim/run's).

    docs/results/allgatherv/table.py [--csv sim/results.csv] [--platform flat]

For each (P, distribution): one row per algorithm (SMPI's Open MPI and MPICH
MPI_Allgatherv first), one column per S, the simulated time in microseconds
(t_min of the run's iterations); the fastest of each column in bold, and
below the table the best xchg algorithm's speedup over the faster of the two
MPI libraries per S (> 1: xchg faster). Markdown on stdout.
"""
import argparse
import csv
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", default=os.path.join(HERE, "sim", "results.csv"))
    ap.add_argument("--platform", default="flat")
    args = ap.parse_args()
    with open(args.csv) as f:
        rows = [r for r in csv.DictReader(f) if r["platform"] == args.platform and
                r["coll"] == "allgatherv" and r["status"] == "ok" and r["t_min"]]
    for p in sorted({int(r["P"]) for r in rows}):
        for dist in ("uniform", "powerlaw", "sparse"):
            pts = [r for r in rows if int(r["P"]) == p and r["dist"] == dist]
            if not pts:
                continue
            sizes = sorted({int(r["S"]) for r in pts})
            names, t = [], {}
            for r in pts:
                name = f"MPI ({'SMPI Open MPI' if r['selector'] == 'ompi' else 'SMPI MPICH'})" \
                    if r["algo"] == "mpi" else r["algo"]
                if name not in names:
                    names.append(name)
                t[(name, int(r["S"]))] = float(r["t_min"]) * 1e6
            first = {n: i for i, n in enumerate(names)}
            names.sort(key=lambda n: (not n.startswith("MPI"), first[n]))
            q = pts[0]["Q"]
            print(f"**{args.platform}, P={p} ({p // int(q)} nodes of {q}), {dist}** "
                  f"(simulated us; S = bytes per contribution)\n")
            print("| algorithm | " + " | ".join(f"S={s}" for s in sizes) + " |")
            print("|---|" + "---|" * len(sizes))
            best = {s: min(v for (n, s2), v in t.items() if s2 == s) for s in sizes}
            for n in names:
                cells = []
                for s in sizes:
                    v = t.get((n, s))
                    cells.append("-" if v is None else
                                 (f"**{v:.1f}**" if v == best[s] else f"{v:.1f}"))
                print(f"| {n} | " + " | ".join(cells) + " |")
            speed = []
            for s in sizes:
                mpi = [v for (n, s2), v in t.items() if s2 == s and n.startswith("MPI")]
                ours = [(v, n) for (n, s2), v in t.items()
                        if s2 == s and not n.startswith("MPI") and n != "auto"]
                if mpi and ours:
                    v, n = min(ours)
                    speed.append(f"S={s}: {min(mpi) / v:.2f}x ({n})")
            auto = []
            for s in sizes:
                if ("auto", s) in t:
                    ours = min(v for (n, s2), v in t.items()
                               if s2 == s and not n.startswith("MPI") and n != "auto")
                    auto.append(f"S={s}: {t[('auto', s)] / ours:.2f}")
            print("\nBest xchg algorithm vs the faster MPI: " + "; ".join(speed) + ".")
            if auto:
                print("auto (the cost model's choice) / best xchg algorithm: " + "; ".join(auto) + ".")
            print()


if __name__ == "__main__":
    main()
