"""mpi4py program using comm.Alltoall, comm.Alltoallv, comm.Allgather and
comm.Allgatherv on NumPy arrays; it knows nothing of xchg and runs the same with or without
libxchg-mpi.so preloaded.

Every received element is checked against its value computed from (sender,
receiver, index), for several dtypes, uneven alltoallv counts with zeros and
gaps, uneven and zero Allgatherv contributions, MPI.IN_PLACE (Allgather,
Allgatherv, Alltoall, Alltoallv), on MPI.COMM_WORLD and on a split
communicator. Rank 0 prints one PASS/FAIL line per check, the number of calls
each rank made ("calls alltoall=A alltoallv=V allgather=G allgatherv=W", per rank),
a digest of everything every rank received (identical runs give identical
digests, with or without xchg), and "mpi4py: N passed, N failed".
"""
import hashlib
import sys

import numpy as np
from mpi4py import MPI

DTYPES = [np.int32, np.int64, np.float64, np.complex128, np.uint8, np.float32]
calls = {"alltoall": 0, "alltoallv": 0, "allgather": 0, "allgatherv": 0}
passed = failed = 0
digest = hashlib.sha256()
world = MPI.COMM_WORLD


def value(src, dst, i, dtype):
    """The element i that src sends to dst, as dtype (wraps for uint8)."""
    v = np.asarray(src * 100003 + dst * 1009 + np.asarray(i) * 7 + 1, dtype=np.int64)
    if np.issubdtype(dtype, np.complexfloating):
        return (v + 1j * (-v)).astype(dtype)
    return v.astype(dtype)


def check(name, ok):
    global passed, failed
    ok = world.allreduce(bool(ok), op=MPI.LAND)
    if world.rank == 0:
        print(("PASS " if ok else "FAIL ") + name, flush=True)
    if ok:
        passed += 1
    else:
        failed += 1


def record(arr):
    digest.update(np.ascontiguousarray(arr).tobytes())


def run_alltoall(comm, tag):
    rank, size = comm.rank, comm.size
    for dtype in DTYPES:
        k = 3
        send = np.concatenate([value(rank, p, np.arange(k), dtype) for p in range(size)])
        recv = np.zeros(k * size, dtype=dtype)
        comm.Alltoall(send, recv)
        calls["alltoall"] += 1
        expect = np.concatenate([value(p, rank, np.arange(k), dtype) for p in range(size)])
        record(recv)
        check(f"{tag} Alltoall {np.dtype(dtype).name}", np.array_equal(recv, expect))
    # MPI_IN_PLACE: the blocks to send sit in the receive buffer.
    dtype = np.float64
    buf = np.concatenate([value(rank, p, np.arange(2), dtype) for p in range(size)])
    comm.Alltoall(MPI.IN_PLACE, buf)
    calls["alltoall"] += 1
    expect = np.concatenate([value(p, rank, np.arange(2), dtype) for p in range(size)])
    record(buf)
    check(f"{tag} Alltoall MPI.IN_PLACE", np.array_equal(buf, expect))


def count(src, dst, salt):
    """Uneven alltoallv counts with zeros: 0 for a third of the pairs."""
    return 0 if (src + dst + salt) % 3 == 0 else (src * 5 + dst * 3 + salt) % 7 + 1


def run_alltoallv(comm, tag):
    rank, size = comm.rank, comm.size
    for salt, dtype in enumerate(DTYPES):
        scounts = np.array([count(rank, p, salt) for p in range(size)], dtype=np.int32)
        rcounts = np.array([count(p, rank, salt) for p in range(size)], dtype=np.int32)
        # A gap of 2 elements between send blocks; receive blocks in reverse order.
        sdispls = np.zeros(size, dtype=np.int32)
        off = 0
        for p in range(size):
            sdispls[p] = off
            off += scounts[p] + 2
        send = np.zeros(off, dtype=dtype)
        for p in range(size):
            send[sdispls[p]:sdispls[p] + scounts[p]] = value(rank, p, np.arange(scounts[p]), dtype)
        rdispls = np.zeros(size, dtype=np.int32)
        off = 0
        for p in reversed(range(size)):
            rdispls[p] = off
            off += rcounts[p] + 1
        sentinel = value(999, 999, 0, dtype)
        recv = np.full(off, sentinel, dtype=dtype)
        comm.Alltoallv([send, (scounts, sdispls)], [recv, (rcounts, rdispls)])
        calls["alltoallv"] += 1
        ok = True
        for p in range(size):
            got = recv[rdispls[p]:rdispls[p] + rcounts[p]]
            ok &= np.array_equal(got, value(p, rank, np.arange(rcounts[p]), dtype))
            ok &= recv[rdispls[p] + rcounts[p]] == sentinel  # the gap is untouched
        record(recv)
        check(f"{tag} Alltoallv {np.dtype(dtype).name} (zeros, gaps)", ok)
    # All counts zero.
    zeros = np.zeros(size, dtype=np.int32)
    comm.Alltoallv([np.zeros(1), (zeros, zeros), MPI.DOUBLE], [np.zeros(1), (zeros, zeros), MPI.DOUBLE])
    calls["alltoallv"] += 1
    check(f"{tag} Alltoallv all counts zero", True)
    # MPI_IN_PLACE: symmetric counts.
    dtype = np.int64
    counts = np.array([(rank + p) % 4 + 1 for p in range(size)], dtype=np.int32)
    displs = np.concatenate([[0], np.cumsum(counts + 1)[:-1]]).astype(np.int32)
    buf = np.full(int(displs[-1] + counts[-1] + 1), -5, dtype=dtype)
    for p in range(size):
        buf[displs[p]:displs[p] + counts[p]] = value(rank, p, np.arange(counts[p]), dtype)
    comm.Alltoallv(MPI.IN_PLACE, [buf, (counts, displs), MPI.INT64_T])
    calls["alltoallv"] += 1
    ok = all(np.array_equal(buf[displs[p]:displs[p] + counts[p]],
                            value(p, rank, np.arange(counts[p]), dtype)) for p in range(size))
    record(buf)
    check(f"{tag} Alltoallv MPI.IN_PLACE", ok)


