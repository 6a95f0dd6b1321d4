#!/usr/bin/python3
"""Tables and plot of online selection (smpi.sh, real.sh).

    evaluate.py smpi   the held-out grid (SimGrid SMPI): online `auto` (smpi/)
                       against the grid's measurements (../grid/measured: the
                       candidates and the baselines) and the model alone
                       (../grid/auto-builtin); the cost of exploring as a
                       share of 1,000 calls of the winner (smpi/exploration.csv).
                       Writes smpi.md, smpi.json, smpi.png.
    evaluate.py apps [smpi|real]
                       the applications in SMPI (apps-smpi.sh: apps-smpi/)
                       or on this machine (apps-real.sh: apps-real/): online
                       auto against XCHG_ONLINE=0 (the model's choice), mpi,
                       fixed algorithms and the MPI library's call. Writes
                       apps-smpi.md or apps-real.md.
    evaluate.py real   this machine (real/results-K.csv, real.sh's runs): auto
                       against MPI's own, the model's choice, `mpi` and the
                       best fixed algorithm, per point the median over the
                       runs. Writes real.md, real.json, real.png.
"""
import csv
import glob
import importlib.util
import json
import os
import re
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GRID = os.path.join(HERE, "..", "grid")
WITHIN, SLOWER = 1.10, 1.02
EXPLORE = re.compile(r"exploring: (\d+) calls, (-?[\d.]+) us more")
DECISION = re.compile(r"-> ([^;\s]+)")


