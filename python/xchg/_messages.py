"""Buffer specifications in mpi4py's conventions, parsed and checked.

A message is a buffer, or a list/tuple of 2 to 4 items, as in mpi4py:

* vector calls (Alltoallv, Neighbor_alltoallv, Allgatherv's receive side),
  one block per peer::

    buf                       counts split evenly, type inferred
    [buf, TYPE]               [buf, counts]          [buf, (counts, displs)]
    [buf, counts, TYPE]       [buf, (counts, displs), TYPE]
    [buf, counts, displs, TYPE]

  counts: a sequence (one per block) or one integer for every block;
  displs: a sequence, one integer d (block i at i*d), or None (packed).

* Alltoallw, one block per peer, each with its own datatype and a
  displacement in BYTES (as mpi4py and MPI say)::

    [buf, counts, displs, types]    [buf, (counts, displs), types]

  counts and displs: sequences (or one integer for every block); types: a
  sequence of MPI.Datatype (or one for every block).

* block calls (Alltoall, Allgather, Allgatherv's send side)::

    buf  [buf, TYPE]  [buf, count]  [buf, (count, displ)]  [buf, count, TYPE]
    [buf, (count, displ), TYPE]  [buf, count, displ, TYPE]

TYPE is an MPI.Datatype or a format string of mpi4py's type table ("d",
"i4"); without one it is inferred from the buffer's format as mpi4py does
(NumPy record dtypes need an explicit type, e.g.
mpi4py.util.dtlib.from_numpy_dtype(dtype)).

Differences from mpi4py, all stricter: every block must lie inside its
buffer, receive buffers must be writable, buffers must be contiguous, and
MPI.BOTTOM / None buffers are refused. These are checked here, before any
MPI call: BufferError (not contiguous, read-only), ValueError (sizes),
TypeError (malformed specification).
"""
import numpy as np
from mpi4py import MPI

_INT = np.intc
_INT_MIN, _INT_MAX = int(np.iinfo(_INT).min), int(np.iinfo(_INT).max)


def _is_datatype(obj):
    return isinstance(obj, (MPI.Datatype, str))


def _is_integral(obj):
    return isinstance(obj, (int, np.integer)) and not isinstance(obj, bool)


def _datatype(spec, view, obj):
    """The MPI datatype: given, looked up by name, or inferred from the buffer."""
    if isinstance(spec, MPI.Datatype):
        if spec == MPI.DATATYPE_NULL:
            raise ValueError("message: datatype is MPI.DATATYPE_NULL")
        return spec
    if spec is None:
        dtype = getattr(obj, "dtype", None)
        spec = dtype.char if dtype is not None else view.format
        if spec not in MPI._typedict and dtype is not None:
            spec = dtype.str[1:] if dtype.str[0] in "<>|=" else dtype.str
        if spec[:1] in "@=":
            spec = spec[1:]
    try:
        return MPI._typedict[spec]
    except KeyError:
        raise TypeError("message: cannot infer an MPI datatype for format %r; pass one "
                        "(for a NumPy record dtype: mpi4py.util.dtlib.from_numpy_dtype)"
                        % (spec,)) from None


def _buffer(obj, writable):
    """A memoryview of obj, refused unless contiguous (and writable if asked)."""
    if obj is None or obj is MPI.BOTTOM:
        raise TypeError("message: None and MPI.BOTTOM buffers are not supported")
    try:
        view = memoryview(obj)
    except TypeError:
        raise TypeError("message: expecting a buffer (e.g. a NumPy array), got %s"
                        % type(obj).__name__) from None
    if not view.contiguous:
        raise BufferError("message: buffer is not contiguous (pass "
                          "numpy.ascontiguousarray(a), or a copy)")
    if writable and view.readonly:
        raise BufferError("message: receive buffer is read-only")
    return view


