#!/usr/bin/python3
"""The neighbourhood collective's cost model against the SimGrid measurements.

For every (study, pattern, P) case of docs/results/neighbor-scaling/results.csv
(SimGrid SMPI, dragonfly, 16 ranks per node; standard and locality measured),
ask the library's own model (build/tools/xchg-info --select neighbor_alltoallv
--ranks P --ppn Q --pattern RM,LM,RB,LB,D --predict ALGO) for the time of
`standard` and of `locality` (its defaults: balance=count, dedup=0,
regions=1, as measured), with the simulated platform's constants
(sim/platforms.py --tuning dragonfly NODES, in a temporary tuning file), take
the one it predicts cheaper and compare its measured time with the faster
measured one. Also shown: the model's own choice over its whole search
(other balance and regions values, which were not measured).

The pattern inputs are the library's agreed ones (src/select/inputs.h), read
from the CSV's `standard` row where it has them: RM = max_inter_msgs,
LM = max_intra_msgs, RB = max_inter_bytes. It has no on-node bytes and no
count of other nodes per rank, so those are estimated: LB = LM * RB / RM
(the off-node mean block), D = min(RM, nodes - 1) (an upper bound).

    docs/results/selection/neighbor_model.py [BUILD_DIR]   (default: build)

Prints a Markdown table and a summary line.
"""
import csv
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", "..", ".."))
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build")
info = os.path.join(build, "tools", "xchg-info")
MEASURED = ("standard", "locality")

cases = {}
with open(os.path.join(root, "docs", "results", "neighbor-scaling", "results.csv")) as f:
    for r in csv.DictReader(f):
        if r["correct"] == "yes" and r["algorithm"] in MEASURED + ("locality:dedup=1",):
            cases.setdefault((r["study"], r["pattern"], int(r["P"])), {})[r["algorithm"]] = r


def tuning_file(platform, nodes):
    text = subprocess.run([sys.executable, os.path.join(root, "sim", "platforms.py"), "--tuning",
                           platform, str(nodes)], capture_output=True, text=True, check=True).stdout
    f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    f.write(text)
    f.close()
    return f.name


def model(P, Q, inputs, platform):
    path = tuning_file(platform, P // Q)
    cmd = [info, "--select", "neighbor_alltoallv", "--ranks", str(P), "--ppn", str(Q),
           "--pattern", ",".join(str(v) for v in inputs), "--top", "0"]
    for a in MEASURED:
        cmd += ["--predict", a]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                             env=dict(os.environ, XCHG_TUNING_FILE=path)).stdout
    finally:
        os.unlink(path)
    lines = out.splitlines()
    pred = {l.split()[1]: float(l.split()[2]) for l in lines if l.startswith("predict ")}
    return pred, lines[0]


order = {"strong": 0, "weak": 1, "coarse": 2, "dense": 3}
print("| study | P | nodes | RM, LM, RB, LB, D | predicted standard / locality (us) | "
      "measured standard / locality / locality:dedup=1 (us) | picks | faster | chosen / best | "
      "the model's own choice |")
print("|---|---|---|---|---|---|---|---|---|---|")
hits, worst, n = 0, 1.0, 0
for key in sorted(cases, key=lambda k: (order.get(k[0], 9), k[2])):
    rows = cases[key]
    if not all(a in rows for a in MEASURED):
        continue
    std = rows["standard"]
    P, Q = key[2], int(std["Q"])
    rm, lm, rb = int(std["max_inter_msgs"]), int(std["max_intra_msgs"]), int(std["max_inter_bytes"])
    lb = lm * rb // rm if rm else 0
    d = min(rm, P // Q - 1)
    pred, own = model(P, Q, (rm, lm, rb, lb, d), std["platform"])
    t = {a: float(rows[a]["start_us"]) for a in rows}
    pick = min(MEASURED, key=lambda a: pred[a])
    faster = min(MEASURED, key=lambda a: t[a])
    ratio = t[pick] / t[faster]
    n += 1
    hits += pick == faster
    worst = max(worst, ratio)
    dedup = f" / {t['locality:dedup=1']:.1f}" if "locality:dedup=1" in t else ""
    print(f"| {key[0]} | {P} | {P // Q} | {rm}, {lm}, {rb}, {lb}, {d} | "
          f"{pred['standard']:.1f} / {pred['locality']:.1f} | "
          f"{t['standard']:.1f} / {t['locality']:.1f}{dedup} | {pick} | {faster} | {ratio:.2f} | "
          f"{own} |")
print(f"\nThe model picks the faster measured algorithm in {hits} of {n} cases; "
      f"worst chosen/best {worst:.2f}.")
