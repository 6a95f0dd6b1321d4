"""Markdown table of semantics-status CSVs (case,step,verdict): one row per
collective:algorithm, one column per MPI, listing the steps that do not pass.

    python3 table.py status-openmpi.csv status-mpich.csv > table.md
"""
import csv
import os
import sys

SHORT = {
    "scenario/nonblocking-fresh": "nb-fresh",
    "scenario/nonblocking-warm": "nb-warm",
    "scenario/persistent-fresh": "p-fresh",
    "scenario/persistent-warm": "p-warm",
    "reverse/wait": "rev-wait",
    "reverse/test-polling": "rev-test",
    "reverse/persistent": "rev-persistent",
    "persistent": "persistent",
}


def load(path):
    cases = {}
    with open(path) as f:
        for case, step, verdict in csv.reader(f):
            cases.setdefault(case, {})[step] = verdict
    return cases


def cell(steps):
    if steps is None:
        return "not run"
    bad = [f"{SHORT.get(s, s)} {v}" for s, v in steps.items() if v != "PASS"]
    scenario = [b for b in bad if b.split()[0] in ("nb-fresh", "nb-warm", "p-fresh", "p-warm")]
    if len(scenario) == 4 and len({b.split()[1] for b in scenario}) == 1:
        bad = [f"scenario (all 4) {scenario[0].split()[1]}"] + [b for b in bad if b not in scenario]
    return "all pass" if not bad else ", ".join(bad)


def main(paths):
    tables = [load(p) for p in paths]
    names = [os.path.basename(p)[len("status-"):-len(".csv")] for p in paths]
    order = []
    for t in tables:
        order += [c for c in t if c not in order]
    print("| collective:algorithm | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for case in order:
        print(f"| {case} | " + " | ".join(cell(t.get(case)) for t in tables) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
