"""xchg.Alltoallw against mpi4py's comm.Alltoallw, byte for byte: a datatype
per peer (ints, doubles, a vector, a subarray), byte displacements, zero
counts, MPI.IN_PLACE, every algorithm, mpi4py's two message forms, the
persistent form, and bad input."""
import numpy as np
import pytest
from mpi4py import MPI

import xchg
from helpers import count

ALGORITHMS = [a["name"] for a in xchg.algorithms("alltoallw")]


@pytest.fixture(scope="module")
def types():
    vec = MPI.INT.Create_vector(3, 1, 2).Commit()          # 12 bytes over 20
    sub = MPI.DOUBLE.Create_subarray([4, 5], [2, 3], [1, 1]).Commit()  # 48 over 160
    yield [MPI.INT, MPI.DOUBLE, vec, sub]
    vec.Free()
    sub.Free()


def layout(comm, types, seed, in_place, receiving):
    """Counts, byte displacements, datatypes and buffer size of one side:
    the block between ranks s and d has type (s + 2d + seed) mod 4 and
    count(s, d); symmetric (s + d) for MPI.IN_PLACE."""
    size, rank = comm.Get_size(), comm.Get_rank()
    counts, displs, dts, at = [], [], [], 8
    for p in range(size):
        s, d = (p, rank) if receiving else (rank, p)
        if in_place:
            k, c = (s + d + seed) % 4, count(min(s, d), max(s, d), seed)
        else:
            k, c = (s + 2 * d + seed) % 4, count(s, d, seed)
        t = types[k]
        counts.append(c)
        displs.append(at)
        dts.append(t)
        at += c * t.Get_extent()[1] + 8 * (p % 2 + 1)
    return counts, displs, dts, at


def filled(n, rank, seed):
    return ((np.arange(n, dtype=np.int64) * 7 + rank * 131 + seed * 17 + 1) % 251).astype(np.uint8)


def reference(comm, send, recv):
    """mpi4py's comm.Alltoallw, except on one rank: there Open MPI 4.1's
    coll/self scales the byte displacements by the extents and writes past
    the buffer, so the own block is sent to oneself instead."""
    if comm.Get_size() > 1:
        comm.Alltoallw(send, recv)
    elif send is not MPI.IN_PLACE:
        (sbuf, sc, sd, st), (rbuf, rc, rd, rt) = send, recv
        comm.Sendrecv([sbuf[sd[0]:], sc[0], st[0]], 0, 0, [rbuf[rd[0]:], rc[0], rt[0]], 0, 0)


def exchange(comm, types, seed, algorithm=None, in_place=False, pair_form=False):
    rank = comm.Get_rank()
    sc, sd, st, slen = layout(comm, types, seed, in_place, receiving=False)
    rc, rd, rt, rlen = layout(comm, types, seed, in_place, receiving=True)
    sbuf = filled(slen, rank, seed)
    if algorithm:
        xchg.set_algorithm(comm, "alltoallw", algorithm)
    if in_place:
        ours, ref = filled(rlen, rank, seed), filled(rlen, rank, seed)
        reference(comm, MPI.IN_PLACE, [ref, rc, rd, rt])
        xchg.Alltoallw(comm, MPI.IN_PLACE, [ours, rc, rd, rt])
    else:
        ours, ref = np.full(rlen, 0xAB, np.uint8), np.full(rlen, 0xAB, np.uint8)
        reference(comm, [sbuf, sc, sd, st], [ref, rc, rd, rt])
        if pair_form:
            xchg.Alltoallw(comm, [sbuf, (sc, sd), st], [ours, (rc, rd), rt])
        else:
            xchg.Alltoallw(comm, [sbuf, sc, sd, st], [ours, rc, rd, rt])
    used = xchg.get_algorithm(comm, "alltoallw", last_used=True)
    xchg.set_algorithm(comm, "alltoallw", None)
    return ours, ref, used


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_algorithms(comm, types, algorithm):
    ours, ref, used = exchange(comm, types, seed=2, algorithm=algorithm)
    assert ours.tobytes() == ref.tobytes()
    assert used.split(":")[0] == algorithm


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_in_place(comm, types, algorithm):
    ours, ref, _ = exchange(comm, types, seed=1, algorithm=algorithm, in_place=True)
    assert ours.tobytes() == ref.tobytes()


def test_pair_form_and_default_selection(comm, types):
    ours, ref, used = exchange(comm, types, seed=3, pair_form=True)
    assert ours.tobytes() == ref.tobytes()
    assert used


def test_persistent(comm, types):
    rank = comm.Get_rank()
    sc, sd, st, slen = layout(comm, types, 4, False, receiving=False)
    rc, rd, rt, rlen = layout(comm, types, 4, False, receiving=True)
    sbuf, ours, ref = filled(slen, rank, 0), np.zeros(rlen, np.uint8), np.zeros(rlen, np.uint8)
    with xchg.Alltoallw_init(comm, [sbuf, sc, sd, st], [ours, rc, rd, rt],
                             algorithm="parlogna:radix=2") as req:
        for step in range(3):
            sbuf[:] = filled(slen, rank, step)
            req.Start()
            req.Wait()
            reference(comm, [sbuf, sc, sd, st], [ref, rc, rd, rt])
            assert ours.tobytes() == ref.tobytes()


def test_bad_input(comm):
    size = comm.Get_size()
    buf = np.zeros(4 * size, np.int32)
    displs = [16 * p for p in range(size)]
    with pytest.raises(ValueError):
        xchg.Alltoallw(comm, [buf, [-1] * size, displs, [MPI.INT] * size],
                       [buf.copy(), [1] * size, displs, [MPI.INT] * size])
    with pytest.raises(ValueError):  # a block past the end of the buffer
        xchg.Alltoallw(comm, [buf, [5] * size, displs, [MPI.INT] * size],
                       [buf.copy(), [5] * size, displs, [MPI.INT] * size])
    with pytest.raises(ValueError):
        xchg.Alltoallw(comm, [buf, [1] * size, displs, [MPI.INT] * (size + 1)],
                       [buf.copy(), [1] * size, displs, [MPI.INT] * size])
    types = [MPI.INT] * (size - 1) + [MPI.DATATYPE_NULL]
    with pytest.raises(xchg.Error) as err:
        xchg.Alltoallw(comm, [buf, [1] * size, displs, types],
                       [buf.copy(), [1] * size, displs, [MPI.INT] * size])
    assert err.value.Get_error_class() == MPI.ERR_TYPE
    assert "MPI_DATATYPE_NULL" in str(err.value)
