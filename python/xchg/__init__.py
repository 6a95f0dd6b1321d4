"""xchg for mpi4py: all-to-all collectives with selectable algorithms.

    from mpi4py import MPI
    import xchg
    xchg.set_algorithm(comm, "alltoallv", "parlogna:radix=4")
    xchg.Alltoallv(comm, [sbuf, scounts, sdispls, MPI.DOUBLE],
                         [rbuf, rcounts, rdispls, MPI.DOUBLE])

Buffers follow mpi4py's conventions (xchg._messages describes them); the
library is xchg's C library, compiled into xchg._xchg against mpi4py's MPI.
Errors raise xchg.Error (a subclass of MPI.Exception) with xchg's message.
"""
import atexit as _atexit
import weakref as _weakref

from . import _mpi

_mpi.load_extension_mpi()  # before mpi4py.MPI: mpi4py then binds to that MPI

from mpi4py import MPI  # noqa: E402

from . import _collectives, _xchg  # noqa: E402
from ._collectives import (Allgather, Allgatherv, Alltoall, Alltoallv, Alltoallw,  # noqa: E402
                           Neighbor_alltoallv)

_mpi.check_same_mpi(_xchg.MPI_FAMILY, MPI.Get_library_version())

__version__ = "%d.%d.%d" % (_xchg.VERSION_MAJOR, _xchg.VERSION_MINOR, _xchg.VERSION_PATCH)

COLLECTIVES = ("alltoall", "alltoallv", "alltoallw", "allgather", "neighbor_alltoallv",
               "allgatherv")
Request = _xchg.Request


class Error(MPI.Exception):
    """An error reported by xchg: the MPI error class and xchg's message."""

    def __init__(self, error_class, message):
        MPI.Exception.__init__(self, error_class)
        self.message = message

    def __str__(self):
        return self.message

    def __repr__(self):
        return "xchg.Error(%d, %r)" % (self.Get_error_class(), self.message)


_xchg.set_error_class(Error)

# Persistent requests still alive at exit are freed before mpi4py finalizes
# MPI (atexit runs handlers in reverse order of registration, and mpi4py was
# imported first); one freed later is dropped without calling MPI.
_live_requests = _weakref.WeakSet()


def _track(request):
    _live_requests.add(request)
    return request


@_atexit.register
def _free_live_requests():
    if MPI.Is_initialized() and not MPI.Is_finalized():
        for request in list(_live_requests):
            try:
                request.Free()
            except MPI.Exception:
                pass


def Alltoallv_init(comm, sendbuf, recvbuf, info=MPI.INFO_NULL, algorithm=None):
    return _track(_collectives.Alltoallv_init(comm, sendbuf, recvbuf, info, algorithm))


def Alltoallw_init(comm, sendbuf, recvbuf, info=MPI.INFO_NULL, algorithm=None):
    return _track(_collectives.Alltoallw_init(comm, sendbuf, recvbuf, info, algorithm))


def Alltoall_init(comm, sendbuf, recvbuf, info=MPI.INFO_NULL, algorithm=None):
    return _track(_collectives.Alltoall_init(comm, sendbuf, recvbuf, info, algorithm))


def Allgather_init(comm, sendbuf, recvbuf, info=MPI.INFO_NULL, algorithm=None):
    return _track(_collectives.Allgather_init(comm, sendbuf, recvbuf, info, algorithm))


def Allgatherv_init(comm, sendbuf, recvbuf, info=MPI.INFO_NULL, algorithm=None):
    return _track(_collectives.Allgatherv_init(comm, sendbuf, recvbuf, info, algorithm))


def Neighbor_alltoallv_init(comm, sendbuf, recvbuf, info=MPI.INFO_NULL, algorithm=None):
    return _track(_collectives.Neighbor_alltoallv_init(comm, sendbuf, recvbuf, info,
                                                       algorithm))


