"""The collectives, blocking and persistent, in mpi4py's calling style."""
from mpi4py import MPI

from . import _xchg
from ._messages import block_message, vector_message, w_message


def _peers(comm):
    if comm.Is_inter():
        raise ValueError("xchg: intercommunicators are not supported")
    return comm.Get_size()


def _degrees(comm):
    """(outdegree, indegree) of a distributed-graph communicator."""
    if comm.Get_topology() != MPI.DIST_GRAPH:
        raise ValueError("xchg: Neighbor_alltoallv needs a distributed-graph communicator "
                         "(comm.Create_dist_graph_adjacent or comm.Create_dist_graph)")
    indegree, outdegree, _ = comm.Get_dist_neighbors_count()
    return outdegree, indegree


def _c_args(comm, send, recv):
    """The argument tuple of the C layer; send None means MPI.IN_PLACE."""
    if send is None:
        return (comm, None, None, None, None,
                recv.buf, recv.counts, recv.displs, recv.datatype)
    return (comm, send.buf, send.counts, send.displs, send.datatype,
            recv.buf, recv.counts, recv.displs, recv.datatype)


def _vector(comm, sendbuf, recvbuf, nsend, nrecv, in_place_ok=True):
    recv = vector_message(recvbuf, nrecv, writable=True)
    if sendbuf is MPI.IN_PLACE:
        if not in_place_ok:
            raise ValueError("xchg: MPI.IN_PLACE is not allowed here")
        return _c_args(comm, None, recv)
    return _c_args(comm, vector_message(sendbuf, nsend, writable=False), recv)


def _block(comm, sendbuf, recvbuf, send_blocks):
    size = _peers(comm)
    recv = block_message(recvbuf, size, writable=True)
    if sendbuf is MPI.IN_PLACE:
        return _c_args(comm, None, recv)
    return _c_args(comm, block_message(sendbuf, send_blocks, writable=False), recv)


def _alltoallv_args(comm, sendbuf, recvbuf):
    size = _peers(comm)
    return _vector(comm, sendbuf, recvbuf, size, size)


def _alltoallw_args(comm, sendbuf, recvbuf):
    """The C layer's 11 arguments: the 9 of a vector call (MPI.BYTE standing
    for the datatypes) and the per-peer datatype handles of each side."""
    size = _peers(comm)
    recv = w_message(recvbuf, size, writable=True)
    if sendbuf is MPI.IN_PLACE:
        return (comm, None, None, None, None, recv.buf, recv.counts, recv.displs, MPI.BYTE,
                None, recv.handles)
    send = w_message(sendbuf, size, writable=False)
    return (comm, send.buf, send.counts, send.displs, MPI.BYTE, recv.buf, recv.counts,
            recv.displs, MPI.BYTE, send.handles, recv.handles)


def _alltoall_args(comm, sendbuf, recvbuf):
    return _block(comm, sendbuf, recvbuf, _peers(comm))


def _allgather_args(comm, sendbuf, recvbuf):
    return _block(comm, sendbuf, recvbuf, 0)


def _allgatherv_args(comm, sendbuf, recvbuf):
    """A block message to send (one block), a vector message of P blocks to
    receive; MPI.IN_PLACE: this rank's block is already in place in recvbuf."""
    recv = vector_message(recvbuf, _peers(comm), writable=True)
    if sendbuf is MPI.IN_PLACE:
        return _c_args(comm, None, recv)
    return _c_args(comm, block_message(sendbuf, 0, writable=False), recv)


def _neighbor_args(comm, sendbuf, recvbuf):
    nsend, nrecv = _degrees(comm)
    return _vector(comm, sendbuf, recvbuf, nsend, nrecv, in_place_ok=False)


def Alltoallv(comm, sendbuf, recvbuf):
    """Alltoallv like comm.Alltoallv(sendbuf, recvbuf), through xchg.

    sendbuf may be MPI.IN_PLACE (the receive side's counts, displacements
    and type then describe the data sent)."""
    _xchg.alltoallv(*_alltoallv_args(comm, sendbuf, recvbuf))


def Alltoallw(comm, sendbuf, recvbuf):
    """Alltoallw like comm.Alltoallw(sendbuf, recvbuf), through xchg: each
    message is [buf, counts, displs, types] or [buf, (counts, displs), types]
    with displacements in bytes and a datatype per peer. sendbuf may be
    MPI.IN_PLACE (the receive side then describes the data sent)."""
    _xchg.alltoallw(*_alltoallw_args(comm, sendbuf, recvbuf))


