#!/usr/bin/python3
"""Figures and tables from results.csv (written by run.sh).

  persistent-alltoallv.png  per algorithm and size (< 1: persistent faster):
  persistent-alltoall.png   per-call time (init + 100 starts) / 100 over the median and
                            over the mean blocking call (the per-call time is a mean:
                            outliers count), and the median start over the median
                            blocking call
Prints the README's markdown tables on stdout:
  per collective and size: blocking median and mean, init, first start, median
  start, per-call time, ratios, and the break-even number of calls
  (init + first start - start) / (blocking - start), medians, when a start is
  faster than the blocking call;
  first calls on a fresh communicator: context, first and second call at 1 KiB,
  and first - second call (the plan build) at every size.
Usage: /usr/bin/python3 docs/results/plans/plot.py [results.csv]  (Debian python3-matplotlib)
"""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CSV = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results.csv")
rows = [r for r in csv.DictReader(open(CSV)) if r["status"] == "ok"]


def num(r, key):
    return float(r[key]) if r.get(key) not in (None, "") else math.nan


def label(algo):
    """Short name: MPI's own rows say which form they are."""
    if algo == "MPI":
        return "MPI (own; MPIX_*_init)"
    return algo


def size_label(s):
    s = int(s)
    return f"{s // 1024} KiB" if s >= 1024 else f"{s} B"


def by_size(coll):
    sizes = sorted({int(r["S_bytes"]) for r in rows if r["coll"] == coll})
    return sizes, {s: [r for r in rows if r["coll"] == coll and int(r["S_bytes"]) == s]
                   for s in sizes}


def call_ratio(r):
    """Per-call time of a request over the mean blocking call (mean against mean)."""
    return num(r, "per_call_us") / num(r, "blocking_mean_us")


def figure(coll):
    sizes, data = by_size(coll)
    if not sizes:
        return
    algos = [r["algorithm"] for r in data[sizes[0]]]
    fig, axes = plt.subplots(len(sizes), 1, figsize=(13, 3.6 * len(sizes)), squeeze=False)
    x = np.arange(len(algos))
    for ax, s in zip(axes[:, 0], sizes):
        rs = {r["algorithm"]: r for r in data[s]}
        bars = [("per_call_ratio", "(init + 100 starts) / 100  ÷  median blocking call", "#4c72b0"),
                (call_ratio, "(init + 100 starts) / 100  ÷  mean blocking call", "#8fa8d6"),
                ("start_ratio", "median start  ÷  median blocking call", "#dd8452")]
        for k, (key, text, colour) in enumerate(bars):
            get = key if callable(key) else (lambda r, key=key: num(r, key))
            vals = [get(rs[a]) if a in rs else math.nan for a in algos]
            ax.bar(x + (k - 1) * 0.27, vals, 0.27, label=text, color=colour)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_ylim(0, 1.45)
        ax.set_ylabel("ratio to the blocking call")
        ax.set_title(f"{coll}, S = {size_label(s)}: persistent vs blocking (< 1: persistent faster)")
        ax.set_xticks(x)
        ax.set_xticklabels([label(a) for a in algos], rotation=30, ha="right", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    handles, texts = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, texts, fontsize=8, ncol=3, loc="upper center", bbox_to_anchor=(0.5, 0.965))
    fig.suptitle("xchg persistent requests, Open MPI 4.1, P=8 on 2 virtual nodes "
                 "(2 cores, oversubscribed; medians)", fontsize=10, y=0.995)
    fig.tight_layout(rect=(0, 0, 1, 0.935))
    fig.savefig(os.path.join(HERE, f"persistent-{coll}.png"), dpi=110)
    plt.close(fig)


def fmt(v, digits=1):
    return "-" if math.isnan(v) else f"{v:.{digits}f}"


def breakeven(r):
    """Calls after which a request has paid for its one-time costs (init, and
    the first start's excess over the median start), from medians."""
    blk, start = num(r, "median_us"), num(r, "start_us")
    once = num(r, "init_us") + max(0.0, num(r, "first_start_us") - start)
    if start >= blk:
        return "never"
    return f"{math.ceil(once / (blk - start))}"


def persistent_tables(coll):
    sizes, data = by_size(coll)
    for s in sizes:
        print(f"\n**{coll}, S = {size_label(s)}** (µs)\n")
        print("| algorithm | blocking median | blocking mean | init | 1st start | start median "
              "| per call | per call / blocking mean | start / blocking median | break-even calls |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in data[s]:
            if r["persistent_status"] != "ok":
                print(f"| {label(r['algorithm'])} | {fmt(num(r, 'median_us'))} | "
                      f"{fmt(num(r, 'blocking_mean_us'))} | {r['persistent_status']} |||||||")
                continue
            print(f"| {label(r['algorithm'])} | {fmt(num(r, 'median_us'))} | "
                  f"{fmt(num(r, 'blocking_mean_us'))} | "
                  f"{fmt(num(r, 'init_us'))} | {fmt(num(r, 'first_start_us'))} | "
                  f"{fmt(num(r, 'start_us'))} | {fmt(num(r, 'per_call_us'))} | "
                  f"{fmt(call_ratio(r), 2)} | {fmt(num(r, 'start_ratio'), 2)} | "
                  f"{breakeven(r)} |")


def first_call_table(coll, at=1024):
    """Context, first and second call at S = `at`; first - second at every size."""
    sizes, data = by_size(coll)
    if at not in sizes:
        return
    print(f"\n**{coll}: first calls on a fresh communicator** (µs, medians over rounds; "
          f"the first four columns at S = {size_label(at)})\n")
    print("| algorithm | context | first call | second call | blocking (warm) | "
          + " | ".join(f"first − second, {size_label(s)}" for s in sizes) + " |")
    print("|---|---:|---:|---:|---:|" + "---:|" * len(sizes))
    for a in [r["algorithm"] for r in data[at]]:
        rs = {s: next((x for x in data[s] if x["algorithm"] == a), None) for s in sizes}
        r = rs[at]
        if r is None or r.get("first_call_status") != "ok":
            continue
        cells = [fmt(num(r, "context_us")), fmt(num(r, "first_call_us")),
                 fmt(num(r, "second_call_us")), fmt(num(r, "median_us"))]
        for s in sizes:
            x = rs[s]
            ok = x is not None and x.get("first_call_status") == "ok"
            cells.append(fmt(num(x, "first_call_us") - num(x, "second_call_us")) if ok else "-")
        print(f"| {label(a)} | " + " | ".join(cells) + " |")


for c in ("alltoallv", "alltoall"):
    figure(c)
    persistent_tables(c)
for c in ("alltoallv", "alltoall"):
    first_call_table(c)