for _f in (Alltoallv_init, Alltoallw_init, Alltoall_init, Allgather_init, Allgatherv_init,
           Neighbor_alltoallv_init):
    _f.__doc__ = getattr(_collectives, _f.__name__).__doc__


def set_algorithm(comm, collective, selection):
    """Choose the algorithm of `collective` on `comm` ("name" or
    "name:param=value,..."); None or "" removes the choice. Call it on every
    rank alike (the first xchg call on a communicator is collective)."""
    _xchg.set_algorithm(comm, collective, selection or "")


def get_algorithm(comm, collective, last_used=False, bytes_per_peer=0):
    """The full selection string `collective` on `comm` would use now (for
    blocks of `bytes_per_peer` bytes), or, with last_used=True, the one its
    last call used ("" if never called)."""
    return _xchg.get_algorithm(comm, collective, bool(last_used), int(bytes_per_peer))


def algorithms(collective=None):
    """The registry: for one collective a list of {"name", "summary",
    "reference", "hierarchical", "params", "params_text"}, each parameter
    {"name", "kind" ("integer", "name" or "algorithm"), "default", "min",
    "max" (None: unbounded, "P": the communicator size), "names" (the
    values of a name or algorithm parameter, an integer's special values),
    "description" ("batch=32 [1..P]"), "help"}; without a collective a dict
    of those lists for every collective."""
    if collective is not None:
        return _xchg.algorithms(collective)
    return {c: _xchg.algorithms(c) for c in COLLECTIVES}


def select(collective, nbytes, comm=None, ranks=None, ranks_per_node=None, peers=0,
           pattern=None, predict=(), top=10):
    """What selection chooses for `collective` with blocks of `nbytes` bytes
    (alltoallv: the busiest rank's mean block), and why: on `comm` (its
    topology; XCHG_Comm_set_algorithm and the environment count, as for a
    call), or for `ranks` ranks on nodes of `ranks_per_node` on any machine
    (a rule of the tuning file, else the cost model). `peers`: non-empty
    blocks per rank of a sparse alltoallv; `pattern`: neighbor_alltoallv's
    (remote_msgs, local_msgs, remote_bytes, local_bytes, remote_nodes).
    Returns {"selection", "why", "reason", "ranks", "nodes", "min_node_size",
    "max_node_size", "model_bytes", "candidates", "predict", "ranking"}:
    "predict" maps each selection of `predict` to the model's time in us
    (None: unmodelled; "error ..." when it cannot run there), "ranking"
    lists the model's `top` cheapest candidates as (selection, us, latency,
    overhead, bandwidth, copy)."""
    if comm is None and (ranks is None or ranks_per_node is None):
        raise ValueError("select() needs comm, or ranks and ranks_per_node")
    if pattern is not None:
        pattern = tuple(int(v) for v in pattern)
    return _xchg.select_case(comm, collective, int(ranks or 0), int(ranks_per_node or 0),
                             int(nbytes), int(peers), pattern, list(predict), int(top))


def topology(comm):
    """The nodes of `comm` as xchg sees them (real, or virtual from
    XCHG_VIRTUAL_NODES): {"nodes": [[ranks of node 0], ...], "virtual",
    "block"}. Collective on the first xchg call on `comm`."""
    return _xchg.topology(comm)


def check_algorithm(comm, collective, selection):
    """(True, the full selection as it runs on `comm`) or (False, why it
    cannot run there); xchg.Error when `selection` does not parse."""
    return _xchg.check_algorithm(comm, collective, selection)


__all__ = ["Alltoallv", "Alltoallw", "Alltoall", "Allgather", "Allgatherv",
           "Neighbor_alltoallv", "Alltoallv_init", "Alltoallw_init", "Alltoall_init",
           "Allgather_init", "Allgatherv_init", "Neighbor_alltoallv_init", "Request",
           "Error", "set_algorithm", "get_algorithm", "algorithms", "select", "topology",
           "check_algorithm", "COLLECTIVES"]
