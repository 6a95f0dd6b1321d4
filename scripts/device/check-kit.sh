#!/usr/bin/env bash
# Shows, on this machine, that scripts/device/run.sh needs nothing of this
# machine's Open MPI: runs it (small: 2 and 3 ranks, two sizes, 20 s for
# step 2) in a private mount namespace (unshare -m; root) where every file of
# Debian's Open MPI, PMIx, hwloc, libevent and munge (and ssh, rsh) is hidden
# under an empty file or folder, with the kit's generic libraries forced (XCHG_KIT_ALL_DEPS).
# It runs in a copy of the working tree with the kit (as the machine gets
# them), in /tmp: nothing of the checkout, and nothing outside the namespace,
# changes.
#   usage: bash scripts/device/check-kit.sh [OUT]   (default /tmp/xchg-kit-check)
#   extra environment passes through (XCHG_DEVICE_*)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-/tmp/xchg-kit-check}
rm -rf "$out"
mkdir -p "$out"
# like the lent machine: a copy of the working tree (tracked and untracked
# files git does not ignore) and the carried kit, without .git; the build
# and real.sh's results stay in the copy
copy=$(mktemp -d /tmp/xchg-kit-tree.XXXXXX)
trap 'rm -rf "$copy"' EXIT
git ls-files -z -co --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$copy"
cp -a .devkit "$copy/"
cd "$copy"
export OUT=$out XCHG_KIT_ALL_DEPS=1
export XCHG_DEVICE_NP=${XCHG_DEVICE_NP:-2 3} XCHG_DEVICE_SIZES=${XCHG_DEVICE_SIZES:-16 4096}
export XCHG_DEVICE_ONLINE_S=${XCHG_DEVICE_ONLINE_S:-20}
# on a machine of 2 cores, 3 ranks need more than one per core
export OMPI_MCA_rmaps_base_oversubscribe=1
# evaluate.py imports matplotlib (for its other table): a stand-in where
# this machine has none
if ! python3 -c 'import matplotlib' 2>/dev/null; then
    stub=$(mktemp -d)
    mkdir -p "$stub/matplotlib"
    echo 'def use(*a, **k): pass' >"$stub/matplotlib/__init__.py"
    : >"$stub/matplotlib/pyplot.py"
    export PYTHONPATH=$stub${PYTHONPATH:+:$PYTHONPATH}
fi
unshare -m bash -c '
    set -e
    empty=$(mktemp -d)
    for d in /usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 /etc/openmpi /usr/share/openmpi \
             /usr/lib/x86_64-linux-gnu/hwloc; do
        [ -d "$d" ] && mount --bind "$empty" "$d"
    done
    for f in /usr/lib/x86_64-linux-gnu/lib{mpi,open-rte,open-pal,pmix,hwloc,event,munge,udev,mca_common,ompitrace}*.so* \
             /usr/bin/{orterun,orted,opal_wrapper,ompi_info,mpirun.openmpi,mpiexec.openmpi,mpicc.openmpi,mpirun,mpiexec,mpicc,ssh,rsh}; do
        [ -e "$f" ] && mount --bind /dev/null "$f"
    done
    export PATH=$(echo "$PATH" | tr : "\n" | grep -v openmpi | paste -sd:)
    unset LD_LIBRARY_PATH
    echo "hidden: $(ls /usr/lib/x86_64-linux-gnu/openmpi | wc -l) files in openmpi/, libmpi.so.40 is $(stat -Lc %s /usr/lib/x86_64-linux-gnu/libmpi.so.40) bytes"
    bash scripts/device/run.sh
'
