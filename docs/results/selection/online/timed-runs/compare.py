#!/usr/bin/env python3
"""An SMPI recheck against ../smpi/ (the committed grid run, every
exploring call timed on the normal path): by default smpi/ here (smpi.sh
cases 0-12 at e97cded, XCHG_ONLINE_SMPI_OUT), written to table.md here;
`compare.py DIR OUT` compares DIR (another recheck) and writes OUT. Per
point: the decision, the calls explored and their cost over the winner's
as a share of 1,000 calls, and auto's simulated time, before and after."""
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def explorations(path):
    out = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            m = re.search(r"-> (\S+); exploring: (\d+) calls, ([0-9.]+) us", r["line"])
            if m:
                key = (r["platform"], int(r["P"]), int(r["Q"]), r["coll"], int(r["S"]), r["dist"])
                out[key] = (m.group(1).split(":")[0], int(m.group(2)), float(m.group(3)))
    return out


def auto_times(path):
    with open(path) as f:
        return {(r["platform"], int(r["P"]), int(r["Q"]), r["coll"], int(r["S"]), r["dist"]):
                float(r["t_avg"]) for r in csv.DictReader(f) if r["algo"] == "auto"}


before = explorations(os.path.join(HERE, "..", "smpi", "exploration.csv"))
recheck = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "smpi")
table = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "table.md")
after = explorations(os.path.join(recheck, "exploration.csv"))
t_before = auto_times(os.path.join(HERE, "..", "smpi", "results.csv"))
t_after = auto_times(os.path.join(recheck, "results.csv"))
lines = ["| platform | P | Q | coll | S | dist | decision before / after | calls explored "
         "before / after | cost per 1,000 calls before / after | auto (us) before / after |",
         "|---|---:|---:|---|---:|---|---|---:|---:|---:|"]
same = 0
for key in sorted(after, key=lambda k: (k[1], k[0], k[4])):
    b, a = before[key], after[key]
    tb, ta = t_before[key], t_after[key]
    same += b[0] == a[0] and abs(ta / tb - 1) < 1e-3
    lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {key[4]} | {key[5]} | "
                 f"{b[0]} / {a[0]} | {b[1]} / {a[1]} | {b[2] / (10 * tb * 1e6):.2f}% / "
                 f"{a[2] / (10 * ta * 1e6):.2f}% | {tb * 1e6:.2f} / {ta * 1e6:.2f} |")
text = "\n".join(lines) + f"\n\n{same} of {len(after)} points: the same decision and time.\n"
with open(table, "w") as f:
    f.write(text)
print(text)