def grid_module():
    spec = importlib.util.spec_from_file_location("grid_evaluate", os.path.join(GRID, "evaluate.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def exploration():
    """{case: (calls, extra us, decision)} of the first exploration of each case."""
    out = {}
    path = os.path.join(HERE, "smpi", "exploration.csv")
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for r in csv.DictReader(f):
            m = EXPLORE.search(r["line"])
            key = (r["platform"], r["coll"], int(r["P"]), int(r["Q"]), int(r["S"]), r["dist"])
            if m:  # the last line of a point wins (a point run again)
                out[key] = (int(m.group(1)), float(m.group(2)), DECISION.search(r["line"]).group(1))
    return out


def smpi():
    grid = grid_module()
    cases = grid.read("measured")
    for study in ("auto-builtin",):
        for key, times in grid.read(study).items():
            if key in cases:
                cases[key].update(times)
    online = {}
    with open(os.path.join(HERE, "smpi", "results.csv")) as f:
        for r in csv.DictReader(f):
            if r["status"] == "ok" and r["verified"] in ("ok", "skipped"):
                key = (r["platform"], r["coll"], int(r["P"]), int(r["Q"]), int(r["S"]), r["dist"])
                online[key] = float(r["t_min"]) * 1e6
    explored = exploration()
    rows = []
    for key in sorted(online):
        t = cases.get(key)
        if not t:
            continue
        xchg = {a: v for a, v in t.items() if not a.endswith(":mpi") and a != "auto-builtin"}
        base = {b: t[b] for b in grid.BASELINES if b in t}
        best = min(xchg, key=xchg.get)
        fastest = min(base, key=base.get)
        calls, extra, decision = explored.get(key, (0, 0.0, "?"))
        rows.append(dict(case=key, online_us=online[key], decision=decision, best=best,
                         best_us=t[best], baseline=fastest, baseline_us=base[fastest],
                         builtin_us=t.get("auto-builtin"),
                         over_best=online[key] / t[best], over_baseline=online[key] / base[fastest],
                         builtin_over_best=t["auto-builtin"] / t[best] if "auto-builtin" in t else None,
                         explore_calls=calls, explore_extra_us=extra,
                         explore_share_1000=extra / (1000 * online[key])))
    lines = ["| platform | coll | P | Q | S | dist | online auto: winner (us) | /best xchg | "
             "model alone /best | best xchg (us) | fastest baseline (us) | online /baseline | "
             "exploring: calls, cost / 1,000 calls |", "|" + "---|" * 13]
    for r in rows:
        b = f"{r['builtin_over_best']:.2f}" if r["builtin_over_best"] else "-"
        lines.append("| " + " | ".join(map(str, r["case"])) + f" | {r['decision']} {r['online_us']:.1f} | "
                     f"{r['over_best']:.2f} | {b} | {r['best']} {r['best_us']:.1f} | "
                     f"{r['baseline']} {r['baseline_us']:.1f} | {r['over_baseline']:.2f} | "
                     f"{r['explore_calls']}, {100 * r['explore_share_1000']:.2f}% |")
    n = len(rows)
    within = sum(r["over_best"] <= WITHIN for r in rows)
    builtin = [r for r in rows if r["builtin_over_best"]]
    builtin_within = sum(r["builtin_over_best"] <= WITHIN for r in builtin)
    slower = [r for r in rows if r["over_baseline"] > SLOWER]
    worst_share = max((r["explore_share_1000"] for r in rows), default=0)
    summary = (f"online auto within 10% of the best xchg algorithm in {within} of {n} cases "
               f"(the model alone: {builtin_within} of {len(builtin)} of the same cases); more than "
               f"2% slower than the fastest baseline in {len(slower)}"
               + (f" ({', '.join(' '.join(map(str, r['case'])) for r in slower)})" if slower else "")
               + f"; exploring costs at most {100 * worst_share:.2f}% of 1,000 calls of the winner")
    with open(os.path.join(HERE, "smpi.md"), "w") as f:
        f.write(summary + "\n\n" + "\n".join(lines) + "\n")
    fill_readme({"smpi summary": f"**{summary}.**", "smpi table": "\n".join(lines)})
    with open(os.path.join(HERE, "smpi.json"), "w") as f:
        json.dump([{**r, "case": list(r["case"])} for r in rows], f, indent=1)
    if rows:
        fig, ax = plt.subplots(figsize=(max(8, 0.45 * n + 3), 4.5))
        xs = range(n)
        ax.bar([x - 0.2 for x in xs], [r["builtin_over_best"] or 0 for r in rows], 0.4,
               label="model alone")
        ax.bar([x + 0.2 for x in xs], [r["over_best"] for r in rows], 0.4, label="online auto")
        ax.plot(list(xs), [r["baseline_us"] / r["best_us"] for r in rows], "kx",
                label="fastest baseline / best")
        ax.axhline(WITHIN, color="gray", linestyle="--", linewidth=0.8)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([f"{c[0]} {c[1]} P{c[2]} Q{c[3]} {c[4]}B {c[5]}" for c in
                            (r["case"] for r in rows)], rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("time / best xchg algorithm measured")
        ax.set_title("Held-out grid (SimGrid SMPI): online selection against the model alone")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(HERE, "smpi.png"), dpi=120)
    print(summary)


def fill_readme(parts, path=os.path.join(HERE, "README.md")):
    """Replace the README's text between <!-- NAME --> and <!-- /NAME -->."""
    with open(path) as f:
        text = f.read()
    for name, body in parts.items():
        m = re.search(f"<!-- {name} -->\n.*?<!-- /{name} -->", text, re.S)
        if m:
            text = text[:m.start()] + f"<!-- {name} -->\n{body}\n<!-- /{name} -->" + text[m.end():]
    with open(path, "w") as f:
        f.write(text)


def plot_real(out):
    """real.png: auto and xchg's `mpi` row against MPI's own, per rank count."""
    nps = sorted({r["case"][0] for r in out})
    fig, axes = plt.subplots(1, len(nps), figsize=(6 * len(nps), 4.2), sharey=True, squeeze=False)
    for ax, np_ in zip(axes[0], nps):
        for coll, colour in (("alltoall", "C0"), ("alltoallv", "C1"), ("allgather", "C2")):
            pts = sorted((r["case"][2], r["auto_over_mpi"], r["mpi_over_mpi"])
                         for r in out if r["case"][0] == np_ and r["case"][1] == coll)
            if not pts:
                continue
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color=colour, label=f"{coll}: auto")
            ax.plot([p[0] for p in pts], [p[2] or float("nan") for p in pts], "x:", color=colour,
                    label=f"{coll}: xchg's mpi row")
        ax.axhline(1.0, color="black", lw=0.8)
        ax.axhline(1.02, color="red", lw=0.8, ls="--", label="1.02x")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("block size (bytes)")
        ax.set_title(f"{np_} ranks")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("median time / MPI's own")
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(HERE, "real.png"), dpi=120)


