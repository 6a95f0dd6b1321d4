"""xchg-tune's command line and its main(): options, finding the tools,
the work directory, and the run (jobs, rules, model, file)."""
import argparse
import contextlib
import datetime
import os
import shlex
import shutil
import sys
import tempfile

from .jobs import list_algorithms, machine_jobs, run_grid
from .output import machine_header, smpi_header, write_file
from .rules import build_rules
from .settings import BENCH_COLLS, ROOT, SMPI_DISTS, SMPI_REPS, find_tool, load_sim
from .smpi import smpi_jobs


def parse_args():
    p = argparse.ArgumentParser(
        description="Measure xchg's algorithms with xchg-bench (this machine) or xchg-simbench "
                    "(--smpi: a simulated platform) and write a tuning file "
                    "(XCHG_TUNING_FILE, docs/tuning.md).")
    p.add_argument("-o", "--output", default="xchg-tuning.json", help="the tuning file to write")
    p.add_argument("--mpirun", default=None,
                   help="launcher and its options, e.g. 'mpirun.openmpi --oversubscribe' "
                        "(default: mpirun)")
    p.add_argument("--np", default=None,
                   help="process counts, e.g. 2,4 (default: 2,4; --smpi: 64)")
    p.add_argument("--virtual-nodes", default=None,
                   help="XCHG_VIRTUAL_NODES values (ranks per virtual node), e.g. 2 or 2,4; "
                        "0 = the real topology (default: 0)")
    p.add_argument("--colls", default=",".join(BENCH_COLLS), help="collectives to tune")
    p.add_argument("--sizes", default=None,
                   help="sizes S in bytes: alltoall/allgather the block; alltoallv: xchg-bench "
                        "-m S:S, --smpi: xchg-simbench -s S --dist D (uniform: every block S); "
                        "default 8,64,512,4096,32768")
    p.add_argument("--algos", default=None,
                   help="comma-separated algorithm names (default: every one xchg-info lists)")
    p.add_argument("--reps", type=int, default=None,
                   help=f"timed iterations per point (200; --smpi: {SMPI_REPS})")
    p.add_argument("--tolerance", type=float, default=0.03,
                   help="keep the previous size's winner when within this fraction of the "
                        "best (fewer, larger ranges); default 0.03")
    p.add_argument("--reach", type=float, default=4,
                   help="the rules hold for communicator sizes up to this factor beyond the "
                        "measured ones (P/4 to 4P by default); outside, the cost model decides, "
                        "with the constants the tuner measured")
    p.add_argument("--bench", default=None, help="path of xchg-bench (default: found)")
    p.add_argument("--info", default=None, help="path of xchg-info (default: found)")
    p.add_argument("--quick", action="store_true",
                   help="a tiny grid: sizes 8 and 4096, defaults only; 4 ranks in nodes of 2, "
                        "20 iterations (--smpi: 16 ranks in nodes of 4)")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    s = p.add_argument_group("simulated platform (SimGrid SMPI)")
    s.add_argument("--smpi", metavar="KIND", default=None,
                   help="tune on a simulated platform: flat, fattree, dragonfly or torus "
                        "(sim/platforms.py)")
    s.add_argument("--ppn", default=None,
                   help="ranks per node Q, comma list (default 16; --quick 4); nodes = P/Q")
    s.add_argument("--node", default=None,
                   help="node model of sim/node_platform.cpp (low, calibrated, high); "
                        "default: the XML cluster's fat-pipe node")
    s.add_argument("--dists", default=None,
                   help="alltoallv block distributions, comma list of "
                        f"{', '.join(SMPI_DISTS)} (default uniform)")
    s.add_argument("--timeout", type=int, default=None,
                   help="wall seconds per smpirun (default 300)")
    s.add_argument("--smpi-cfg", action="append", default=[], metavar="KEY:VALUE",
                   help="one more --cfg for every smpirun (repeatable), after sim/smpi-flags")
    s.add_argument("--smpi-build", default=os.path.join(ROOT, "build-smpi"), type=os.path.abspath,
                   help="the SMPI build directory (default build-smpi)")
    a = p.parse_args()
    check_mode_options(p, a)
    smpi = a.smpi is not None
    a.np = a.np or ("16" if smpi and a.quick else "64" if smpi else "4" if a.quick else "2,4")
    a.virtual_nodes = a.virtual_nodes or ("2" if a.quick else "0")
    a.ppn = a.ppn or ("4" if a.quick else "16")
    a.sizes = a.sizes or ("8,4096" if a.quick else "8,64,512,4096,32768")
    a.reps = a.reps or (SMPI_REPS if smpi else 20 if a.quick else 200)
    a.mpirun = a.mpirun or "mpirun"
    a.timeout = a.timeout or 300
    a.dists = (a.dists or "uniform").split(",")
    try:
        a.np = sorted({int(x) for x in a.np.split(",")})
        a.virtual_nodes = sorted({int(x) for x in a.virtual_nodes.split(",")})
        a.ppn = sorted({int(x) for x in a.ppn.split(",")})
        a.sizes = sorted({int(x) for x in a.sizes.split(",")})
    except ValueError as e:
        p.error(f"--np, --virtual-nodes, --ppn and --sizes take comma-separated integers ({e})")
    a.colls = [c for c in a.colls.split(",") if c]
    for c in a.colls:
        if c not in BENCH_COLLS:
            p.error(f"--colls: '{c}' cannot be measured by xchg-bench; valid: "
                    + ", ".join(BENCH_COLLS))
    if min(a.np) < 2 or min(a.sizes) < 1 or min(a.virtual_nodes) < 0 or min(a.ppn) < 1:
        p.error("--np must be >= 2, --sizes >= 1, --virtual-nodes >= 0, --ppn >= 1")
    if any(d not in SMPI_DISTS for d in a.dists):
        p.error(f"--dists: valid: {', '.join(SMPI_DISTS)}")
    return a


