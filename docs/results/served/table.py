#!/usr/bin/env python3
"""The share of a real client's all-to-all-family calls that xchg serves.

Reads the XCHG_COUNT_FILE files that tests/dropin/run.sh leaves in
BUILD/dropin-tests/ (one per client run under the drop-in library) and
prints one Markdown row per client: its calls of each collective (summed
over ranks), how many xchg ran itself ("served") and how many it passed to
the MPI library ("to_mpi"). "Before" is what the drop-in of 0.1.x served:
alltoall, alltoallv, allgather and the neighbourhood alltoallv; its
MPI_Alltoallw and MPI_Allgatherv went to the MPI library unseen.

    python3 docs/results/served/table.py BUILD/dropin-tests > docs/results/served/served.md
"""
import os
import sys

BEFORE = {"alltoall", "alltoallv", "allgather", "neighbor_alltoallv"}
CLIENTS = [  # (count file, what the client is)
    ("mpi4py-fft-4.counts", "mpi4py-fft, slab and pencil 30x28x26 complex, 4 ranks"),
    ("mpi4py-fft-3.counts", "mpi4py-fft, 3 ranks (parlogna)"),
    ("fftw-30x28x26.counts", "FFTW 3 MPI 3-D transform, 3 ranks"),
    ("mpi4py-default.counts", "mpi4py program (tests/dropin/mpi4py_collectives.py), 3 ranks"),
    ("openmpi-fortran-mpi.counts", "Fortran `use mpi` program, 3 ranks"),
    ("openmpi-alltoallw-default.counts", "C program, MPI_Alltoallw over subarray/vector/struct"),
    ("openmpi-allgatherv.counts", "C program, MPI_Allgatherv uneven/zero/in place"),
    ("openmpi-neighbor.counts", "C program, neighbourhood alltoallv"),
]


def read(path):
    calls = {}
    with open(path) as f:
        for line in f:
            words = line.split()
            if len(words) > 1 and words[1].startswith("calls="):
                fields = dict(w.split("=", 1) for w in words[1:])
                calls[words[0]] = (int(fields["calls"]), int(fields["to_mpi"]))
    return calls


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "build/dropin-tests"
    print("| client | collectives called (calls, all ranks) | served before | served now |")
    print("|---|---|---|---|")
    for name, what in CLIENTS:
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            continue
        calls = {c: v for c, v in read(path).items() if v[0] > 0}
        total = sum(n for n, _ in calls.values())
        served = sum(n - to_mpi for n, to_mpi in calls.values())
        before = sum(n - to_mpi for c, (n, to_mpi) in calls.items() if c in BEFORE)
        used = ", ".join("%s %d" % (c, n) for c, (n, _) in sorted(calls.items()))
        pct = lambda k: "%d of %d (%.0f%%)" % (k, total, 100.0 * k / total) if total else "-"
        print("| %s | %s | %s | %s |" % (what, used, pct(before), pct(served)))


if __name__ == "__main__":
    main()
