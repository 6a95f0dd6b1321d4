#!/usr/bin/python3
"""Confirmations (run.sh): tables and plot.

`confirm.py --collect RAW LABEL` reads run.sh's runs (RAW/RUN-P-COLL-S.txt:
xchg-bench's table with XCHG_VERBOSE=1's lines) and appends one row per run
and point to confirmations.csv: what the first exploration chose, each
confirmation's medians and outcome (`;`-separated when there were several),
and the rows' ratios to MPI's own. Without arguments it writes table.md (and
its copy in README.md, between the markers) and confirm.png from
confirmations.csv.
"""
import collections
import csv
import glob
import os
import re
import statistics
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = os.path.join(HERE, "confirmations.csv")
FIELDS = ["build", "run", "P", "coll", "S_bytes", "first_winner", "confirm_winner_us",
          "confirm_mpi_us", "confirm_kept", "auto_ran", "auto_ratio", "mpi_row_ratio",
          "best_row", "best_row_ratio"]
TRIED = re.compile(r": tried .* -> ([a-z_]+)")
CONFIRM = re.compile(r"confirming against mpi [a-z_]+\S* ([0-9.]+) us, mpi ([0-9.]+) us"
                     r"[^>]*-> \S+ \((kept|switched)\)")
ROW = re.compile(r"^\s+\d+\s+(\S+)\s+([0-9.]+)\s+([0-9.]+)", re.M)


def name(row):
    return re.sub(r"[:\]].*", "", row)


def collect(raw, label):
    out = []
    for path in sorted(glob.glob(os.path.join(raw, "*.txt"))):
        run, p, coll, s = os.path.basename(path)[:-4].split("-")
        text = open(path).read()
        rows = {m.group(1): float(m.group(3)) for m in ROW.finditer(text)}
        auto = next((r for r in rows if r.startswith("auto[")), None)
        best = next((r for r in rows if r not in ("MPI", "mpi") and not r.startswith("auto")), "")
        first = TRIED.search(text)
        conf = CONFIRM.findall(text)
        out.append([label, run, p, coll, s, first.group(1) if first else "",
                    ";".join(c[0] for c in conf), ";".join(c[1] for c in conf),
                    ";".join("1" if c[2] == "kept" else "0" for c in conf),
                    name(auto[5:]) if auto else "", rows.get(auto, ""), rows.get("mpi", ""),
                    name(best), rows.get(best, "")])
    new = not os.path.exists(CSV)
    with open(CSV, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(FIELDS)
        w.writerows(out)


def tables():
    by = collections.defaultdict(list)
    builds = []
    for r in csv.DictReader(open(CSV)):
        by[(r["build"], int(r["P"]), r["coll"], int(r["S_bytes"]))].append(r)
        if r["build"] not in builds:
            builds.append(r["build"])
    lines = ["<!-- confirm table (confirm.py) -->",
             "Per point and build: runs; confirmations (switched to `mpi`); of the runs that "
             "switched, those where the point's fastest fixed row read over 2% faster than "
             "`auto` (a loss); `auto` over MPI's own, median over the runs (range); `auto` over "
             "the fastest fixed row, median.", "",
             "| P | coll | S | build | runs | confirmations (switched) | switched, a loss | "
             "auto /MPI | auto /best |", "|---:|---|---:|---|---:|---:|---:|---:|---:|"]
    totals = collections.defaultdict(lambda: [0, 0, 0, 0])
    for key in sorted(by, key=lambda k: (k[1], k[2], k[3], builds.index(k[0]))):
        rs = by[key]
        conf = sum(len(r["confirm_kept"].split(";")) for r in rs if r["confirm_kept"])
        switched = sum(r["confirm_kept"].split(";").count("0") for r in rs if r["confirm_kept"])
        lost = sum(1 for r in rs if "0" in r["confirm_kept"].split(";") and r["best_row_ratio"]
                   and float(r["best_row_ratio"]) * 1.02 < float(r["auto_ratio"]))
        auto = [float(r["auto_ratio"]) for r in rs]
        over_best = [float(r["auto_ratio"]) / float(r["best_row_ratio"]) for r in rs
                     if r["best_row_ratio"]]
        t = totals[key[0]]
        t[0] += conf
        t[1] += switched
        t[2] += lost
        t[3] += sum(1 for a in auto if a > 1.02)
        lines.append(f"| {key[1]} | {key[2]} | {key[3]} | {key[0]} | {len(rs)} | {conf} "
                     f"({switched}) | {lost} | {statistics.median(auto):.3f} "
                     f"({min(auto):.2f}-{max(auto):.2f}) | {statistics.median(over_best):.3f} |")
    lines.append("")
    for b in builds:
        c, s, l, o = totals[b]
        lines.append(f"- {b}: {c} confirmations, {s} switched to `mpi`, {l} of those a loss; "
                     f"single runs of `auto` over 1.02x MPI's own: {o}.")
    lines.append("<!-- /confirm table -->")
    table = "\n".join(lines) + "\n"
    open(os.path.join(HERE, "table.md"), "w").write(table)
    readme = os.path.join(HERE, "README.md")  # its copy of the table, between the markers
    text = open(readme).read()
    start, end = text.find(lines[0]), text.find(lines[-1])
    if start >= 0 and end >= 0:
        open(readme, "w").write(text[:start] + table + text[end + len(lines[-1]) + 1:])
    plot(by, builds)


def plot(by, builds):
    points = sorted({k[1:] for k in by}, key=lambda k: (k[0], k[1], k[2]))
    fig, ax = plt.subplots(figsize=(11, 4.5))
    width = 0.8 / len(builds)
    for i, b in enumerate(builds):
        med = [statistics.median(float(r["auto_ratio"]) for r in by[(b,) + p])
               if (b,) + p in by else float("nan") for p in points]
        ax.bar([x + i * width for x in range(len(points))], med, width, label=f"auto, {b}")
    best = [statistics.median(float(r["best_row_ratio"]) for k in by if k[1:] == p
                              for r in by[k] if r["best_row_ratio"]) for p in points]
    ax.plot([x + 0.4 - width / 2 for x in range(len(points))], best, "k_", markersize=14,
            label="fastest fixed row (median)")
    ax.axhline(1.02, color="red", lw=0.8, ls="--", label="1.02x MPI's own")
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(points))])
    ax.set_xticklabels([f"P={p} {c}\n{s} B" for p, c, s in points], fontsize=7, rotation=45,
                       ha="right")
    ax.set_ylabel("median time / MPI's own")
    ax.set_title("auto where a winner other than mpi is usual (confirmations)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "confirm.png"), dpi=110)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--collect":
        collect(sys.argv[2], sys.argv[3])
    else:
        tables()