def _unpack(msg, vector):
    """Split msg into (buf, counts, displs, type) following mpi4py."""
    if isinstance(msg, (list, tuple)):
        items = list(msg)
        counts = displs = dtype = None
        seq = (tuple,) if vector else (tuple, list)
        if len(items) == 2:
            buf, counts = items
            if _is_datatype(counts):
                counts, dtype = None, counts
            elif isinstance(counts, seq):
                counts, displs = _pair(counts)
        elif len(items) == 3:
            buf, counts, dtype = items
            if isinstance(counts, seq):
                counts, displs = _pair(counts)
        elif len(items) == 4:
            buf, counts, displs, dtype = items
        else:
            raise ValueError("message: expecting 2 to 4 items, got %d" % len(items))
        if dtype is not None and not _is_datatype(dtype):
            raise TypeError("message: expecting an MPI datatype, got %r" % (dtype,))
        return buf, counts, displs, dtype
    return msg, None, None, None


def _pair(item):
    if len(item) != 2:
        raise ValueError("message: expecting (counts, displs), got %d items" % len(item))
    return item[0], item[1]


def _int_array(value, blocks, what):
    """value as a contiguous C-int array of `blocks` entries (checked)."""
    arr = value if isinstance(value, np.ndarray) else np.asarray(value)
    if arr.ndim != 1 or arr.shape[0] != blocks:
        raise ValueError("message: expecting %d %s, got %s" % (blocks, what, arr.shape[0]
                         if arr.ndim == 1 else "shape %s" % (arr.shape,)))
    if arr.dtype == _INT:
        return np.ascontiguousarray(arr)
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError("message: %s must be integers" % what)
    if arr.size and (arr.min() < _INT_MIN or arr.max() > _INT_MAX):
        raise OverflowError("message: %s do not fit in a C int" % what)
    return arr.astype(_INT)


class Message:
    """A parsed message: the buffer and its C arguments for xchg."""

    __slots__ = ("buf", "counts", "displs", "datatype")

    def __init__(self, buf, counts, displs, datatype):
        self.buf, self.counts, self.displs, self.datatype = buf, counts, displs, datatype


def _check_bounds(view, datatype, counts, displs):
    """Every block with a non-zero count lies inside the buffer."""
    lb, extent = datatype.Get_extent()
    tlb, textent = datatype.Get_true_extent()
    c = counts.astype(np.int64)
    first = displs.astype(np.int64) * extent + tlb
    last = first + (c - 1) * extent + textent
    bad = (c < 0) | ((c > 0) & ((first < 0) | (last > view.nbytes)))
    if bad.any():
        i = int(np.argmax(bad))
        if c[i] < 0:
            raise ValueError("message: negative count %d" % c[i])
        raise ValueError("message: block %d (count %d, displacement %d, extent %d) does "
                         "not fit in the buffer of %d bytes"
                         % (i, counts[i], displs[i], extent, view.nbytes))