def check_mode_options(p, a):
    """Options of the other mode are errors, not silently ignored."""
    machine_only = {"--mpirun": a.mpirun, "--virtual-nodes": a.virtual_nodes, "--bench": a.bench}
    smpi_only = {"--ppn": a.ppn, "--node": a.node, "--dists": a.dists, "--timeout": a.timeout,
                 "--smpi-cfg": a.smpi_cfg}
    wrong = [k for k, v in (machine_only if a.smpi else smpi_only).items() if v]
    if wrong:
        p.error(f"{', '.join(wrong)}: only " + ("without --smpi" if a.smpi else "with --smpi"))
    if a.smpi is None:
        return
    simbench, platforms = load_sim()
    if a.smpi not in platforms.KINDS:
        p.error(f"--smpi: unknown platform '{a.smpi}'; valid: {', '.join(platforms.KINDS)}")
    a.node = a.node or simbench.FATPIPE
    if a.node != simbench.FATPIPE and a.node not in platforms.NODE_MODELS:
        p.error(f"--node: unknown model '{a.node}'; valid: "
                + ", ".join(platforms.NODE_MODELS))
    if a.timeout is not None and a.timeout < 1:
        p.error("--timeout must be >= 1")


def check_algos(a, algos):
    if a.algos:
        known = {n for c in a.colls for n, _ in algos.get(c, [])}
        unknown = [n for n in a.algos.split(",") if n not in known]
        if unknown:
            sys.exit(f"xchg-tune: --algos: unknown {', '.join(unknown)}; valid: "
                     + ", ".join(sorted(known)))


def check_smpi_tools(a):
    bench = os.path.join(a.smpi_build, "sim", "xchg-simbench")
    if not os.access(bench, os.X_OK):
        sys.exit(f"xchg-tune: {bench} missing: build it first (cmake -S . -B build-smpi -G Ninja "
                 "-DCMAKE_TOOLCHAIN_FILE=cmake/smpi-toolchain.cmake && ninja -C build-smpi)")
    if not a.dry_run and not shutil.which("smpirun"):
        sys.exit("xchg-tune: smpirun not found (Debian: libsimgrid-dev)")


def work_directory(a):
    """Scratch for the CSV and platform files: removed at the end, except the
    platforms of --smpi --dry-run (its commands name them)."""
    if a.smpi and a.dry_run:
        path = tempfile.mkdtemp(prefix="xchg-tune-platforms-")
        print(f"# platform files in {path} (kept)")
        return contextlib.nullcontext(path)
    return tempfile.TemporaryDirectory(prefix="xchg-tune-")


def main():
    a = parse_args()
    info = find_tool("xchg-info", a.info)
    algos = list_algorithms(info)
    check_algos(a, algos)
    if a.smpi:
        check_smpi_tools(a)
    with work_directory(a) as workdir:
        jobs = smpi_jobs(a, algos, info, workdir) if a.smpi else machine_jobs(a, algos, workdir)
        records, library = run_grid(a, jobs)
    if a.dry_run:
        return 0
    if not records:
        sys.exit("xchg-tune: nothing was measured (see the errors above); no file written")
    header = {"xchg_tuning": 1,
              "generated_by": "xchg-tune " + " ".join(shlex.quote(x) for x in sys.argv[1:]),
              "date": datetime.datetime.now().isoformat(timespec="seconds")}
    header.update(smpi_header(a, records) if a.smpi else machine_header(a, records, library))
    path = write_file(a.output, header, build_rules(records, a.colls, a.tolerance, a.reach))
    print(f"xchg-tune: wrote {path}; use it with: export XCHG_TUNING_FILE={path}")
    return 0