def real_run(path):
    """One run of real.sh: per point, every row's ratio to MPI's own."""
    groups = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["status"] != "ok":
                continue
            key = (int(r["np"]), r["coll"], int(r["S_bytes"]))
            groups.setdefault(key, dict(model=r["model_choice"], rows={}))["rows"][r["algorithm"]] = \
                float(r["median_us"])
    points = {}
    for key, g in groups.items():
        rows = g["rows"]
        mpi_us = rows.get("MPI")
        auto = next((a for a in rows if a.startswith("auto[")), None)
        fixed = {a: v for a, v in rows.items() if not a.startswith("auto[") and a != "MPI"}
        if not mpi_us or not auto or not fixed:
            continue
        model = g["model"] if g["model"] in rows else None
        points[key] = dict(mpi_us=mpi_us, auto=auto[5:-1], auto_over_mpi=rows[auto] / mpi_us,
                           model=g["model"], model_over_mpi=rows[model] / mpi_us if model else None,
                           mpi_over_mpi=rows["mpi"] / mpi_us if "mpi" in rows else None,
                           fixed={a: v / mpi_us for a, v in fixed.items()},
                           auto_over_best=rows[auto] / min(rows.values()))
    return points


def real():
    """real/results-K.csv (real.sh's runs) -> real.md, real.json, real.png: per
    point the median over the runs of each ratio, and each run's count."""
    paths = sorted(glob.glob(os.path.join(HERE, "real", "results-*.csv")))
    runs = [real_run(p) for p in paths]
    keys = sorted(set().union(*runs))
    lines = ["| P | coll | S | MPI (us) | auto's choices | auto /MPI | model's choice /MPI | "
             "mpi /MPI (runs) | best fixed /MPI | auto /best |", "|" + "---|" * 10]
    out = []
    fmt = lambda v: f"{v:.2f}" if v else "-"  # noqa: E731
    for key in keys:
        pts = [r[key] for r in runs if key in r]
        mpi_rows = [p["mpi_over_mpi"] for p in pts if p["mpi_over_mpi"]]
        fixed = {}
        for p in pts:
            for a, v in p["fixed"].items():
                fixed.setdefault(a, []).append(v)
        fixed = {a: median(v) for a, v in fixed.items()}
        best = min(fixed, key=fixed.get)
        models = [p["model_over_mpi"] for p in pts if p["model_over_mpi"]]
        choices = [p["auto"].split(":")[0] for p in pts]
        r = dict(case=list(key), runs=len(pts), mpi_us=median([p["mpi_us"] for p in pts]),
                 auto=", ".join(choices), auto_runs=[p["auto_over_mpi"] for p in pts],
                 auto_over_mpi=median([p["auto_over_mpi"] for p in pts]),
                 model=pts[0]["model"], model_over_mpi=median(models) if models else None,
                 mpi_over_mpi=median(mpi_rows) if mpi_rows else None,
                 mpi_runs=mpi_rows, best=best, best_over_mpi=fixed[best],
                 auto_over_best=median([p["auto_over_best"] for p in pts]))
        out.append(r)
        spread = f" ({min(mpi_rows):.2f}-{max(mpi_rows):.2f})" if len(mpi_rows) > 1 else ""
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {r['mpi_us']:.2f} | {r['auto']} | "
                     f"{r['auto_over_mpi']:.2f} | {r['model']} {fmt(r['model_over_mpi'])} | "
                     f"{fmt(r['mpi_over_mpi'])}{spread} | {best} {r['best_over_mpi']:.2f} | "
                     f"{r['auto_over_best']:.2f} |")
    n = len(out)
    per_run = ", ".join(f"{sum(p['auto_over_mpi'] <= 1.02 for p in run.values())}"
                        for run in runs)
    summary = (f"{len(runs)} runs. auto at most 1.02x MPI's own: in {per_run} of {n} points in "
               f"the runs; {sum(r['auto_over_mpi'] <= 1.02 for r in out)} of {n} on the median "
               f"over the runs. Within 5% of the fastest row (median): "
               f"{sum(r['auto_over_best'] <= 1.05 for r in out)} of {n}. xchg's `mpi` row (MPI's "
               f"own call through xchg) over 1.02x (median): "
               f"{sum((r['mpi_over_mpi'] or 0) > 1.02 for r in out)} of {n}; one run's `mpi` "
               f"row read {min(min(r['mpi_runs']) for r in out):.2f}-"
               f"{max(max(r['mpi_runs']) for r in out):.2f}x")
    with open(os.path.join(HERE, "real.md"), "w") as f:
        f.write(summary + "\n\n" + "\n".join(lines) + "\n")
    plot_real(out)
    with open(os.path.join(HERE, "real.json"), "w") as f:
        json.dump(out, f, indent=1)
    print(summary)