def Alltoall(comm, sendbuf, recvbuf):
    """Alltoall like comm.Alltoall(sendbuf, recvbuf); sendbuf may be MPI.IN_PLACE."""
    _xchg.alltoall(*_alltoall_args(comm, sendbuf, recvbuf))


def Allgather(comm, sendbuf, recvbuf):
    """Allgather like comm.Allgather(sendbuf, recvbuf); sendbuf may be MPI.IN_PLACE
    (this rank's block is then already in place in recvbuf)."""
    _xchg.allgather(*_allgather_args(comm, sendbuf, recvbuf))


def Allgatherv(comm, sendbuf, recvbuf):
    """Allgatherv like comm.Allgatherv(sendbuf, recvbuf), through xchg: sendbuf
    is this rank's block (buf, [buf, TYPE], [buf, count, TYPE], ...) or
    MPI.IN_PLACE; recvbuf is [buf, counts, displs, TYPE] (or any of mpi4py's
    vector forms), the same counts and displacements on every rank."""
    _xchg.allgatherv(*_allgatherv_args(comm, sendbuf, recvbuf))


def Neighbor_alltoallv(comm, sendbuf, recvbuf):
    """Neighbor_alltoallv like comm.Neighbor_alltoallv(sendbuf, recvbuf) on a
    distributed-graph communicator: send block i goes to the i-th destination,
    receive block i comes from the i-th source. MPI.IN_PLACE is not allowed."""
    _xchg.neighbor_alltoallv(*_neighbor_args(comm, sendbuf, recvbuf))


def _info(info, algorithm):
    """The MPI.Info of an init: `info`, with "xchg_algorithm" set if given."""
    if algorithm is None:
        return info, None
    own = MPI.Info.Create() if info == MPI.INFO_NULL else info.Dup()
    own.Set("xchg_algorithm", algorithm)
    return own, own


def _init(kind, call_args, info, algorithm):
    mpi_info, own = _info(info, algorithm)
    try:
        return _xchg.init(kind, mpi_info, *call_args)
    finally:
        if own is not None:
            own.Free()


def Alltoallv_init(comm, sendbuf, recvbuf, info=MPI.INFO_NULL, algorithm=None):
    """Persistent Alltoallv: returns a Request (Start, Wait, Test, Free; a
    context manager). The buffers, counts and types are fixed; the request
    keeps them alive until freed. `algorithm` ("parlogna:radix=4") selects
    the algorithm for this request (info key "xchg_algorithm")."""
    return _init("alltoallv", _alltoallv_args(comm, sendbuf, recvbuf), info, algorithm)


def Alltoallw_init(comm, sendbuf, recvbuf, info=MPI.INFO_NULL, algorithm=None):
    """Persistent Alltoallw (see Alltoallv_init). The datatypes must stay
    committed until the request is freed."""
    return _init("alltoallw", _alltoallw_args(comm, sendbuf, recvbuf), info, algorithm)


def Alltoall_init(comm, sendbuf, recvbuf, info=MPI.INFO_NULL, algorithm=None):
    """Persistent Alltoall (see Alltoallv_init)."""
    return _init("alltoall", _alltoall_args(comm, sendbuf, recvbuf), info, algorithm)


def Allgather_init(comm, sendbuf, recvbuf, info=MPI.INFO_NULL, algorithm=None):
    """Persistent Allgather (see Alltoallv_init)."""
    return _init("allgather", _allgather_args(comm, sendbuf, recvbuf), info, algorithm)


def Allgatherv_init(comm, sendbuf, recvbuf, info=MPI.INFO_NULL, algorithm=None):
    """Persistent Allgatherv (see Alltoallv_init)."""
    return _init("allgatherv", _allgatherv_args(comm, sendbuf, recvbuf), info, algorithm)


def Neighbor_alltoallv_init(comm, sendbuf, recvbuf, info=MPI.INFO_NULL, algorithm=None):
    """Persistent Neighbor_alltoallv (see Alltoallv_init)."""
    return _init("neighbor_alltoallv", _neighbor_args(comm, sendbuf, recvbuf), info,
                 algorithm)
