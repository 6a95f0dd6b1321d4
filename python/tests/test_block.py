"""xchg.Alltoall and xchg.Allgather against mpi4py, byte for byte."""
import numpy as np
import pytest
from mpi4py import MPI

import xchg
from helpers import DTYPE_IDS, DTYPES, filled, free_type, mpi_type, same_bytes, sentinel

ALLTOALL = [a["name"] for a in xchg.algorithms("alltoall")]
ALLGATHER = [a["name"] for a in xchg.algorithms("allgather")]


def run_both(comm, coll, algorithm, sendspec, ref_recv, our_recv):
    getattr(comm, coll.capitalize())(sendspec(None), ref_recv)
    xchg.set_algorithm(comm, coll, algorithm)
    getattr(xchg, coll.capitalize())(comm, sendspec(None), our_recv)
    used = xchg.get_algorithm(comm, coll, last_used=True)
    xchg.set_algorithm(comm, coll, None)
    return used


@pytest.mark.parametrize("algorithm", ALLTOALL)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_alltoall(comm, algorithm, dtype):
    size, rank = comm.Get_size(), comm.Get_rank()
    t = mpi_type(dtype)
    sbuf = filled(3 * size, dtype, rank)
    ref, ours = sentinel(3 * size, dtype), sentinel(3 * size, dtype)
    used = run_both(comm, "alltoall", algorithm, lambda _: [sbuf, 3, t], [ref, 3, t],
                    [ours, 3, t])
    free_type(t)
    assert same_bytes(ours, ref)
    assert used.split(":")[0] == algorithm


@pytest.mark.parametrize("algorithm", ALLGATHER)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_allgather(comm, algorithm, dtype):
    size, rank = comm.Get_size(), comm.Get_rank()
    t = mpi_type(dtype)
    sbuf = filled(2, dtype, rank)
    ref, ours = sentinel(2 * size, dtype), sentinel(2 * size, dtype)
    used = run_both(comm, "allgather", algorithm, lambda _: [sbuf, t], [ref, t], [ours, t])
    free_type(t)
    assert same_bytes(ours, ref)
    assert used.split(":")[0] == algorithm


@pytest.mark.parametrize("algorithm", ALLTOALL)
def test_alltoall_in_place(comm, algorithm):
    size, rank = comm.Get_size(), comm.Get_rank()
    ref = filled(2 * size, np.int32, rank)
    ours = ref.copy()
    comm.Alltoall(MPI.IN_PLACE, ref)
    xchg.set_algorithm(comm, "alltoall", algorithm)
    xchg.Alltoall(comm, MPI.IN_PLACE, ours)
    xchg.set_algorithm(comm, "alltoall", None)
    assert same_bytes(ours, ref)


@pytest.mark.parametrize("algorithm", ALLGATHER)
def test_allgather_in_place(comm, algorithm):
    size, rank = comm.Get_size(), comm.Get_rank()
    ref = sentinel(3 * size, np.float64)
    ref[3 * rank:3 * rank + 3] = filled(3, np.float64, rank)
    ours = ref.copy()
    comm.Allgather(MPI.IN_PLACE, ref)
    xchg.set_algorithm(comm, "allgather", algorithm)
    xchg.Allgather(comm, MPI.IN_PLACE, ours)
    xchg.set_algorithm(comm, "allgather", None)
    assert same_bytes(ours, ref)


def test_block_short_forms(comm):
    """Plain arrays (type inferred), [buf, count], [buf, (count, displ)]."""
    size, rank = comm.Get_size(), comm.Get_rank()
    sbuf = filled(4 * size, np.complex128, rank)
    pairs = []
    for sspec, rspec in [(lambda b: b, lambda b: b),
                         (lambda b: [b, 4], lambda b: [b, 4, MPI.C_DOUBLE_COMPLEX]),
                         (lambda b: [b, (2, 1)], lambda b: [b, (2, 1), "D"])]:
        ref, ours = sentinel(4 * size, np.complex128), sentinel(4 * size, np.complex128)
        comm.Alltoall(sspec(sbuf), rspec(ref))
        xchg.Alltoall(comm, sspec(sbuf), rspec(ours))
        pairs.append((ours, ref))
    gref, gours = sentinel(size, np.int8), sentinel(size, np.int8)
    mine = filled(1, np.int8, rank)
    comm.Allgather(mine, gref)
    xchg.Allgather(comm, mine, gours)
    pairs.append((gours, gref))
    for ours, ref in pairs:
        assert same_bytes(ours, ref)


def test_zero_count(comm):
    size = comm.Get_size()
    rbuf = np.full(size, 5, np.int32)
    xchg.Alltoall(comm, [np.zeros(size, np.int32), 0, MPI.INT], [rbuf, 0, MPI.INT])
    xchg.Allgather(comm, [np.zeros(1, np.int32), 0, MPI.INT], [rbuf, 0, MPI.INT])
    assert (rbuf == 5).all()
