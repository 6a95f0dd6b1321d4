#!/usr/bin/python3
"""Summary tables of an arrival study (results.csv of run.sh or run-16cores.sh).

Prints markdown: the gain of arrival awareness on the same code (aware=0 time /
aware=1 time) per scheme, each variant against MPI's own collective (MPI time /
variant time), both over all points and at MIF >= 32, and the points of the
paper's headline claims (Qian & Afsahi 2011, Section 6: PAP_Direct at 8 KB and
PAP_Shm_Direct up to 256 B, under skew).
With a second file (baselines.csv of 16cores/run.sh): the completion time of
MPI and of xchg's point-to-point algorithms beside rma_direct copy.
Usage: /usr/bin/python3 docs/results/arrival/summary.py results.csv [baselines.csv]
"""
import csv
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from labels import label  # noqa: E402

rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["status"] == "ok"]


t = defaultdict(dict)  # (coll, dist, mif, S) -> label -> completion time
for r in rows:
    t[(r["coll"], r["skew_dist"], float(r["skew_mif"]), int(r["S_bytes"]))][label(r["algorithm"])] = \
        float(r["median_us"])


def describe(ratios):
    if not ratios:
        return "| - | - | - | - | 0 |"
    return "| %.2f | %d | %d | %.2f-%.2f | %d |" % (
        statistics.median(ratios), sum(x > 1.05 for x in ratios), sum(x < 0.95 for x in ratios),
        min(ratios), max(ratios), len(ratios))


def ratio_table(title, pairs, keep):
    print("\n### %s\n" % title)
    print("| ratio | points | median | > 1.05 | < 0.95 | range | n |")
    print("|---|---|---|---|---|---|---|")
    for name, num, den in pairs:
        for what, cond in (("all", lambda k: True), ("MIF >= 32", lambda k: k[2] >= 32)):
            vals = [v[num] / v[den] for k, v in t.items()
                    if keep(k) and cond(k) and v.get(num) and v.get(den)]
            print("| %s | %s %s" % (name, what, describe(vals)))


for coll in sorted({k[0] for k in t}):
    keep = lambda k, c=coll: k[0] == c  # noqa: E731
    print("\n## %s (P=%s)" % (coll, rows[0]["P"]))
    ratio_table("Arrival awareness on the same code (aware=0 / aware=1; > 1: aware faster)",
                [("copy", "copy (not aware)", "copy"),
                 ("zerocopy", "zerocopy (not aware)", "zerocopy"),
                 ("shm", "shm (not aware)", "shm")], keep)
    ratio_table("Against MPI's own (MPI / variant; > 1: xchg faster)",
                [("copy", "MPI", "copy"), ("zerocopy", "MPI", "zerocopy"),
                 ("shm", "MPI", "shm")], keep)

print("\n## The paper's headline points (MPI / variant)\n")
print("| coll | dist | MIF | S | MPI us | copy | zerocopy | shm | best xchg |")
print("|---|---|---|---|---|---|---|---|---|")
for k in sorted(t):
    coll, dist, mif, s = k
    if not ((s == 8192 and mif in (32, 512)) or (s <= 256 and mif == 32)):
        continue
    v = t[k]
    cell = lambda lab: "%.2f" % (v["MPI"] / v[lab]) if v.get(lab) and v.get("MPI") else "-"  # noqa: E731
    best = max((v["MPI"] / x for lab, x in v.items() if lab != "MPI"), default=0)
    print("| %s | %s | %g | %d | %.1f | %s | %s | %s | %.2f |" % (
        coll, dist, mif, s, v.get("MPI", 0), cell("copy"), cell("zerocopy"), cell("shm"), best))

if len(sys.argv) > 2:
    base = defaultdict(dict)
    names = []
    for r in csv.DictReader(open(sys.argv[2])):
        if r["status"] != "ok":
            continue
        name = r["algorithm"].split(",")[0].replace("rma_direct:scheme=", "rma_direct ")
        name = name.replace("pairwise:order=shift", "pairwise")
        if name not in names:
            names.append(name)
        base[(r["coll"], r["skew_dist"], float(r["skew_mif"]), int(r["S_bytes"]))][name] = \
            float(r["median_us"])
    print("\n## Point-to-point baselines under the same delays (completion time, us)\n")
    for coll in sorted({k[0] for k in base}):
        cols = [n for n in names if any(n in v for k, v in base.items() if k[0] == coll)]
        print("| coll | dist | MIF | S | %s |" % " | ".join(cols))
        print("|" + "---|" * (4 + len(cols)))
        for k in sorted(k for k in base if k[0] == coll):
            v = base[k]
            print("| %s | %s | %g | %d | %s |" % (k + (" | ".join(
                "%.1f" % v[c] if c in v else "-" for c in cols),)))
        print()
