#!/usr/bin/python3
"""SMPI scaling of the persistent neighbourhood alltoallv (the shape of
Collom et al. 2023, Figure 11): strong and weak scaling of a 2-D stencil
halo exchange, and coarse-level patterns, with `standard`, `locality` and
`locality` with duplicate removal, against the model lower bound.

Every point is one smpirun of tools/xchg-neighbor-bench (built for SMPI in
build-smpi/) on a platform from sim/platforms.py, nodes of Q ranks, with the
flags of sim/smpi-flags. The bench checks every received value.

  docs/results/neighbor-scaling/run.py               # the sweep, then the report
  docs/results/neighbor-scaling/run.py --report-only # tables and plots from results.csv
  docs/results/neighbor-scaling/run.py --quick       # 2 small points (smoke)

Lower bound of one start (the model of sim/run): the latency of the fewest
links between two nodes plus the most bytes a node sends to or receives from
other nodes over its injection bandwidth, once counting every value per
destination rank (what any algorithm without duplicate removal moves) and
once per destination node (`lb_dedup`, what duplicate removal can reach).
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "sim"))
import platforms  # noqa: E402

RESULTS = os.path.join(HERE, "results.csv")


def points(quick):
    """(study, P, pattern options) of the sweep."""
    if quick:
        return [("strong", 32, ["--pattern", "stencil", "--n", "256"]),
                ("coarse", 32, ["--pattern", "coarse", "--count", "128", "--fraction", "0.25"])]
    out = []
    for p in (64, 128, 256):
        out.append(("strong", p, ["--pattern", "stencil", "--n", "2048"]))
        side = int(round(128 * math.sqrt(p)))  # 128 x 128 points per rank
        out.append(("weak", p, ["--pattern", "stencil", "--n", str(side)]))
        out.append(("coarse", p, ["--pattern", "coarse", "--count", "256",
                                  "--fraction", "0.25"]))
        # the coarsest AMG levels: every rank talks to every rank, little
        # each (about 10 minutes of wall time at P=128: P=64 only)
        if p == 64:
            out.append(("dense", p, ["--pattern", "coarse", "--count", "64",
                                     "--fraction", "1"]))
    return out


def smpi_flags():
    with open(os.path.join(ROOT, "sim", "smpi-flags")) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def run_point(args, study, p, opts, platdir):
    nodes = p // args.q
    base = platforms.write(args.platform, nodes, args.q, platdir)
    bench = os.path.join(ROOT, args.build, "tools", "xchg-neighbor-bench")
    cmd = (["timeout", str(args.timeout), "smpirun", "-np", str(p), "-platform", base + ".xml",
            "-hostfile", base + ".hosts"] + smpi_flags() +
           # SMPI's default collectives are its naive ones (its linear
           # allgather takes minutes at P=256 for xchg's setup): MPICH's.
           ["--cfg=smpi/coll-selector:mpich"] +
           # the dense pattern trips SimGrid's default maxmin precision 1e-5
           # (an abort, "Cannot saturate more a constraint"); 1e-9 is worse
           (["--cfg=maxmin/precision:1e-4"] if study == "dense" else []) +
           [bench] + opts + ["--node-size", str(args.q), "--starts", str(args.starts),
                             "--warmup", "1", "--csv", "-"] + args.algos)
    t0 = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=platdir)
    wall = time.time() - t0
    rows = []
    lines = [ln for ln in proc.stdout.splitlines() if ln.count(",") > 10]
    if len(lines) < 2:
        print(f"  FAILED ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
        return rows
    for rec in csv.DictReader(lines):
        rec.update(study=study, platform=args.platform, Q=args.q, wall_s=f"{wall:.1f}")
        mod = platforms.model(args.platform, nodes)
        alpha = mod["min_links"] * mod["link_lat"]
        vol = max(int(rec["max_node_out"]), int(rec["max_node_in"]))
        vol_dedup = max(int(rec["max_node_out_dedup"]), int(rec["max_node_in_dedup"]))
        rec["lb_us"] = f"{(alpha + vol / mod['injection']) * 1e6:.3f}"
        rec["lb_dedup_us"] = f"{(alpha + vol_dedup / mod['injection']) * 1e6:.3f}"
        rows.append(rec)
    return rows


FIELDS = ["study", "platform", "Q", "pattern", "P", "n", "width", "count", "fraction",
          "max_degree", "algorithm", "init_us", "start_us", "init_over_start", "max_inter_msgs",
          "max_intra_msgs", "max_inter_bytes", "max_node_out", "max_node_in",
          "max_node_out_dedup", "max_node_in_dedup", "lb_us", "lb_dedup_us", "correct",
          "wall_s"]


def sweep(args):
    rows = []
    with tempfile.TemporaryDirectory() as platdir:
        for study, p, opts in points(args.quick):
            print(f"{study} P={p} {' '.join(opts)}", flush=True)
            got = run_point(args, study, p, opts, platdir)
            for r in got:
                print(f"  {r['algorithm']:24s} start {float(r['start_us']):10.2f} us  "
                      f"init {float(r['init_us']):10.1f} us  LB {r['lb_us']} us  "
                      f"correct {r['correct']}")
            rows += got
    with open(RESULTS, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return rows


def report(rows):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    md = []
    for study in ("strong", "weak", "coarse", "dense"):
        sel = [r for r in rows if r["study"] == study]
        if not sel:
            continue
        algos = sorted({r["algorithm"] for r in sel}, key=lambda a: (len(a), a))
        ps = sorted({int(r["P"]) for r in sel})
        md.append(f"### {study}\n")
        md.append("| P | " + " | ".join(f"{a} (us)" for a in algos) +
                  " | LB (us) | LB dedup (us) | best speedup over standard |")
        md.append("|---" * (len(algos) + 4) + "|")
        fig, ax = plt.subplots(figsize=(6, 4))
        for a in algos:
            pts = sorted((int(r["P"]), float(r["start_us"])) for r in sel
                         if r["algorithm"] == a and r["correct"] == "yes")
            if pts:
                ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=a)
        lb = sorted({(int(r["P"]), float(r["lb_us"])) for r in sel})
        lbd = sorted({(int(r["P"]), float(r["lb_dedup_us"])) for r in sel})
        ax.plot([x for x, _ in lb], [y for _, y in lb], "k--", label="lower bound")
        ax.plot([x for x, _ in lbd], [y for _, y in lbd], "k:", label="lower bound, dedup")
        for p in ps:
            t = {r["algorithm"]: float(r["start_us"]) for r in sel
                 if int(r["P"]) == p and r["correct"] == "yes"}
            lbv = next(float(r["lb_us"]) for r in sel if int(r["P"]) == p)
            lbdv = next(float(r["lb_dedup_us"]) for r in sel if int(r["P"]) == p)
            others = [v for a, v in t.items() if a != "standard"]
            speed = (f"{t['standard'] / min(others):.2f}x" if "standard" in t and others else "-")
            md.append(f"| {p} | " + " | ".join(f"{t[a]:.1f}" if a in t else "-" for a in algos) +
                      f" | {lbv:.1f} | {lbdv:.1f} | {speed} |")
        md.append("")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("ranks (P)")
        ax.set_ylabel("time per start (us, simulated)")
        ax.set_title(f"neighbourhood alltoallv, {study} ({sel[0]['platform']}, "
                     f"{sel[0]['Q']} ranks/node)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(HERE, f"{study}.png"), dpi=120)
        plt.close(fig)
    with open(os.path.join(HERE, "tables.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--platform", default="dragonfly", choices=sorted(platforms.KINDS))
    ap.add_argument("--q", type=int, default=16, help="ranks per node")
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--timeout", type=int, default=1800)
    ap.add_argument("--build", default="build-smpi")
    ap.add_argument("--algos", nargs="+",
                    default=["standard", "locality", "locality:dedup=1"])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.q = 8
    if args.report_only:
        with open(RESULTS) as f:
            rows = list(csv.DictReader(f))
    else:
        rows = sweep(args)
    report(rows)


if __name__ == "__main__":
    main()
