#!/usr/bin/python3
"""Table and plot of the held-out grid (heldout.sh): for every simulated case,
what `auto` (xchg's own choice) took against the best candidate measured
there, against xchg's reproduction of MPICH 4's default alltoallv
(scattered:batch=32) and against SMPI's built-in MPICH collective; the
headline speedup of a case is the smaller of the two baselines' ratios.
Writes heldout.md and heldout.png next to this script.
    /usr/bin/python3 docs/results/selection/heldout.py
"""
import collections
import csv
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
cases = collections.defaultdict(dict)
with open(os.path.join(here, "heldout", "results.csv")) as f:
    for r in csv.DictReader(f):
        if r["status"] != "ok" or r["verified"] != "ok":
            continue
        key = (r["platform"], r["coll"], int(r["P"]), int(r["Q"]), int(r["S"]), r["dist"])
        name = r["algo"] if r["selector"] == "xchg" else r["selector"] + ":mpi"
        cases[key][name] = float(r["t_min"]) * 1e6

# auto with the platform's constants (heldout-platform.sh), when measured
platform_auto = {}
path = os.path.join(here, "heldout-platform", "results.csv")
if os.path.exists(path):
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["status"] == "ok" and r["verified"] == "ok":
                key = (r["platform"], r["coll"], int(r["P"]), int(r["Q"]), int(r["S"]), r["dist"])
                platform_auto[key] = float(r["t_min"]) * 1e6

rows = []
for key in sorted(cases):
    t = cases[key]
    if "auto" not in t:
        continue
    cands = {a: v for a, v in t.items() if a not in ("auto", "mpich:mpi")}
    best = min(cands, key=cands.get)
    mpich = t.get("mpich:mpi")
    s32 = t.get("scattered:batch=32")
    base = [b for b in (mpich, s32) if b]
    pa = platform_auto.get(key)
    rows.append(dict(key=key, auto=t["auto"], best=best, best_us=t[best],
                     auto_over_best=t["auto"] / min(t[best], t["auto"]),
                     pauto=pa, pauto_over_best=pa / min(t[best], pa) if pa else None,
                     mpich=mpich, s32=s32,
                     speedup=min(base) / t["auto"] if base else float("nan")))

lines = []
ok = sum(r["auto_over_best"] <= 1.10 for r in rows)
worst = max(rows, key=lambda r: r["auto_over_best"])
lines.append(f"{len(rows)} held-out cases: auto within 10% of the best measured algorithm in {ok} "
             f"({100.0 * ok / len(rows):.0f}%); worst {worst['auto_over_best']:.2f}x "
             f"({' '.join(map(str, worst['key']))}); auto slower than a baseline in "
             f"{sum(r['speedup'] < 1 for r in rows)} case(s).\n")
if platform_auto:
    pr = [r for r in rows if r["pauto"]]
    pok = sum(r["pauto_over_best"] <= 1.10 for r in pr)
    lines.append(f"With the platform's constants (heldout-platform.sh): within 10% in {pok} of "
                 f"{len(pr)}; worst {max(r['pauto_over_best'] for r in pr):.2f}x.\n")
lines.append("| platform | coll | P | Q | S | dist | auto us | best measured | best us | auto/best "
             "| auto, platform constants: us, /best | scattered:batch=32 us | SMPI mpich us "
             "| speedup (smaller) |")
lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    p, c, P, Q, S, d = r["key"]
    fmt = lambda v: f"{v:.1f}" if v else "-"
    pauto = f"{r['pauto']:.1f}, {r['pauto_over_best']:.2f}" if r["pauto"] else "-"
    lines.append(f"| {p} | {c} | {P} | {Q} | {S} | {d} | {r['auto']:.1f} | {r['best']} | "
                 f"{r['best_us']:.1f} | {r['auto_over_best']:.2f} | {pauto} | {fmt(r['s32'])} | "
                 f"{fmt(r['mpich'])} | {r['speedup']:.2f} |")
open(os.path.join(here, "heldout.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))

labels = [f"{p} {'a2av' if c == 'alltoallv' else 'a2a'} P{P}/Q{Q} {S}B {d[:3]}" for (p, c, P, Q, S, d) in
          (r["key"] for r in rows)]
fig, ax = plt.subplots(figsize=(10, 0.35 * len(rows) + 1.5))
y = range(len(rows))
ax.barh([i + 0.2 for i in y], [r["auto_over_best"] for r in rows], height=0.4,
        label="auto / best measured xchg algorithm")
ax.barh([i - 0.2 for i in y], [1 / r["speedup"] for r in rows], height=0.4,
        label="auto / faster of (MPICH 4 default reproduced, SMPI MPICH)")
ax.axvline(1.0, color="k", lw=0.8)
ax.axvline(1.1, color="gray", lw=0.8, ls="--")
ax.set_yticks(list(y))
ax.set_yticklabels(labels, fontsize=7)
ax.set_xlabel("time ratio (< 1: auto faster)")
ax.set_title("Automatic selection on held-out simulated cases (SimGrid SMPI)")
ax.legend(fontsize=7, loc="lower right")
fig.tight_layout()
fig.savefig(os.path.join(here, "heldout.png"), dpi=120)