def vector_message(msg, blocks, writable):
    """Parse a vector message of `blocks` blocks (Alltoallv and the like)."""
    buf, counts, displs, dtype = _unpack(msg, vector=True)
    view = _buffer(buf, writable)
    datatype = _datatype(dtype, view, buf)
    if counts is None:
        lb, extent = datatype.Get_extent()
        if extent <= 0 or view.nbytes % extent:
            raise ValueError("message: cannot infer counts: buffer of %d bytes, datatype "
                             "extent %d" % (view.nbytes, extent))
        n = view.nbytes // extent
        counts = [n // blocks + (n % blocks > i) for i in range(blocks)] if blocks else []
    elif _is_integral(counts):
        counts = [int(counts)] * blocks
    counts = _int_array(counts, blocks, "counts")
    if displs is None:
        displs = np.concatenate(([0], np.cumsum(counts, dtype=np.int64)[:-1])) \
            if blocks else []
    elif _is_integral(displs):
        displs = [int(displs) * i for i in range(blocks)]
    displs = _int_array(displs, blocks, "displacements")
    _check_bounds(view, datatype, counts, displs)
    return Message(buf, counts, displs, datatype)


class WMessage:
    """A parsed Alltoallw message: the buffer, counts, byte displacements and
    the Fortran handles of the datatypes (C-int arrays), and the Datatype
    objects themselves (kept alive with the message)."""

    __slots__ = ("buf", "counts", "displs", "handles", "datatypes")

    def __init__(self, buf, counts, displs, handles, datatypes):
        self.buf, self.counts, self.displs = buf, counts, displs
        self.handles, self.datatypes = handles, datatypes


def w_message(msg, blocks, writable):
    """Parse an Alltoallw message of `blocks` blocks; every non-empty block
    must lie inside the buffer (its own datatype's true extent from its byte
    displacement)."""
    if not isinstance(msg, (list, tuple)) or len(msg) not in (3, 4):
        raise TypeError("message: Alltoallw expects [buf, counts, displs, types] or "
                        "[buf, (counts, displs), types]")
    if len(msg) == 4:
        buf, counts, displs, types = msg
    else:
        buf, pair, types = msg
        counts, displs = _pair(pair)
    view = _buffer(buf, writable)
    if _is_integral(counts):
        counts = [int(counts)] * blocks
    if _is_integral(displs):
        displs = [int(displs)] * blocks
    counts = _int_array(counts, blocks, "counts")
    displs = _int_array(displs, blocks, "displacements")
    if isinstance(types, MPI.Datatype):
        types = [types] * blocks
    types = list(types)
    if len(types) != blocks:
        raise ValueError("message: expecting %d datatypes, got %d" % (blocks, len(types)))
    for i, t in enumerate(types):
        if not isinstance(t, MPI.Datatype):
            raise TypeError("message: datatype %d is %r, not an MPI.Datatype" % (i, t))
        c = int(counts[i])
        if c < 0:
            raise ValueError("message: negative count %d" % c)
        if c == 0 or t == MPI.DATATYPE_NULL:
            continue  # an empty block; a null type with a count is xchg's error
        lb, extent = t.Get_extent()
        tlb, textent = t.Get_true_extent()
        first = int(displs[i]) + tlb
        last = first + (c - 1) * extent + textent
        if first < 0 or last > view.nbytes:
            raise ValueError("message: block %d (count %d, displacement %d bytes, extent %d) "
                             "does not fit in the buffer of %d bytes"
                             % (i, c, displs[i], extent, view.nbytes))
    handles = _int_array([t.py2f() for t in types], blocks, "datatype handles")
    return WMessage(buf, counts, displs, handles, types)


def block_message(msg, blocks, writable):
    """Parse a block message: `blocks` blocks of one count (0: the whole buffer)."""
    buf, count, displ, dtype = _unpack(msg, vector=False)
    view = _buffer(buf, writable)
    datatype = _datatype(dtype, view, buf)
    displ = 0 if displ is None else displ
    if not _is_integral(displ) or displ < 0:
        raise ValueError("message: displacement must be a non-negative integer, got %r"
                         % (displ,))
    if count is None:
        lb, extent = datatype.Get_extent()
        nbytes = view.nbytes - displ * extent
        if extent <= 0 or nbytes < 0 or nbytes % extent:
            raise ValueError("message: cannot infer count: %d bytes, datatype extent %d"
                             % (nbytes, extent))
        n = nbytes // extent
        if blocks > 1 and n % blocks:
            raise ValueError("message: cannot infer count: %d entries are not a multiple "
                             "of %d blocks" % (n, blocks))
        count = n // max(blocks, 1)
    if not _is_integral(count):
        raise TypeError("message: count must be an integer, got %r" % (count,))
    blocks = max(blocks, 1)
    counts = _int_array([int(count) * blocks], 1, "count")
    _check_bounds(view, datatype, counts, _int_array([displ], 1, "displacement"))
    return Message(buf, _int_array([count], 1, "count"), _int_array([displ], 1, "displ"),
                   datatype)
