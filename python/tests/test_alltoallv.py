"""xchg.Alltoallv against mpi4py's comm.Alltoallv, byte for byte."""
import numpy as np
import pytest
from mpi4py import MPI

import xchg
from helpers import (DTYPE_IDS, DTYPES, count, filled, free_type, mpi_type, same_bytes,
                     sentinel, vector_layout)

ALGORITHMS = [a["name"] for a in xchg.algorithms("alltoallv")]


def exchange(comm, dtype, gap, seed, algorithm=None, in_place=False):
    """Run xchg and mpi4py on the same buffers; return both receive buffers."""
    size, rank = comm.Get_size(), comm.Get_rank()
    t = mpi_type(dtype)
    scounts = [count(rank, j, seed) for j in range(size)]
    rcounts = [count(j, rank, seed) for j in range(size)]
    if in_place:  # MPI requires matching counts: make them symmetric
        scounts = rcounts = [count(min(rank, j), max(rank, j), seed) for j in range(size)]
    sdispls, slen = vector_layout(scounts, gap)
    rdispls, rlen = vector_layout(rcounts, gap)
    sbuf = filled(slen, dtype, rank, seed)
    if in_place:
        ours, ref = sbuf.copy(), sbuf.copy()
        comm.Alltoallv(MPI.IN_PLACE, [ref, rcounts, rdispls, t])
        if algorithm:
            xchg.set_algorithm(comm, "alltoallv", algorithm)
        xchg.Alltoallv(comm, MPI.IN_PLACE, [ours, rcounts, rdispls, t])
    else:
        ours, ref = sentinel(rlen, dtype), sentinel(rlen, dtype)
        comm.Alltoallv([sbuf, scounts, sdispls, t], [ref, rcounts, rdispls, t])
        if algorithm:
            xchg.set_algorithm(comm, "alltoallv", algorithm)
        xchg.Alltoallv(comm, [sbuf, scounts, sdispls, t], [ours, rcounts, rdispls, t])
    used = xchg.get_algorithm(comm, "alltoallv", last_used=True)
    xchg.set_algorithm(comm, "alltoallv", None)
    free_type(t)
    return ours, ref, used


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_algorithms_and_dtypes(comm, algorithm, dtype):
    ours, ref, used = exchange(comm, dtype, gap=1, seed=2, algorithm=algorithm)
    assert same_bytes(ours, ref)
    assert used.split(":")[0] == algorithm


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_in_place(comm, algorithm):
    ours, ref, _ = exchange(comm, np.float64, gap=2, seed=1, algorithm=algorithm,
                            in_place=True)
    assert same_bytes(ours, ref)


def test_default_selection_and_parameters(comm):
    ours, ref, used = exchange(comm, np.int32, gap=0, seed=3, algorithm="parlogna:radix=4")
    assert same_bytes(ours, ref)
    assert used.startswith("parlogna:radix=")
    ours, ref, _ = exchange(comm, np.int32, gap=0, seed=4)
    assert same_bytes(ours, ref)


def test_short_forms(comm):
    """[buf, counts], [buf, (counts, displs)], plain arrays, integer counts."""
    size, rank = comm.Get_size(), comm.Get_rank()
    counts = [count(rank, j) for j in range(size)]
    rcounts = [count(j, rank) for j in range(size)]
    sbuf = filled(sum(counts), np.float64, rank)
    results = []
    for make_s, make_r in [
        (lambda b: [b, counts], lambda b: [b, rcounts]),
        (lambda b: [b, (counts, vector_layout(counts, 0)[0])],
         lambda b: [b, (rcounts, vector_layout(rcounts, 0)[0]), MPI.DOUBLE]),
        (lambda b: [b, counts, "d"], lambda b: [b, rcounts, MPI.DOUBLE]),
    ]:
        ours, ref = sentinel(sum(rcounts), np.float64), sentinel(sum(rcounts), np.float64)
        comm.Alltoallv(make_s(sbuf), make_r(ref))
        xchg.Alltoallv(comm, make_s(sbuf), make_r(ours))
        results.append((ours, ref))
    # plain arrays: counts split evenly (3 per peer); [buf, 2, 3, TYPE]: strided
    even_s = filled(3 * size, np.int32, rank)
    even_ours, even_ref = sentinel(3 * size, np.int32), sentinel(3 * size, np.int32)
    comm.Alltoallv(even_s, even_ref)
    xchg.Alltoallv(comm, even_s, even_ours)
    results.append((even_ours, even_ref))
    st_ours, st_ref = sentinel(3 * size, np.int32), sentinel(3 * size, np.int32)
    comm.Alltoallv([even_s, 2, 3, MPI.INT], [st_ref, 2, 3, MPI.INT])
    xchg.Alltoallv(comm, [even_s, 2, 3, MPI.INT], [st_ours, 2, 3, MPI.INT])
    results.append((st_ours, st_ref))
    for ours, ref in results:
        assert same_bytes(ours, ref)


def test_all_zero_counts(comm):
    size = comm.Get_size()
    sbuf, rbuf = np.zeros(1), np.full(1, 7.0)
    xchg.Alltoallv(comm, [sbuf, [0] * size, [0] * size, MPI.DOUBLE],
                   [rbuf, [0] * size, [0] * size, MPI.DOUBLE])
    assert rbuf[0] == 7.0


def test_fortran_order_and_2d(comm):
    """Any contiguous array: a Fortran-ordered 2-d array is its memory."""
    size, rank = comm.Get_size(), comm.Get_rank()
    sbuf = np.asfortranarray(filled(4 * size, np.float64, rank).reshape(4, size))
    ours, ref = np.zeros((size, 4)), np.zeros((size, 4))
    comm.Alltoallv(sbuf, ref)
    xchg.Alltoallv(comm, sbuf, ours)
    assert same_bytes(ours, ref)
