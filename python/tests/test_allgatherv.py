"""xchg.Allgatherv against mpi4py's comm.Allgatherv, byte for byte: every
algorithm, uneven and zero contributions, displacements out of rank order
with gaps, mpi4py's argument forms, MPI.IN_PLACE and the persistent form."""
import numpy as np
import pytest
from mpi4py import MPI

import xchg
from helpers import DTYPE_IDS, DTYPES, filled, free_type, mpi_type, same_bytes, sentinel

ALLGATHERV = [a["name"] for a in xchg.algorithms("allgatherv")]
SHAPES = {
    "uneven": lambda p, size: 1 + (3 * p) % 4,
    "some_zero": lambda p, size: 0 if p % 2 else p + 2,
    "all_zero": lambda p, size: 0,
    "one_large": lambda p, size: 5000 if p == size - 1 else p % 2,
}


def layout(counts, reverse, gap):
    """Displacements: in rank order or reversed, `gap` elements after each block."""
    displs, at = [0] * len(counts), 0
    order = range(len(counts) - 1, -1, -1) if reverse else range(len(counts))
    for p in order:
        displs[p] = at
        at += counts[p] + gap
    return np.array(displs, dtype=np.intc), at


def both(comm, algorithm, sendspec, recv_ref, recv_ours):
    comm.Allgatherv(sendspec, recv_ref)
    xchg.set_algorithm(comm, "allgatherv", algorithm)
    xchg.Allgatherv(comm, sendspec, recv_ours)
    used = xchg.get_algorithm(comm, "allgatherv", last_used=True)
    xchg.set_algorithm(comm, "allgatherv", None)
    return used


@pytest.mark.parametrize("algorithm", ALLGATHERV)
@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("reverse", [False, True], ids=["in_order", "reversed_gaps"])
def test_allgatherv(comm, algorithm, shape, reverse):
    size, rank = comm.Get_size(), comm.Get_rank()
    counts = np.array([SHAPES[shape](p, size) for p in range(size)], dtype=np.intc)
    displs, total = layout(counts, reverse, 3 if reverse else 0)
    sbuf = filled(int(counts[rank]), np.float64, rank)
    ref, ours = sentinel(total, np.float64), sentinel(total, np.float64)
    used = both(comm, algorithm, [sbuf, MPI.DOUBLE], [ref, counts, displs, MPI.DOUBLE],
                [ours, counts, displs, MPI.DOUBLE])
    assert same_bytes(ours, ref)
    assert used.split(":")[0] == algorithm


@pytest.mark.parametrize("algorithm", ALLGATHERV)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_allgatherv_dtypes(comm, algorithm, dtype):
    size, rank = comm.Get_size(), comm.Get_rank()
    t = mpi_type(dtype)
    counts = np.array([(p * 5 + 2) % 4 for p in range(size)], dtype=np.intc)
    displs, total = layout(counts, True, 1)
    sbuf = filled(int(counts[rank]), dtype, rank)
    ref, ours = sentinel(total, dtype), sentinel(total, dtype)
    used = both(comm, algorithm, [sbuf, t], [ref, (counts, displs), t],
                [ours, (counts, displs), t])
    free_type(t)
    assert same_bytes(ours, ref)
    assert used.split(":")[0] == algorithm


def test_allgatherv_forms(comm):
    """mpi4py's shorter forms: counts only (packed), and a plain send buffer."""
    size, rank = comm.Get_size(), comm.Get_rank()
    counts = [p % 3 + 1 for p in range(size)]
    sbuf = filled(counts[rank], np.int32, rank)
    ref, ours = sentinel(sum(counts), np.int32), sentinel(sum(counts), np.int32)
    comm.Allgatherv(sbuf, [ref, counts])
    xchg.Allgatherv(comm, sbuf, [ours, counts])
    assert same_bytes(ours, ref)


@pytest.mark.parametrize("algorithm", ALLGATHERV)
def test_allgatherv_in_place(comm, algorithm):
    size, rank = comm.Get_size(), comm.Get_rank()
    counts = np.array([(p + 1) % 3 for p in range(size)], dtype=np.intc)
    displs, total = layout(counts, True, 2)
    ref = sentinel(total, np.int32)
    mine = filled(int(counts[rank]), np.int32, rank)
    ref[displs[rank]:displs[rank] + counts[rank]] = mine
    ours = ref.copy()
    comm.Allgatherv(MPI.IN_PLACE, [ref, counts, displs, MPI.INT])
    xchg.set_algorithm(comm, "allgatherv", algorithm)
    xchg.Allgatherv(comm, MPI.IN_PLACE, [ours, counts, displs, MPI.INT])
    xchg.set_algorithm(comm, "allgatherv", None)
    assert same_bytes(ours, ref)


@pytest.mark.parametrize("algorithm", ALLGATHERV)
def test_allgatherv_init(comm, algorithm):
    size, rank = comm.Get_size(), comm.Get_rank()
    counts = np.array([SHAPES["some_zero"](p, size) for p in range(size)], dtype=np.intc)
    displs, total = layout(counts, True, 1)
    sbuf = np.empty(int(counts[rank]), dtype=np.float64)
    ref, ours = sentinel(total, np.float64), sentinel(total, np.float64)
    with xchg.Allgatherv_init(comm, [sbuf, MPI.DOUBLE], [ours, counts, displs, MPI.DOUBLE],
                              algorithm=algorithm) as req:
        for step in range(3):
            sbuf[:] = filled(int(counts[rank]), np.float64, rank, salt=step)
            req.Start()
            req.Wait()
            comm.Allgatherv([sbuf, MPI.DOUBLE], [ref, counts, displs, MPI.DOUBLE])
            assert same_bytes(ours, ref)


def test_allgatherv_errors(comm):
    size, rank = comm.Get_size(), comm.Get_rank()
    counts = np.full(size, 2, dtype=np.intc)
    rbuf = np.zeros(2 * size, dtype=np.int32)
    with pytest.raises(ValueError):  # counts of the wrong length
        xchg.Allgatherv(comm, np.zeros(2, np.int32), [rbuf, counts[:-1] if size > 1 else [],
                                                       MPI.INT])
    with pytest.raises(xchg.Error):  # this rank's block differs from counts[rank]
        xchg.Allgatherv(comm, [np.zeros(3, np.int32), MPI.INT], [rbuf, counts, MPI.INT])
    assert not rbuf.any()
