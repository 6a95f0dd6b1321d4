"""Shared test data: dtypes, deterministic counts and filled buffers."""
import numpy as np
from mpi4py import MPI
from mpi4py.util import dtlib

RECORD = np.dtype([("a", np.int32), ("b", np.float64), ("c", np.int8)])
DTYPES = [np.int8, np.int32, np.float64, np.complex128, RECORD]
DTYPE_IDS = ["int8", "int32", "float64", "complex128", "record"]


def mpi_type(dtype):
    """The MPI datatype of a NumPy dtype (committed; built-ins as mpi4py's)."""
    dtype = np.dtype(dtype)
    if dtype.fields is None:
        return dtlib.from_numpy_dtype(dtype)
    return dtlib.from_numpy_dtype(dtype).Commit()


def count(src, dst, seed=0):
    """Elements rank src sends to rank dst: 0..4, zeros included."""
    return (3 * src + 5 * dst + seed) % 5


def filled(n, dtype, rank, salt=0):
    """An array of n values of dtype, different per rank and position."""
    dtype = np.dtype(dtype)
    raw = (np.arange(n * dtype.itemsize, dtype=np.int64) * 7 + rank * 131 + salt * 17 + 1)
    return np.frombuffer((raw % 251).astype(np.uint8).tobytes(), dtype=dtype).copy()


def sentinel(n, dtype):
    """A receive buffer of a fixed byte pattern (gaps are compared too)."""
    return np.frombuffer(np.full(n * np.dtype(dtype).itemsize, 0xAB, np.uint8).tobytes(),
                         dtype=dtype).copy()


def vector_layout(counts, gap):
    """Displacements of blocks in order, `gap` elements between them; the total."""
    displs, at = [], 0
    for c in counts:
        displs.append(at)
        at += c + gap
    return displs, at


def same_bytes(a, b):
    return a.tobytes() == b.tobytes()


def free_type(t):
    """Free a datatype made by mpi_type (predefined ones are left alone)."""
    if not t.is_predefined:
        t.Free()
