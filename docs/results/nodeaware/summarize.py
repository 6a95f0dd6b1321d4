#!/usr/bin/env python3
"""Tables from raw/*.txt (tests/bench_nodeaware output): per size, MPI's own
alltoall, the best flat algorithm, and the best member of each node-aware
family with its parameters; then the phase breakdown of those best ones."""
import glob, os, re, sys

FAMILIES = ["hierarchical", "multileader", "node_aware", "locality_aware", "multileader_node_aware"]
here = os.path.dirname(os.path.abspath(__file__))

def load(path):
    rows = []
    head = open(path).readline().strip("# \n")
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        parts = line.split()
        sel, size, t = parts[0], int(parts[1]), float(parts[2])
        phases = dict(p.split("=") for p in parts[3:])
        rows.append((sel, size, t, {k: float(v) for k, v in phases.items()}))
    return head, rows

def family(sel):
    name = sel.split(":")[0]
    return name if name in FAMILIES else ("mpi" if name == "mpi" else "flat")

out = []
sub = sys.argv[1] if len(sys.argv) > 1 else "raw"
for path in sorted(glob.glob(os.path.join(here, sub, "*.txt"))):
    head, rows = load(path)
    sizes = sorted({r[1] for r in rows})
    out.append(f"### {head}\n")
    out.append("| bytes | MPI_Alltoall us | best flat | " + " | ".join(FAMILIES) + " | best overall / MPI |")
    out.append("|" + "---|" * (4 + len(FAMILIES)))
    best_rows = []
    for s in sizes:
        at = [r for r in rows if r[1] == s]
        mpi = min((r[2] for r in at if r[0] == "mpi"), default=float("nan"))
        cells = [str(s), f"{mpi:.0f}"]
        flat = min((r for r in at if family(r[0]) == "flat"), key=lambda r: r[2])
        cells.append(f"{flat[2]:.0f} `{flat[0]}`")
        for f in FAMILIES:
            cand = [r for r in at if family(r[0]) == f]
            if not cand:
                cells.append("-")
                continue
            b = min(cand, key=lambda r: r[2])
            best_rows.append(b)
            params = b[0].split(":", 1)[1] if ":" in b[0] else ""
            cells.append(f"{b[2]:.0f} `{params}`")
        overall = min((r for r in at if r[0] != "mpi"), key=lambda r: r[2])
        cells.append(f"{overall[2] / mpi:.2f} `{overall[0]}`")
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append("Phase breakdown of each family's best selection (median over iterations of the")
    out.append("maximum over ranks, us; phases overlap in time across ranks, so they do not add up):\n")
    out.append("| bytes | selection | total | gather | inter-node | intra-node | scatter | repack |")
    out.append("|---|---|---|---|---|---|---|---|")
    for b in best_rows:
        ph = b[3]
        cells = [str(b[1]), f"`{b[0]}`", f"{b[2]:.0f}"] + [
            f"{ph[k]:.0f}" if k in ph else "-" for k in ["gather", "inter-node", "intra-node", "scatter", "repack"]]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
open(os.path.join(here, f"tables_driver_{sub}.md"), "w").write("\n".join(out) + "\n")
print("\n".join(out))
