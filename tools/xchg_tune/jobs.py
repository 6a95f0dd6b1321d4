"""The measurement jobs on this machine (xchg-bench under mpirun), the
algorithm variants of xchg-info's listing, and the grid runner."""
import csv
import os
import re
import shlex
import subprocess
import sys
import time

from .settings import PARAM_VALUES, find_tool


def list_algorithms(info):
    """{coll: [(name, [(param, default, [values])])]} from `xchg-info --algorithms`."""
    out = subprocess.run([info, "--algorithms"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"xchg-tune: {info} --algorithms failed:\n{out.stderr}")
    algos, coll = {}, None
    for line in out.stdout.splitlines():
        m = re.match(r"^(\w+) \(\d+ algorithms", line)
        if m:
            coll = m.group(1)
            algos[coll] = []
            continue
        m = re.match(r"^  (\w+)\s", line)
        if m and coll:
            algos[coll].append((m.group(1), []))
            continue
        m = re.match(r"^\s{4,}(\w+)=(\S+) \[([^\]]*)\]", line)
        if m and coll and algos[coll]:
            choices = re.split(r"\s*[|,]\s*", m.group(3)) if ".." not in m.group(3) else []
            algos[coll][-1][1].append((m.group(1), m.group(2), choices))
    return algos


def variants(name, params, nprocs, quick):
    """Selection strings: the defaults, then one parameter changed at a time."""
    result = [name]
    if quick:
        return result
    for pname, default, choices in params:
        values = PARAM_VALUES.get(pname, [])
        if values is None:
            values = choices
        elif choices:  # algorithm-valued or enum: only values that exist here
            values = [v for v in values if v in choices]
        for v in values:
            v = str(nprocs) if v == "P" else v
            if v != default:
                result.append(f"{name}:{pname}={v}")
    return list(dict.fromkeys(result))


class Progress:
    """A progress bar on stderr."""

    def __init__(self, total):
        self.total, self.done, self.start = total, 0, time.time()

    def step(self, what):
        self.done += 1
        width = 30
        filled = width * self.done // max(self.total, 1)
        elapsed = time.time() - self.start
        eta = elapsed / self.done * (self.total - self.done)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                         f"{what:<36.36} eta {eta:4.0f}s")
        sys.stderr.flush()
        if self.done == self.total:
            sys.stderr.write("\n")


class Job:
    """One benchmark run: its command, the variables it sets and how to read
    its point records (read(proc) -> (records, library, problem or None))."""

    def __init__(self, label, cmd, setenv, read, cwd=None):
        self.label, self.cmd, self.setenv, self.read, self.cwd = label, cmd, setenv, read, cwd

    def env(self):
        """The environment without xchg's choices, plus this job's variables."""
        env = dict(os.environ)
        for var in ("XCHG_ALLTOALL", "XCHG_ALLTOALLV", "XCHG_ALLGATHER", "XCHG_ALLGATHERV",
                    "XCHG_ALLTOALLW", "XCHG_TUNING_FILE",
                    "XCHG_VIRTUAL_NODES", "XCHG_SIM_PLATFORM"):
            env.pop(var, None)
        env.update(self.setenv)
        return env

    def execute(self, cmd):
        return subprocess.run(cmd, env=self.env(), cwd=self.cwd, capture_output=True, text=True)

    def run(self):
        """(records, library or None, problem or None)."""
        return self.read(self.execute(self.cmd))

    def shell(self):
        """The command as one shell line (--dry-run)."""
        line = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.setenv.items())
        line = (line + " " if line else "") + shlex.join(self.cmd)
        return f"(cd {shlex.quote(self.cwd)} && {line})" if self.cwd else line


def selections_of(a, algos, coll, nprocs):
    """The selection strings tried for coll at P ranks: --algos, each with variants."""
    wanted = [(n, p) for n, p in algos.get(coll, []) if not a.algos or n in a.algos.split(",")]
    return [s for n, p in wanted for s in variants(n, p, nprocs, a.quick)]


# ---- this machine: xchg-bench under mpirun ----


def bench_command(a, bench, coll, nprocs, size, selections, csv_path):
    cmd = shlex.split(a.mpirun) + ["-n", str(nprocs), bench, "-c", coll, "-m", f"{size}:{size}",
                                   "-i", str(a.reps), "-x", str(max(2, a.reps // 10)),
                                   "-r", str(min(10, max(1, a.reps // 10))), "--csv", csv_path]
    for s in selections:
        cmd += ["-a", s]
    return cmd


def read_bench_csv(coll, vn, size, csv_path):
    """Job.read of an xchg-bench run: its CSV as point records."""
    def read(proc):
        if proc.returncode != 0 or not os.path.exists(csv_path):
            return [], None, "skipped, xchg-bench failed:\n" + proc.stderr[-2000:].rstrip()
        records, library = [], None
        with open(csv_path, newline="") as f:
            for r in csv.DictReader(f):
                library = r["mpi_library"] or library
                if r["status"] != "ok" or r["algorithm"] == "MPI":
                    continue  # failed or not applicable; "MPI" is the baseline row
                p = int(r["P"])
                # the agreed mean block (see "bytes" at the top): own block left out
                sent = int(round(float(r["send_bytes_per_rank"])))
                records.append({"coll": coll, "P": p, "layout": vn,
                                "ppn": vn if 0 < vn < p else p, "dist": "uniform", "S": size,
                                "bytes": (sent - size) // p if coll == "alltoallv" else size,
                                "algorithm": r["algorithm"], "us": float(r["median_us"])})
        os.unlink(csv_path)
        return records, library, None
    return read


def machine_jobs(a, algos, workdir):
    bench = find_tool("xchg-bench", a.bench)
    csv_path = os.path.join(workdir, "bench.csv")
    jobs = []
    for coll in a.colls:
        for nprocs in a.np:
            sels = selections_of(a, algos, coll, nprocs)
            for vn in a.virtual_nodes:
                for size in a.sizes:
                    jobs.append(Job(f"{coll} P={nprocs} nodes of {vn or 'real'} S={size}",
                                    bench_command(a, bench, coll, nprocs, size, sels, csv_path),
                                    {"XCHG_VIRTUAL_NODES": str(vn)} if vn else {},
                                    read_bench_csv(coll, vn, size, csv_path)))
    return jobs


# ---- a simulated platform: xchg-simbench under smpirun ----


def run_grid(a, jobs):
    """Every point record of the jobs: dicts with coll, P, layout, ppn, dist,
    S, bytes, algorithm, us; and the MPI library measured."""
    if a.dry_run:
        for job in jobs:
            print(job.shell())
        return [], None
    records, library = [], None
    progress = Progress(len(jobs))
    for job in jobs:
        got, lib, problem = job.run()
        progress.step(job.label)
        if problem:
            sys.stderr.write(f"\nxchg-tune: {job.label}: {problem}\n"
                             f"  command: {shlex.join(job.cmd)}\n")
        records += got
        library = lib or library
    return records, library
