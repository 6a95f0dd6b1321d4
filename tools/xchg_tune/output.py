"""The tuning file: its header (platform, comment, model) and writing it."""
import json
import os
import subprocess

from .model import fit_model, smpi_model
from .settings import SMPI_WARMUP, load_sim


def simgrid_version():
    out = subprocess.run(["smpirun", "-version"], capture_output=True, text=True)
    return (out.stdout.strip().splitlines() or ["SimGrid, version unknown"])[0]


def machine_header(a, records, library):
    """platform, comment and model of a tuning file measured on this machine."""
    layouts = ", ".join(f"virtual nodes of {v}" if v else "the real topology"
                        for v in a.virtual_nodes)
    header = {"mpi": library} if library else {}
    header["platform"] = f"{os.uname().nodename}, P in {a.np}, {layouts}"
    header["comment"] = (f"fastest median of {a.reps} iterations per point; sizes S "
                         f"{a.sizes} (alltoallv: every block S, the rules' bytes are the mean "
                         f"block xchg sees, (P-1)*S // P)")
    model = fit_model(records)
    if model:
        header["model"] = model
    return header


def smpi_header(a, records):
    """platform, comment and model of a tuning file made on a simulated platform."""
    simbench, platforms = load_sim()
    model, model_args = smpi_model(a, records)
    tuned = sorted({(r["P"], r["ppn"]) for r in records})
    node = ("the XML cluster's fat-pipe node" if a.node == simbench.FATPIPE
            else f"node model {a.node} (sim/node_platform.cpp)")
    return {
        "platform": (f"simulated, {simgrid_version()} SMPI: {a.smpi} "
                     f"({platforms.KINDS[a.smpi]['desc']}), {node}; (P, Q) in {tuned} "
                     f"(Q ranks per node, P/Q nodes)"),
        "comment": (f"simulated time, t_min of {a.reps} calls after {SMPI_WARMUP} untimed, "
                    f"xchg-simbench under sim/smpi-flags; sizes S {sorted({r['S'] for r in records})} "
                    f"(xchg-simbench -s; "
                    f"alltoallv: distributions {a.dists}, the rules' bytes are the mean block "
                    f"xchg sees, (P-1)*S // P for uniform); model: sim/platforms.py --tuning "
                    f"{model_args}"),
        "model": model}


def write_file(path, header, rules):
    """JSON with one rule per line, so that a person can read and edit it."""
    lines = ["{"]
    for key, value in header.items():
        lines.append(f"  {json.dumps(key)}: {json.dumps(value)},")
    lines.append('  "rules": {')
    colls = list(rules)
    for i, coll in enumerate(colls):
        lines.append(f"    {json.dumps(coll)}: [")
        for j, rule in enumerate(rules[coll]):
            lines.append("      " + json.dumps(rule) + ("," if j < len(rules[coll]) - 1 else ""))
        lines.append("    ]" + ("," if i < len(colls) - 1 else ""))
    lines += ["  }", "}"]
    path = os.path.expanduser(path)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)
    return path
