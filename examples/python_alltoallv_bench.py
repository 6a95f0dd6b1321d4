#!/usr/bin/env python3
"""Time xchg's Alltoallv (a few algorithms, blocking and persistent) against
mpi4py's comm.Alltoallv on float64 NumPy arrays, uniform and skewed.

    mpirun -n 4 python3 examples/python_alltoallv_bench.py [--count 4096] [--iters 50]

Needs the xchg package (python/README.md). Prints one table on rank 0: the
mean time per call (the slowest rank's), and the speed-up over mpi4py.
"""
import argparse

import numpy as np
from mpi4py import MPI

import xchg

# None: no choice set, xchg's automatic selection ("auto" in the table)
ALGORITHMS = [None, "pairwise", "scattered", "nonblocking", "parlogna:radix=2",
              "parlogna:radix=4", "mpi"]


def workload(kind, size, rank, count):
    """Send and receive counts per peer: uniform, or skewed (rank 0's pairs 8x,
    the others' spread from 1/4 to 1x)."""
    def pair(src, dst):
        if kind == "uniform":
            return count
        if src == 0 or dst == 0:
            return 8 * count
        return count // 4 + (count * ((3 * src + 5 * dst) % 4)) // 4
    scounts = np.array([pair(rank, j) for j in range(size)], dtype=np.intc)
    rcounts = np.array([pair(j, rank) for j in range(size)], dtype=np.intc)
    return scounts, rcounts


def displs(counts):
    return np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.intc)


def timed(comm, iters, call):
    """The mean seconds per call over `iters`, the slowest rank's."""
    call()  # warm-up: plans are built and cached here
    comm.Barrier()
    t0 = MPI.Wtime()
    for _ in range(iters):
        call()
    elapsed = (MPI.Wtime() - t0) / iters
    return comm.allreduce(elapsed, op=MPI.MAX)


def bench(comm, kind, count, iters):
    size, rank = comm.Get_size(), comm.Get_rank()
    scounts, rcounts = workload(kind, size, rank, count)
    sbuf = np.random.default_rng(rank).random(int(scounts.sum()))
    send = [sbuf, scounts, displs(scounts), MPI.DOUBLE]
    ref, out = np.empty(int(rcounts.sum())), np.empty(int(rcounts.sum()))
    recv = [out, rcounts, displs(rcounts), MPI.DOUBLE]
    rows = [("mpi4py comm.Alltoallv",
             timed(comm, iters, lambda: comm.Alltoallv(send, [ref, rcounts, displs(rcounts),
                                                              MPI.DOUBLE])))]
    for algorithm in ALGORITHMS:
        xchg.set_algorithm(comm, "alltoallv", algorithm)
        rows.append(("xchg " + (algorithm or "auto (%s)"), timed(
            comm, iters, lambda: xchg.Alltoallv(comm, send, recv))))
        if algorithm is None:
            chosen = xchg.get_algorithm(comm, "alltoallv", last_used=True)
            rows[-1] = (rows[-1][0] % chosen, rows[-1][1])
        assert np.array_equal(out, ref), algorithm
    xchg.set_algorithm(comm, "alltoallv", None)
    for algorithm in (None, "parlogna:radix=2", "scattered"):
        with xchg.Alltoallv_init(comm, send, recv, algorithm=algorithm) as req:
            def start_wait():
                req.Start()
                req.Wait()
            rows.append(("xchg " + (algorithm or "auto") + " (persistent)",
                         timed(comm, iters, start_wait)))
        assert np.array_equal(out, ref), algorithm
    total = comm.allreduce(int(scounts.sum()) * 8)
    return rows, total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=4096,
                        help="float64 values per peer in the uniform case (default 4096)")
    parser.add_argument("--iters", type=int, default=50, help="timed calls (default 50)")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD.Dup()
    size, rank = comm.Get_size(), comm.Get_rank()
    if rank == 0:
        print("xchg %s, %d ranks, %s" % (xchg.__version__, size,
                                          MPI.Get_library_version().split(",")[0]))
        print("%-9s %-38s %12s %10s" % ("workload", "method", "us/call", "vs mpi4py"))
    for kind in ("uniform", "skewed"):
        rows, total = bench(comm, kind, args.count, args.iters)
        if rank == 0:
            base = rows[0][1]
            for name, seconds in rows:
                print("%-9s %-38s %12.1f %9.2fx" % (kind, name, seconds * 1e6, base / seconds))
            print("%-9s (%.1f MiB moved per call in all)" % ("", total / 2**20))
    comm.Free()


if __name__ == "__main__":
    main()
