#!/usr/bin/python3
"""Tables and plot of the held-out grid (run.sh).

For every case (platform, collective, P, Q, S, distribution) measured in
measured/results.csv (and p1024/results.csv, run1024.sh): the best xchg
algorithm measured there (candidates and every auto variant), each auto
variant's time and its ratio to that best
(where an auto variant was not run, the time of its choice, named by
xchg-info, when that selection was measured: "(by name)"), and
the baselines users really run: SMPI's built-in MPICH and Open MPI collectives
and xchg's reproductions of MPICH 4's (scattered:batch=32) and Open MPI 4.1's
(linear) default alltoallv. The headline speedup of a case is against the
fastest of those baselines (the smallest speedup). Writes README-tables.md,
results.json and chosen-vs-best.png next to this script.

    /usr/bin/python3 docs/results/selection/grid/evaluate.py
"""
import atexit
import collections
import csv
import functools
import json
import os
import subprocess
import sys
import tempfile

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
AUTOS = ("auto-builtin", "auto-platform", "auto-tuned")
BASELINES = ("mpich:mpi", "ompi:mpi", "scattered:batch=32", "linear")
GOAL_WITHIN, GOAL_SLOWER = 1.10, 1.05
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
INFO = os.path.join(ROOT, "build", "tools", "xchg-info")
sys.path.insert(0, os.path.join(ROOT, "sim"))
import simbench  # noqa: E402  xchg-simbench's block sizes (sim/simbench.py)


@functools.lru_cache(maxsize=None)
def platform_constants(kind, nodes):
    """A tuning file of the platform's constants (as run.sh writes them)."""
    path = os.path.join(tempfile.gettempdir(), f"xchg-grid-{os.getpid()}-{kind}-{nodes}.json")
    text = subprocess.run([os.path.join(ROOT, "sim", "platforms.py"), "--tuning", kind, str(nodes)],
                          capture_output=True, text=True, check=True).stdout
    with open(path, "w") as f:
        f.write(text)
    atexit.register(os.remove, path)
    return path


