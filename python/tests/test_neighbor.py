"""xchg.Neighbor_alltoallv (and _init) against mpi4py on a dist-graph communicator."""
import numpy as np
import pytest
from mpi4py import MPI

import xchg
from helpers import (DTYPE_IDS, DTYPES, filled, free_type, mpi_type, same_bytes, sentinel,
                     vector_layout)

ALGORITHMS = [a["name"] for a in xchg.algorithms("neighbor_alltoallv")]
OFFSETS = [1, 3, 0]  # edges r -> r+1, r+3, r (itself); repeats when P is small


def block_count(src, j):
    """Elements that rank src sends along its j-th edge (zeros included)."""
    return (2 * src + 3 * j) % 4


@pytest.fixture(scope="module")
def graph(comm):
    size, rank = comm.Get_size(), comm.Get_rank()
    dests = [(rank + o) % size for o in OFFSETS]
    sources = [(rank - o) % size for o in OFFSETS]
    g = comm.Create_dist_graph_adjacent(sources, dests, reorder=False)
    yield g
    g.Free()


def specs(graph, dtype, seed):
    rank, size = graph.Get_rank(), graph.Get_size()
    t = mpi_type(dtype)
    scounts = [block_count(rank, j) for j in range(len(OFFSETS))]
    rcounts = [block_count((rank - o) % size, j) for j, o in enumerate(OFFSETS)]
    sdispls, slen = vector_layout(scounts, 1)
    rdispls, rlen = vector_layout(rcounts, 2)
    sbuf = filled(slen, dtype, rank, seed)
    return t, [sbuf, scounts, sdispls, t], (rlen, rcounts, rdispls)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_neighbor_alltoallv(graph, algorithm, dtype):
    t, send, (rlen, rcounts, rdispls) = specs(graph, dtype, 0)
    ref, ours = sentinel(rlen, dtype), sentinel(rlen, dtype)
    graph.Neighbor_alltoallv(send, [ref, rcounts, rdispls, t])
    xchg.set_algorithm(graph, "neighbor_alltoallv", algorithm)
    xchg.Neighbor_alltoallv(graph, send, [ours, rcounts, rdispls, t])
    used = xchg.get_algorithm(graph, "neighbor_alltoallv", last_used=True)
    xchg.set_algorithm(graph, "neighbor_alltoallv", None)
    free_type(t)
    assert same_bytes(ours, ref)
    assert used.split(":")[0] == algorithm


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_neighbor_alltoallv_init(graph, algorithm):
    t, send, (rlen, rcounts, rdispls) = specs(graph, np.float64, 0)
    sbuf, ours = send[0], sentinel(rlen, np.float64)
    results = []
    with xchg.Neighbor_alltoallv_init(graph, send, [ours, rcounts, rdispls, t],
                                      algorithm=algorithm) as req:
        for start in range(3):
            sbuf[:] = filled(len(sbuf), np.float64, graph.Get_rank(), start + 5)
            ref = sentinel(rlen, np.float64)
            graph.Neighbor_alltoallv(send, [ref, rcounts, rdispls, t])
            req.Start()
            req.Wait()
            results.append((ours.copy(), ref))
    for got, ref in results:
        assert same_bytes(got, ref)


def test_neighbor_needs_graph(comm):
    with pytest.raises(ValueError, match="distributed-graph"):
        xchg.Neighbor_alltoallv(comm, np.zeros(1), np.zeros(1))


def test_neighbor_no_in_place(graph):
    with pytest.raises(ValueError, match="IN_PLACE"):
        xchg.Neighbor_alltoallv(graph, MPI.IN_PLACE, np.zeros(3))
