"""--smpi: the jobs on a simulated platform (xchg-simbench under smpirun),
with sim/'s modules (simbench, platforms) from the source tree."""
import functools
import os
import shlex
import subprocess
import sys

from .jobs import Job, selections_of
from .settings import SMPI_MAX_BUFFERS, SMPI_WARMUP, XCHG_INFO_MAX_PREDICT, load_sim


def smpi_platform(a, nprocs, q, workdir):
    """(smpirun -platform, -hostfile, variables) for P ranks on nodes of Q,
    as sim/run's run_point builds them; None (and a note) when
    sim/platforms.py cannot build it (e.g. a dragonfly of 2 nodes)."""
    simbench, platforms = load_sim()
    nodes = nprocs // q
    try:
        if a.node == simbench.FATPIPE:
            base = platforms.write(a.smpi, nodes, q, workdir)
            return base + ".xml", base + ".hosts", {}
        base = platforms.write_node(a.node, a.smpi, nodes, q, workdir)
    except SystemExit as e:  # platforms.py's way of saying why
        print(f"xchg-tune: P={nprocs}, Q={q}: no {a.smpi} platform ({e}); skipped",
              file=sys.stderr)
        return None
    return (os.path.join(a.smpi_build, "sim", "libxchg-node-platform.so"), base + ".hosts",
            {"XCHG_SIM_PLATFORM": base + ".conf", "XCHG_VIRTUAL_NODES": str(q)})


def smpi_layouts(a):
    """[(P, Q)] with Q dividing P; the others noted and left out."""
    out = []
    for nprocs in a.np:
        for q in a.ppn:
            if nprocs % q:
                print(f"xchg-tune: P={nprocs}, Q={q}: Q does not divide P; skipped", file=sys.stderr)
            else:
                out.append((nprocs, q))
    return out


def runnable(info, coll, nprocs, q, selections):
    """The selections that xchg can run at P ranks on nodes of Q, by
    xchg-info --predict ("predict SEL error ..." for the others, e.g.
    pairwise:order=xor at P=12): xchg-simbench crashes on one that fails,
    losing the variants after it (SimJob runs them again)."""
    ok = []
    for i in range(0, len(selections), XCHG_INFO_MAX_PREDICT):
        cmd = [info, "--select", coll, "--bytes", "1", "--ranks", str(nprocs), "--ppn", str(q),
               "--top", "0"]
        for s in selections[i:i + XCHG_INFO_MAX_PREDICT]:
            cmd += ["--predict", s]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"xchg-tune: {shlex.join(cmd)} failed:\n{out.stderr}")
        for line in out.stdout.splitlines():
            word, sel, verdict = (line.split(" ", 2) + ["", ""])[:3]
            if word == "predict" and not verdict.startswith("error"):
                ok.append(sel)
    return ok


def simbench_command(a, platform, hosts, coll, nprocs, size, dist, selections):
    simbench, platforms = load_sim()
    bench = os.path.join(a.smpi_build, "sim", "xchg-simbench")
    shared = simbench.buffer_bytes(nprocs, size, dist) > SMPI_MAX_BUFFERS
    flags = simbench.smpi_flags() + ["--cfg=" + c for c in a.smpi_cfg]
    return (["timeout", "-k", "10", str(a.timeout), "smpirun", "-np", str(nprocs),
             "-platform", platform, "-hostfile", hosts] + flags +
            ["--cfg=smpi/coll-selector:mpich", bench, "--coll", coll, "-s", str(size),
             "--dist", dist, "-i", str(a.reps), "-x", str(SMPI_WARMUP)] +
            (["--shared-buffers"] if shared else []) + selections)


