"""Errors: xchg's messages as exceptions, bad buffers refused before MPI."""
import numpy as np
import pytest
from mpi4py import MPI

import xchg
from helpers import RECORD


def test_unknown_algorithm_lists_valid_ones(comm):
    with pytest.raises(xchg.Error) as info:
        xchg.set_algorithm(comm, "alltoallv", "nosuch")
    assert "valid choices" in str(info.value) and "parlogna" in str(info.value)
    assert info.value.Get_error_class() == MPI.ERR_ARG
    assert isinstance(info.value, MPI.Exception)


def test_bad_parameter(comm):
    with pytest.raises(xchg.Error, match="radix"):
        xchg.set_algorithm(comm, "alltoallv", "parlogna:radix=1")
    with pytest.raises(xchg.Error, match="no parameter"):
        xchg.set_algorithm(comm, "alltoallv", "parlogna:nosuch=3")


def test_unknown_collective(comm):
    with pytest.raises(xchg.Error, match="unknown collective"):
        xchg.get_algorithm(comm, "reduce")
    with pytest.raises(xchg.Error, match="unknown collective"):
        xchg.algorithms("reduce")


def test_init_with_unknown_algorithm(comm):
    size = comm.Get_size()
    with pytest.raises(xchg.Error, match="valid choices"):
        xchg.Alltoall_init(comm, np.zeros(size), np.zeros(size), algorithm="nosuch")


def test_errors_are_fatal_comm_still_raises(comm):
    """A communicator whose handler aborts: xchg's call still raises."""
    c = comm.Dup()
    c.Set_errhandler(MPI.ERRORS_ARE_FATAL)
    with pytest.raises(xchg.Error):
        xchg.set_algorithm(c, "alltoall", "nosuch")
    assert c.Get_errhandler() == MPI.ERRORS_ARE_FATAL
    c.Free()


def test_buffer_too_small(comm):
    size = comm.Get_size()
    with pytest.raises(ValueError, match="does not fit"):
        xchg.Alltoallv(comm, [np.zeros(size), [1] * size, MPI.DOUBLE],
                       [np.zeros(size - 1 if size > 1 else 0), [1] * size, MPI.DOUBLE])
    with pytest.raises(ValueError, match="does not fit"):
        xchg.Alltoallv(comm, [np.zeros(size), ([1] * size, [size] * size), MPI.DOUBLE],
                       [np.zeros(size), [1] * size, MPI.DOUBLE])
    with pytest.raises(ValueError, match="does not fit"):
        xchg.Alltoall(comm, [np.zeros(2 * size), 2, MPI.DOUBLE],
                      [np.zeros(2 * size - 1), 2, MPI.DOUBLE])
    with pytest.raises(ValueError, match="does not fit"):
        xchg.Allgather(comm, [np.zeros(4), 4, MPI.DOUBLE], [np.zeros(4 * size), 5, MPI.DOUBLE])


def test_bad_counts(comm):
    size = comm.Get_size()
    with pytest.raises(ValueError, match="expecting %d counts" % size):
        xchg.Alltoallv(comm, [np.zeros(9), [1] * (size + 1)], [np.zeros(9), [1] * size])
    with pytest.raises(ValueError, match="negative count"):
        xchg.Alltoallv(comm, [np.zeros(9), [-1] * size], [np.zeros(9), [1] * size])


def test_non_contiguous_refused(comm):
    size = comm.Get_size()
    strided = np.zeros((2 * size, 3))[:, ::2]  # every other column
    with pytest.raises(BufferError, match="not contiguous"):
        xchg.Alltoall(comm, strided, np.zeros(size))
    with pytest.raises(BufferError, match="not contiguous"):
        xchg.Alltoallv(comm, np.zeros(4 * size), strided)


def test_read_only_receive_refused(comm):
    size = comm.Get_size()
    rbuf = np.zeros(size)
    rbuf.setflags(write=False)
    with pytest.raises(BufferError, match="read-only"):
        xchg.Alltoall(comm, np.zeros(size), rbuf)
    ro_send = np.zeros(size)
    ro_send.setflags(write=False)
    xchg.Alltoall(comm, ro_send, np.zeros(size))  # a read-only send buffer is fine


def test_type_needed_for_records(comm):
    size = comm.Get_size()
    with pytest.raises(TypeError, match="from_numpy_dtype"):
        xchg.Alltoall(comm, np.zeros(size, RECORD), np.zeros(size, RECORD))


def test_malformed_specs(comm):
    with pytest.raises(TypeError):
        xchg.Alltoall(comm, [1, 2, 3], np.zeros(comm.Get_size()))
    with pytest.raises(ValueError, match="2 to 4 items"):
        xchg.Alltoall(comm, [np.zeros(1), 1, 0, MPI.DOUBLE, 5], np.zeros(comm.Get_size()))
    with pytest.raises(TypeError, match="not supported"):
        xchg.Alltoall(comm, [None, MPI.DOUBLE], np.zeros(comm.Get_size()))


def test_request_misuse(comm):
    size = comm.Get_size()
    req = xchg.Alltoall_init(comm, np.zeros(size), np.zeros(size), algorithm="pairwise")
    req.Start()
    with pytest.raises(xchg.Error):
        req.Start()  # already active
    req.Wait()
    req.Free()
    with pytest.raises(ValueError, match="freed"):
        req.Start()


def test_request_after_comm_freed(comm):
    """Freeing the communicator first: the request refuses to run, Free() drops it."""
    c = comm.Dup()
    size = c.Get_size()
    req = xchg.Alltoall_init(c, np.zeros(size), np.zeros(size))
    c.Free()
    with pytest.raises(ValueError, match="communicator has been freed"):
        req.Start()
    req.Free()