def tuning_file(auto, case):
    if auto == "auto-platform":
        return platform_constants(case[0], case[2] // case[3])
    if auto == "auto-tuned":
        return os.path.join(HERE, "tuned-dragonfly.json")
    return None


@functools.lru_cache(maxsize=None)
def choice(auto, case):
    """What xchg chooses in the case (xchg-info with the inputs the library
    agrees on: the busiest rank's mean block, its non-empty peers)."""
    kind, coll, p, q, size, dist = case
    peers = p - 1
    block = size
    if coll == "alltoallv":
        block = simbench.simbench_agreed_bytes(dist, size, p)[0]
        if dist == "sparse":
            peers = max(sum(simbench.simbench_block(dist, size, i, j) > 0 for j in range(p) if j != i)
                        for i in range(p))
    cmd = [INFO, "--select", coll, "--bytes", str(block), "--ranks", str(p), "--ppn", str(q),
           "--top", "0"] + (["--peers", str(peers)] if peers < p - 1 else [])
    env = dict(os.environ)
    env.pop("XCHG_TUNING_FILE", None)
    if tuning_file(auto, case):
        env["XCHG_TUNING_FILE"] = tuning_file(auto, case)
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return out.stdout.split("\n", 1)[0].strip() if out.returncode == 0 else "?"


def read(study):
    """{case: {name: microseconds}} of one results.csv (rows that ran and
    passed the byte check, or were too large to check)."""
    path = os.path.join(HERE, study, "results.csv")
    out = collections.defaultdict(dict)
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for r in csv.DictReader(f):
            # "skipped": SMPI shared buffers (blocks too large to hold), not checked
            if r["status"] != "ok" or r["verified"] not in ("ok", "skipped"):
                continue
            key = (r["platform"], r["coll"], int(r["P"]), int(r["Q"]), int(r["S"]), r["dist"])
            name = r["algo"] if r["selector"] == "xchg" else r["selector"] + ":mpi"
            if name == "auto":
                name = study
            out[key][name] = float(r["t_min"]) * 1e6
    return out


def gather():
    cases = read("measured")
    cases.update(read("p1024"))  # run1024.sh: auto's choice run by name
    for study in AUTOS:
        for key, times in read(study).items():
            if key in cases:
                cases[key].update(times)
    return cases


def evaluate(cases):
    rows = []
    for key in sorted(cases):
        t = cases[key]
        xchg = {a: v for a, v in t.items() if not a.endswith(":mpi")}
        base = {b: t[b] for b in BASELINES if b in t}
        # an auto variant not run in the case (too costly to simulate: P =
        # 256 tuned, P = 1024) counts with the time of its choice, when that
        # selection was measured there by name (the agreement left out)
        by_name = {a: choice(a, key) for a in AUTOS if a not in t and choice(a, key) in xchg}
        if ("auto-builtin" not in t and "auto-builtin" not in by_name) or not base:
            continue
        best = min(xchg, key=xchg.get)
        fastest_base = min(base, key=base.get)
        row = dict(case=key, best=best, best_us=t[best], baseline=fastest_base,
                   baseline_us=base[fastest_base], times=t)
        for a in AUTOS:
            us = t[a] if a in t else xchg[by_name[a]] if a in by_name else None
            if us is not None:
                row[a] = dict(us=us, over_best=us / t[best], over_baseline=us / base[fastest_base],
                              choice=choice(a, key), by_name=a in by_name)
        rows.append(row)
    return rows


def summary(rows, auto):
    have = [r for r in rows if auto in r]
    if not have:
        return f"{auto}: not measured"
    within = sum(r[auto]["over_best"] <= GOAL_WITHIN for r in have)
    worst = max(have, key=lambda r: r[auto]["over_best"])
    slower = [r for r in have if r[auto]["over_baseline"] > GOAL_SLOWER]
    missed = [r for r in have if r["best_us"] < r["baseline_us"] and r[auto]["over_baseline"] >= 1]
    return (f"{auto}: within 10% of the best xchg algorithm in {within} of {len(have)} cases "
            f"({100.0 * within / len(have):.0f}%); worst {worst[auto]['over_best']:.2f}x "
            f"({' '.join(map(str, worst['case']))}); more than 5% slower than the fastest "
            f"baseline in {len(slower)}; not faster than it where some xchg algorithm is: "
            f"{len(missed)}")


def table(rows):
    head = ("| platform | coll | P | Q | S | dist | best xchg (us) | auto (us, /best) | "
            "auto, platform constants | auto, tuned | fastest baseline (us) | speedup of auto |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        cells = list(map(str, r["case"])) + [f"{r['best']} {r['best_us']:.1f}"]
        for a in AUTOS:
            cells.append(f"{r[a]['choice']}{' (by name)' if r[a]['by_name'] else ''} "
                         f"{r[a]['us']:.1f}, {r[a]['over_best']:.2f}" if a in r else "-")
        cells.append(f"{r['baseline']} {r['baseline_us']:.1f}")
        cells.append(f"{r['baseline_us'] / r['auto-builtin']['us']:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows, path):
    short = {"alltoallv": "a2av", "alltoall": "a2a"}
    labels = [f"{c[0]} {short.get(c[1], c[1])} P{c[2]} Q{c[3]} {c[4]}B {c[5]}"
              for c in (r["case"] for r in rows)]
    fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(rows) + 3), 4.5))
    width = 0.27
    for i, a in enumerate(AUTOS):
        xs = [j + (i - 1) * width for j, r in enumerate(rows) if a in r]
        ys = [r[a]["over_best"] for r in rows if a in r]
        if xs:
            ax.bar(xs, ys, width, label=a)
    base = [r["baseline_us"] / r["best_us"] for r in rows]
    ax.plot(range(len(rows)), base, "kx", label="fastest baseline / best")
    ax.axhline(GOAL_WITHIN, color="gray", linestyle="--", linewidth=0.8)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("time / best xchg algorithm measured")
    ax.set_title("Held-out grid (SimGrid SMPI): automatic choice against the best")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    rows = evaluate(gather())
    text = "\n".join(summary(rows, a) for a in AUTOS) + "\n\n" + table(rows) + "\n"
    with open(os.path.join(HERE, "README-tables.md"), "w") as f:
        f.write(text)
    with open(os.path.join(HERE, "results.json"), "w") as f:
        json.dump([dict(r, case=list(r["case"])) for r in rows], f, indent=1)
    if rows:
        plot(rows, os.path.join(HERE, "chosen-vs-best.png"))
    print(text)


if __name__ == "__main__":
    main()