def simbench_bytes(row):
    """A row's rule key: the block, or alltoallv's agreed mean block."""
    p, size = int(row["P"]), int(row["S"])
    if row["coll"] != "alltoallv":
        return size
    agreed, busiest_sender = load_sim()[0].simbench_agreed_bytes(row["dist"], size, p)
    if busiest_sender != int(row["max_rank_send"]):  # xchg_simbench.c changed its law
        print(f"xchg-tune: {row['dist']} P={p} S={size}: xchg-simbench's busiest rank sends "
              f"{row['max_rank_send']} B, not {busiest_sender}; keyed on that / P",
              file=sys.stderr)
        return int(row["max_rank_send"]) // p
    return agreed


def simbench_record(row, q):
    """A point record of an xchg-simbench row."""
    return {"coll": row["coll"], "P": int(row["P"]), "layout": q, "ppn": q, "dist": row["dist"],
            "S": int(row["S"]), "bytes": simbench_bytes(row), "algorithm": row["algo"],
            "us": float(row["t_min"]) * 1e6}


class SimJob(Job):
    """One point under smpirun: every variant in one xchg-simbench run. When
    the simulator crashes (SimGrid's solver aborts on some dense patterns:
    sim/README.md), the first variant without a row is left out and the ones
    after it run again in one more smpirun: a crash costs one variant, not
    the rest of the point. A timeout skips the point, unless every variant
    had finished."""

    def __init__(self, label, make_cmd, selections, setenv, cwd, coll, q, timeout):
        super().__init__(label, make_cmd(selections), setenv, None, cwd)
        self.make_cmd, self.selections = make_cmd, selections
        self.coll, self.q, self.timeout = coll, q, timeout

    def run(self):
        records, problems, todo = [], [], self.selections
        while todo:
            proc = self.execute(self.make_cmd(todo))
            rows = load_sim()[0].simbench_rows(proc.stdout, self.coll)
            good = [r for r in rows if r["verified"] != "FAIL" and r["t_min"]]
            records += [simbench_record(r, self.q) for r in good]
            if len(good) < len(rows):
                problems.append("wrong results: " + " ".join(r["algo"] for r in rows
                                                              if r not in good))
            done = {r["algo"] for r in rows}
            todo = [s for s in todo if s not in done]
            if proc.returncode == 0:
                break
            if proc.returncode in (124, 137):  # unfinished variants: skip the point
                problems.append(f"timed out after {self.timeout} s" +
                                (f" before {' '.join(todo)}: skipped" if todo else ""))
                records = records if not todo else []
                break
            stderr = "".join("\n    " + line for line in proc.stderr.strip().splitlines()[-3:])
            if not todo:
                problems.append(f"smpirun exited with {proc.returncode} after the last variant"
                                + stderr)
                break
            problems.append(f"smpirun exited with {proc.returncode} at {todo[0]}, left out"
                            + (f"; again without it: {' '.join(todo[1:])}" if todo[1:] else "")
                            + stderr)
            todo = todo[1:]
        return records, None, "\n  ".join(problems) or None


def smpi_jobs(a, algos, info, workdir):
    """One job per (P, Q, collective, size, distribution), all variants in it."""
    colls = [c for c in a.colls if selections_of(a, algos, c, 2)]
    for coll in sorted(set(a.colls) - set(colls)):
        print(f"xchg-tune: {coll}: none of --algos is one of its algorithms; skipped",
              file=sys.stderr)
    jobs = []
    for nprocs, q in smpi_layouts(a):
        platform = smpi_platform(a, nprocs, q, workdir)
        if not platform:
            continue
        plat, hosts, setenv = platform
        for coll in colls:
            sels = runnable(info, coll, nprocs, q, selections_of(a, algos, coll, nprocs))
            if not sels:
                print(f"xchg-tune: {coll} P={nprocs} Q={q}: none of its variants can run; skipped",
                      file=sys.stderr)
                continue
            for size in a.sizes:
                for dist in (a.dists if coll == "alltoallv" else ["uniform"]):
                    command = functools.partial(simbench_command, a, plat, hosts, coll, nprocs,
                                                size, dist)
                    jobs.append(SimJob(f"{coll} P={nprocs} Q={q} S={size} {dist}", command,
                                       sels, setenv, workdir, coll, q, a.timeout))
    return jobs
