"""mpi4py-fft's parallel FFTs (Debian's python3-mpi4py-fft), which know
nothing of xchg: their global transposes are MPI_Alltoallw calls over
subarray datatypes (mpi4py_fft.pencil.Transfer).

A 30x28x26 complex array (small shapes, uneven splits) is transformed
forward and backward 5 times with a slab decomposition and with a pencil
one (on 4 ranks a 2x2 grid; on 2 or 3 ranks the pencil grid has a side of
1). Each forward result is gathered on rank 0 and compared with numpy.fft's
serial transform of the whole array; each backward result with the input.
Then the same number of forward and backward transforms is timed without
the checks (the slowest rank's seconds). The calls are counted by wrapping Transfer.forward and Transfer.backward
(one MPI_Alltoallw each), so tests/dropin/run.sh can check that xchg served
exactly these. Rank 0 prints PASS/FAIL lines, "calls alltoall=0 alltoallv=0
allgather=0 alltoallw=N" (per rank), the seconds the transforms took, and
"mpi4pyfft: N passed, N failed".
"""
import sys
import time

import numpy as np
from mpi4py import MPI
from mpi4py_fft import PFFT, newDistArray
from mpi4py_fft import pencil

comm = MPI.COMM_WORLD
calls = 0
passed = failed = 0


def counting(method):
    def wrapped(self, *args, **kw):
        global calls
        calls += 1
        return method(self, *args, **kw)
    return wrapped


pencil.Transfer.forward = counting(pencil.Transfer.forward)
pencil.Transfer.backward = counting(pencil.Transfer.backward)


def check(name, ok):
    global passed, failed
    ok = comm.allreduce(bool(ok), op=MPI.LAND)
    if comm.rank == 0:
        print(("PASS " if ok else "FAIL ") + name, flush=True)
    passed += ok
    failed += not ok


def gathered(arr):
    """The whole distributed array on rank 0 (None elsewhere)."""
    pieces = comm.gather((arr.local_slice(), np.asarray(arr).copy()), root=0)
    if comm.rank != 0:
        return None
    whole = np.zeros(arr.global_shape, dtype=arr.dtype)
    for where, values in pieces:
        whole[where] = values
    return whole


def run(shape, slab, repeats):
    name = "slab" if slab else "pencil"
    rng = np.random.default_rng(7)
    full = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    fft = PFFT(comm, shape, axes=(0, 1, 2), dtype=np.complex128, slab=slab)
    u = newDistArray(fft, False)
    u_hat = newDistArray(fft, True)
    u[:] = full[u.local_slice()]
    expect = np.fft.fftn(full) / full.size  # mpi4py-fft normalizes forward
    ok_fwd = ok_bwd = True
    back = newDistArray(fft, False)
    for _ in range(repeats):
        u_hat = fft.forward(u, u_hat)
        whole = gathered(u_hat)
        if comm.rank == 0:
            ok_fwd = ok_fwd and np.allclose(whole, expect, rtol=1e-10, atol=1e-12)
        back = fft.backward(u_hat, back)
        ok_bwd = ok_bwd and np.allclose(back, full[u.local_slice()], rtol=1e-10, atol=1e-12)
    comm.Barrier()  # then the timed transforms, without the checks
    t0 = MPI.Wtime()
    for _ in range(repeats):
        fft.forward(u, u_hat)
        fft.backward(u_hat, back)
    seconds = comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)
    check(f"{name} {shape[0]}x{shape[1]}x{shape[2]} forward x{repeats} = numpy.fft.fftn", ok_fwd)
    check(f"{name} {shape[0]}x{shape[1]}x{shape[2]} backward x{repeats} = input", ok_bwd)
    fft.destroy()
    return seconds


def main():
    shape = tuple(int(x) for x in sys.argv[1:4]) if len(sys.argv) >= 4 else (30, 28, 26)
    repeats = int(sys.argv[4]) if len(sys.argv) >= 5 else 5
    times = {slab: run(shape, slab, repeats) for slab in (True, False)}
    if comm.rank == 0:
        print(f"calls alltoall=0 alltoallv=0 allgather=0 alltoallw={calls} (per rank)")
        print(f"seconds slab={times[True]:.6f} pencil={times[False]:.6f}")
        print(f"mpi4pyfft: {passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
