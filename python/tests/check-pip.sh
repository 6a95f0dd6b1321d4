#!/usr/bin/env bash
# `pip install ./python` both ways the README gives, each in a fresh virtual
# environment, then one collective under mpirun -n 2 checked against
# mpi4py's own and `python -m xchg.info`:
#   fresh:  a venv without system packages of PYTHON (default: the first
#           python3 on PATH that is not Debian's /usr/bin/python3, else
#           /usr/bin/python3): pip builds in isolation with setuptools from
#           PyPI and installs mpi4py and NumPy from PyPI (mpi4py's binary
#           wheel, which loads the system's libmpi); needs PyPI
#   debian: Debian's python3 with --system-site-packages and
#           --no-build-isolation: Debian's python3-mpi4py and NumPy,
#           nothing downloaded
#   mpich:  (only with XCHG_PIP_MPICH=1) like fresh, with MPICH:
#           MPICC=mpicc.mpich and --no-binary mpi4py (PyPI's wheel cannot
#           load Debian's libmpich.so.12): mpi4py builds from source, about
#           4 minutes on 2 cores the first time, then from pip's wheel cache
#           (about a minute); run under mpiexec.mpich
# fresh and debian build with the default compiler wrapper (mpicc: Open MPI
# on Debian) and run under mpirun.openmpi.
#   python/tests/check-pip.sh [BUILD_DIR] [PYTHON]     (default: build)
# The last line is "N passed, N failed"; exit 1 on failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
fresh_python=${2:-}
if [ -z "$fresh_python" ]; then
    fresh_python=/usr/bin/python3
    while read -r candidate; do
        if [ "$(readlink -f "$candidate")" != "$(readlink -f /usr/bin/python3)" ]; then
            fresh_python=$candidate
            break
        fi
    done < <(type -ap python3)
fi
work=$build/pip-check
rm -rf "$work"
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PYTHONDONTWRITEBYTECODE=1
unset XCHG_ALLTOALL XCHG_ALLTOALLV XCHG_ALLGATHER XCHG_NEIGHBOR_ALLTOALLV PYTHONPATH

cat >"$work/smoke.py" <<'PY'
"""xchg.Alltoallv against mpi4py's own, and where mpi4py comes from."""
import sys
import numpy as np
import xchg
from mpi4py import MPI
comm = MPI.COMM_WORLD
size, rank = comm.Get_size(), comm.Get_rank()
scounts = np.array([(rank + j) % 3 + 1 for j in range(size)], dtype=np.intc)
rcounts = np.array([(j + rank) % 3 + 1 for j in range(size)], dtype=np.intc)
sdispls = np.concatenate(([0], np.cumsum(scounts)[:-1])).astype(np.intc)
rdispls = np.concatenate(([0], np.cumsum(rcounts)[:-1])).astype(np.intc)
send = np.arange(scounts.sum(), dtype=np.float64) + 1000 * rank
mine = np.full(rcounts.sum(), -1.0)
theirs = np.full(rcounts.sum(), -2.0)
xchg.Alltoallv(comm, [send, scounts, sdispls, MPI.DOUBLE], [mine, rcounts, rdispls, MPI.DOUBLE])
comm.Alltoallv([send, scounts, sdispls, MPI.DOUBLE], [theirs, rcounts, rdispls, MPI.DOUBLE])
ok = comm.allreduce(int(np.array_equal(mine, theirs)), op=MPI.MIN)
if rank == 0:
    import mpi4py
    print("python %s, mpi4py %s from %s, xchg %s from %s" % (
        sys.version.split()[0], mpi4py.__version__, mpi4py.__file__, xchg.__version__,
        xchg.__file__))
    print("alltoallv:", "same as mpi4py's" if ok else "DIFFERS from mpi4py's")
sys.exit(0 if ok else 1)
PY

passed=0 failed=0
check() { # NAME COMMAND...: one case, run in $work (outside the repository:
          # the installed package, not python/xchg), its output indented
    local name=$1 t0=$SECONDS rc=0
    shift
    (cd "$work" && "$@") >"$work/$name.log" 2>&1 || rc=$?
    sed 's/^/    /' "$work/$name.log" | tail -8
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        echo "  $name: ok ($((SECONDS - t0)) s)"
    else
        failed=$((failed + 1))
        echo "FAIL: $name (exit status $rc; log $work/$name.log)"
    fi
    return "$rc"
}

# WAY PYTHON VENV_OPTIONS PIP_OPTIONS EXPECTED_MPI4PY_DIR [MPICC MPIRUN]:
# install, smoke, info.
way() {
    local name=$1 python=$2 venv_opts=$3 pip_opts=$4 mpi4py_under=$5 venv=$work/$1
    local mpicc=${6:-} mpirun=${7:-mpirun.openmpi}
    echo "== $name: $python -m venv $venv_opts; pip install $pip_opts ./python"
    rm -rf "$root/python/build" # no objects of an earlier build
    # shellcheck disable=SC2086 # options lists
    check "$name-install" bash -c "'$python' -m venv $venv_opts '$venv' &&
        ${mpicc:+MPICC=$mpicc} '$venv/bin/python' -m pip install -q $pip_opts '$root/python'" ||
        return
    check "$name-alltoallv" timeout -k 5 120 "$mpirun" -n 2 \
        "$venv/bin/python" "$work/smoke.py" || return
    if grep -q "from $mpi4py_under" "$work/$name-alltoallv.log"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $name: mpi4py not from $mpi4py_under"
    fi
    check "$name-info" bash -c "'$venv/bin/python' -m xchg.info --select \
        alltoall --bytes 64 --ranks 16 --ppn 4 --top 2 | grep -q '^# alltoall, P=16 on 4 node'"
}
t0=$SECONDS
way fresh "$fresh_python" "" "" "$work/fresh/"
way debian /usr/bin/python3 "--system-site-packages" "--no-build-isolation" /usr/lib/python3/
if [ "${XCHG_PIP_MPICH:-0}" = 1 ]; then
    way mpich "$fresh_python" "" "--no-binary mpi4py" "$work/mpich/" mpicc.mpich mpiexec.mpich
fi
echo "check-pip: $((SECONDS - t0)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
