#!/usr/bin/python3
"""agreement.md from agreement/{always,steady}/results.csv (agreement.sh)."""
import csv
import os

here = os.path.dirname(os.path.abspath(__file__))


def load(name):
    rows = {}
    with open(os.path.join(here, "agreement", name, "results.csv")) as f:
        for r in csv.DictReader(f):
            if r["status"] == "ok":
                rows[(r["platform"], int(r["P"]), int(r["Q"]), int(r["S"]))] = float(r["t_min"]) * 1e6
    return rows


always, steady = load("always"), load("steady")
lines = ["| platform | P | Q | S | alltoallv, steady (us) | with the agreement (us) | agreement (us) | share |",
         "|---|---|---|---|---|---|---|---|"]
for key in sorted(set(always) & set(steady)):
    a, s = always[key], steady[key]
    lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {s:.1f} | {a:.1f} | {a - s:.1f} | "
                 f"{(a - s) / a * 100:.0f}% |")
open(os.path.join(here, "agreement.md"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
