"""xchg-tune's settings: the parameter values tried, the collectives
xchg-bench measures, the SMPI run constants, and where the tools and the
source tree are."""
import functools
import os
import shutil
import sys

# Parameter values tried besides each algorithm's default, one parameter at a
# time (the others at their defaults). "P" is the communicator size. Integer
# parameters not listed here (thresholds, chunk sizes) keep their default.
PARAM_VALUES = {
    "radix": ["2", "4", "8", "P"],
    "batch": ["8", "32"],
    "leaders": ["1", "2", "4"],
    "stride": ["8"],
    "window": ["8"],
    "inner": ["scattered", "pairwise", "parlogna", "bruck"],
    "order": None,   # None: every value of the enum
    "bounce": None,
}

BENCH_COLLS = ("alltoallv", "alltoall", "allgather")  # what xchg-bench measures

# --smpi: xchg-simbench's untimed calls per algorithm before the timed ones
# (-x): the first call builds the algorithm's plan (sub-communicators,
# schedules), which a program pays once, not per call. The timed calls (-i,
# --reps, default 2) are deterministic under SMPI; the second shows a call
# that depends on the one before it (rendezvous, queues), and t_min keeps the
# steady one. Two calls instead of one cost a third more simulation.
SMPI_WARMUP = 1
SMPI_REPS = 2
SMPI_DISTS = ("uniform", "normal", "powerlaw", "sparse")  # xchg-simbench --dist
# Buffers of all ranks together above which xchg-simbench gets
# --shared-buffers (one copy for all ranks, results not checked): sim/run's
# --max-memory default.
SMPI_MAX_BUFFERS = 4 << 30
XCHG_INFO_MAX_PREDICT = 64  # --predict options one xchg-info call takes

# The source tree when xchg-tune runs from one (tools/xchg_tune/ is two levels
# down): --smpi needs its sim/ (platforms, xchg-simbench's conventions) and
# build-smpi/. Installed (<prefix>/share/xchg/xchg_tune) there is none.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIM_DIR = os.path.join(ROOT, "sim")
# Where the launcher (tools/xchg-tune, <prefix>/bin/xchg-tune) is: xchg-bench
# and xchg-info are looked for next to it first (find_tool below).
LAUNCHER_DIR = os.path.dirname(os.path.abspath(sys.argv[0] or "."))


@functools.lru_cache(maxsize=None)
def load_sim():
    """(simbench, platforms): sim/simbench.py (xchg-simbench's fields, rows,
    block sizes; shared with sim/run) and sim/platforms.py, imported from the
    source tree's sim/ (for --smpi)."""
    if not os.path.isfile(os.path.join(SIM_DIR, "simbench.py")):
        sys.exit(f"xchg-tune: --smpi needs xchg's source tree (no {SIM_DIR}/simbench.py): "
                 "run tools/xchg-tune from a checkout")
    if SIM_DIR not in sys.path:
        sys.path.insert(0, SIM_DIR)
    import platforms
    import simbench
    return simbench, platforms


def find_tool(name, given):
    """The tool given, next to the launcher, in the build tree, or on PATH."""
    for path in ([given] if given else []) + [
            os.path.join(LAUNCHER_DIR, name),
            os.path.join(LAUNCHER_DIR, "..", "build", "tools", name)]:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
    if given:
        sys.exit(f"xchg-tune: {given} is not an executable")
    found = shutil.which(name)
    if not found:
        sys.exit(f"xchg-tune: cannot find {name}: build xchg (ninja -C build) or pass --{name[5:]}")
    return found