APPS_LABELS = {
    "smpi": {"fft": "xchg-fft3d 63x62x61, 64 ranks (fat tree, nodes of 16), blocking transposes, "
                    "median of 10 transforms after 30",
             "closure": "xchg-closure, power-law graph (n = 400, m = 800), 64 ranks (dragonfly, "
                        "nodes of 16), one closure"},
    "real": {"fft": "xchg-fft3d 128^3, {P} ranks on this machine's 2 cores (Open MPI), blocking "
                    "transposes, median of 20 transforms after 30; each row in a run of its own, "
                    "median over {reps} runs",
             "closure": "xchg-closure, power-law graph (n = 2000, m = 4000), {P} ranks on this "
                        "machine's 2 cores (Open MPI), the fastest of 5 closures; each row in a "
                        "run of its own, median over {reps} runs"},
}


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def explorations(path):
    """exploration.txt: per application, the decisions and what exploring cost."""
    explored = {}
    if not os.path.exists(path):
        return explored
    with open(path) as f:
        for line in f:
            app = line.split(" ", 1)[0]
            m = EXPLORE.search(line)
            e = explored.setdefault(app, dict(lines=0, calls=0, extra=0.0, most=0.0,
                                              decisions={}))
            e["lines"] += 1
            if m:
                e["calls"] += int(m.group(1))
                e["extra"] += float(m.group(2))
                e["most"] = max(e["most"], float(m.group(2)))
                dec = DECISION.search(line).group(1)
                e["decisions"][dec] = e["decisions"].get(dec, 0) + 1
    return explored


def apps(source="smpi"):
    """apps-SOURCE/{fft,closure}.csv and exploration.txt -> apps-SOURCE.md and
    the README's table (SOURCE: smpi, apps-smpi.sh; real, apps-real.sh, whose
    rows carry a `rep` column: each row's median over the repetitions)."""
    d = os.path.join(HERE, "apps-" + source)
    out = []
    explored = explorations(os.path.join(d, "exploration.txt"))
    for app in ("fft", "closure"):
        path = os.path.join(d, app + ".csv")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            rows = [r for r in csv.DictReader(f)]
        runs = {}
        for r in rows:
            t = runs.setdefault(r["algo"], dict(tot=[], ex=[], sel=set()))
            t["tot"].append(float(r["total_s"]) * 1e6)
            t["ex"].append(float(r["exchange_s"]) * 1e6)
            t["sel"].add(r.get("selection", ""))
        t = {a: (median(v["tot"]), median(v["ex"]), "/".join(sorted(v["sel"]))) for a, v in runs.items()}
        reps = max(len(v["tot"]) for v in runs.values())
        model = t.get("auto[XCHG_ONLINE=0]")
        base = t.get("MPI_Alltoallv")
        label = APPS_LABELS[source][app].format(P=rows[0]["P"], reps=reps)
        out.append(f"**{app}**: {label}.\n")
        out.append("| row | total (us) | exchange (us) | total / model's choice | total / MPI_Alltoallv |")
        out.append("|---|---|---|---|---|")
        for algo, (tot, ex, sel) in sorted(t.items(), key=lambda kv: kv[1][0]):
            name = algo + (f" ({sel})" if sel and sel != algo and not algo.startswith("MPI") else "")
            out.append(f"| {name} | {tot:.1f} | {ex:.1f} | "
                       f"{tot / model[0]:.2f} | {tot / base[0]:.2f} |" if model and base else
                       f"| {name} | {tot:.1f} | {ex:.1f} | - | - |")
        e = explored.get(app)
        runs_note = f" over {reps} runs" if reps > 1 else ""
        if e:
            decisions = ", ".join(f"{k} {v}" for k, v in sorted(e["decisions"].items()))
            out.append(f"\nOnline selection decided {sum(e['decisions'].values())} signatures"
                       f"{runs_note} (rank 0 of each communicator: {decisions}); their explorations "
                       f"took {e['calls']} calls, {e['extra']:.1f} us more than the winners' "
                       f"(at most {e['most']:.1f} us on one communicator; the communicators "
                       f"explore at the same time).\n")
        else:
            out.append("\nOnline selection decided no signature (no exploration finished).\n")
    with open(os.path.join(HERE, f"apps-{source}.md"), "w") as f:
        f.write("\n".join(out) + "\n")
    fill_readme({"apps table" if source == "smpi" else f"apps-{source} table": "\n".join(out).rstrip()})
    print("\n".join(out))


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "smpi"
    if what == "apps":
        apps(*sys.argv[2:3])
    else:
        {"smpi": smpi, "real": real}[what]()
