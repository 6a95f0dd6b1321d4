"""Persistent requests: repeated starts against mpi4py's blocking calls."""
import gc

import numpy as np
import pytest
from mpi4py import MPI

import xchg
from helpers import count, filled, same_bytes, sentinel, vector_layout

ALLTOALLV = [a["name"] for a in xchg.algorithms("alltoallv")]
ALLTOALL = [a["name"] for a in xchg.algorithms("alltoall")]
ALLGATHER = [a["name"] for a in xchg.algorithms("allgather")]
STARTS = 3


@pytest.mark.parametrize("algorithm", ALLTOALLV)
def test_alltoallv_init(comm, algorithm):
    size, rank = comm.Get_size(), comm.Get_rank()
    scounts = [count(rank, j, 1) for j in range(size)]
    rcounts = [count(j, rank, 1) for j in range(size)]
    sdispls, slen = vector_layout(scounts, 1)
    rdispls, rlen = vector_layout(rcounts, 1)
    sbuf, ours = np.zeros(slen), sentinel(rlen, np.float64)
    results = []
    with xchg.Alltoallv_init(comm, [sbuf, scounts, sdispls, MPI.DOUBLE],
                             [ours, rcounts, rdispls, MPI.DOUBLE],
                             algorithm=algorithm) as req:
        for start in range(STARTS):
            sbuf[:] = filled(slen, np.float64, rank, start)  # new contents, same buffer
            ref = sentinel(rlen, np.float64)
            comm.Alltoallv([sbuf, scounts, sdispls, MPI.DOUBLE],
                           [ref, rcounts, rdispls, MPI.DOUBLE])
            req.Start()
            if start == 1:
                while not req.Test():
                    pass
            else:
                req.Wait()
            results.append((ours.copy(), ref))
    assert req.freed
    for got, ref in results:
        assert same_bytes(got, ref)


@pytest.mark.parametrize("algorithm", ALLTOALL)
def test_alltoall_init(comm, algorithm):
    size, rank = comm.Get_size(), comm.Get_rank()
    sbuf, ours = np.zeros(2 * size, np.int32), sentinel(2 * size, np.int32)
    req = xchg.Alltoall_init(comm, sbuf, ours, algorithm=algorithm)
    results = []
    for start in range(STARTS):
        sbuf[:] = filled(2 * size, np.int32, rank, start)
        ref = sentinel(2 * size, np.int32)
        comm.Alltoall(sbuf, ref)
        req.Start()
        req.Wait()
        results.append((ours.copy(), ref))
    req.Free()
    for got, ref in results:
        assert same_bytes(got, ref)


@pytest.mark.parametrize("algorithm", ALLGATHER)
def test_allgather_init_in_place(comm, algorithm):
    size, rank = comm.Get_size(), comm.Get_rank()
    ours = sentinel(2 * size, np.complex128)
    results = []
    with xchg.Allgather_init(comm, MPI.IN_PLACE, ours, algorithm=algorithm) as req:
        for start in range(STARTS):
            ours[2 * rank:2 * rank + 2] = filled(2, np.complex128, rank, start)
            ref = ours.copy()
            comm.Allgather(MPI.IN_PLACE, ref)
            req.Start()
            req.Wait()
            results.append((ours.copy(), ref))
    for got, ref in results:
        assert same_bytes(got, ref)


def test_request_keeps_buffers_alive(comm):
    """The request holds the send array and counts after the caller drops them."""
    size, rank = comm.Get_size(), comm.Get_rank()
    ours = sentinel(size, np.int64)
    req = xchg.Alltoallv_init(comm, [np.full(size, rank, np.int64), [1] * size],
                              [ours, [1] * size])
    gc.collect()
    req.Start()
    req.Wait()
    req.Free()
    req.Free()  # a second Free is harmless
    assert (ours == np.arange(size)).all()


def test_info_selects_algorithm(comm):
    size = comm.Get_size()
    info = MPI.Info.Create()
    info.Set("xchg_algorithm", "pairwise")
    with xchg.Alltoall_init(comm, np.zeros(size), np.zeros(size), info=info) as req:
        req.Start()
        req.Wait()
    info.Free()
    assert xchg.get_algorithm(comm, "alltoall", last_used=True).startswith("pairwise")


def test_request_left_for_exit():
    """A request never freed: xchg frees it at exit before MPI finalizes."""
    world = MPI.COMM_WORLD
    size = world.Get_size()
    leftover = xchg.Alltoall_init(world, np.zeros(size), np.zeros(size))
    leftover.Start()
    leftover.Wait()
    test_request_left_for_exit.leftover = leftover  # alive until exit