def run_allgather(comm, tag):
    rank, size = comm.rank, comm.size
    for dtype in DTYPES:
        send = value(rank, 0, np.arange(5), dtype)
        recv = np.zeros(5 * size, dtype=dtype)
        comm.Allgather(send, recv)
        calls["allgather"] += 1
        expect = np.concatenate([value(p, 0, np.arange(5), dtype) for p in range(size)])
        record(recv)
        check(f"{tag} Allgather {np.dtype(dtype).name}", np.array_equal(recv, expect))
    buf = np.zeros(4 * size, dtype=np.float64)
    buf[4 * rank:4 * rank + 4] = value(rank, 1, np.arange(4), np.float64)
    comm.Allgather(MPI.IN_PLACE, buf)
    calls["allgather"] += 1
    expect = np.concatenate([value(p, 1, np.arange(4), np.float64) for p in range(size)])
    record(buf)
    check(f"{tag} Allgather MPI.IN_PLACE", np.array_equal(buf, expect))


def run_allgatherv(comm, tag):
    """Rank p contributes (p % 3) * 2 elements (some none), blocks in reverse
    rank order with a gap of one element after each."""
    rank, size = comm.rank, comm.size
    counts = [(p % 3) * 2 for p in range(size)]
    displs, at = [0] * size, 0
    for p in reversed(range(size)):
        displs[p] = at
        at += counts[p] + 1
    for dtype in DTYPES:
        send = value(rank, 2, np.arange(counts[rank]), dtype)
        recv = np.zeros(at, dtype=dtype)
        comm.Allgatherv(send, [recv, (counts, displs)])
        calls["allgatherv"] += 1
        ok = all(np.array_equal(recv[displs[p]:displs[p] + counts[p]],
                                value(p, 2, np.arange(counts[p]), dtype)) and
                 recv[displs[p] + counts[p]] == 0 for p in range(size))
        record(recv)
        check(f"{tag} Allgatherv {np.dtype(dtype).name}", ok)
    buf = np.zeros(at, dtype=np.float64)
    buf[displs[rank]:displs[rank] + counts[rank]] = value(rank, 3, np.arange(counts[rank]),
                                                          np.float64)
    comm.Allgatherv(MPI.IN_PLACE, [buf, (counts, displs)])
    calls["allgatherv"] += 1
    ok = all(np.array_equal(buf[displs[p]:displs[p] + counts[p]],
                            value(p, 3, np.arange(counts[p]), np.float64)) for p in range(size))
    record(buf)
    check(f"{tag} Allgatherv MPI.IN_PLACE", ok)


def main():
    comms = [("world", world)]
    if world.size >= 3:
        comms.append(("split", world.Split(world.rank % 2, -world.rank)))
    for tag, comm in comms:
        run_alltoall(comm, tag)
        run_alltoallv(comm, tag)
        run_allgather(comm, tag)
        run_allgatherv(comm, tag)
    digests = world.gather(digest.hexdigest(), root=0)
    if world.rank == 0:
        print("calls " + " ".join(f"{k}={v}" for k, v in calls.items()) + " (per rank, rank 0)")
        print("digest " + hashlib.sha256("".join(digests).encode()).hexdigest())
        print(f"mpi4py: {passed} passed, {failed} failed", flush=True)
    for tag, comm in comms[1:]:
        comm.Free()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
