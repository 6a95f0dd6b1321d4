/* Running a flat registry algorithm on a sub-communicator (see compose.h). */
#include "compose.h"

#include <limits.h>
#include <stdlib.h>

#include "error.h"

static int to_int(int64_t v, int *out, const char *what)
{
    if (v < 0 || v > INT_MAX)
        return xchg_error(MPI_ERR_COUNT, "inner exchange: %s of %lld bytes exceeds INT_MAX", what,
                          (long long)v);
    *out = (int)v;
    return MPI_SUCCESS;
}

int xchg_inner_args(xchg_context *sub, xchg_coll coll, const void *sendbuf,
                    const int64_t *send_offsets, const int64_t *send_bytes, void *recvbuf,
                    const int64_t *recv_offsets, const int64_t *recv_bytes, xchg_args *args)
{
    int rc, *ints = NULL;
    const int n = sub->size;
    if (coll == XCHG_ALLTOALL) {
        int block = 0;
        XCHG_CHECK(to_int(send_bytes[0], &block, "block"));
        return xchg_args_alltoall(args, sendbuf, block, MPI_BYTE, recvbuf, block, MPI_BYTE,
                                  sub->comm, sub->rank, n);
    }
    XCHG_ALLOC(ints, (size_t)n * 4 * sizeof(int));
    int *scounts = ints, *sdispls = ints + n, *rcounts = ints + 2 * n, *rdispls = ints + 3 * n;
    for (int q = 0; q < n; q++) {
        XCHG_CHECK(to_int(send_bytes[q], &scounts[q], "send count"));
        XCHG_CHECK(to_int(send_offsets[q], &sdispls[q], "send displacement"));
        XCHG_CHECK(to_int(recv_bytes[q], &rcounts[q], "receive count"));
        XCHG_CHECK(to_int(recv_offsets[q], &rdispls[q], "receive displacement"));
    }
    XCHG_CHECK(xchg_args_alltoallv(args, sendbuf, scounts, sdispls, MPI_BYTE, recvbuf, rcounts,
                                   rdispls, MPI_BYTE, sub->comm, sub->rank, n));
fail:
    free(ints);
    return rc;
}

int xchg_run_inner(xchg_context *outer, xchg_context *sub, const xchg_choice *inner,
                   const void *sendbuf, const int64_t *send_offsets, const int64_t *send_bytes,
                   void *recvbuf, const int64_t *recv_offsets, const int64_t *recv_bytes)
{
    xchg_plan *plan;
    xchg_choice fitted = *inner;
    xchg_args args;
    int rc, have_args = 0;
    XCHG_CHECK(xchg_choice_fit(sub, &fitted));
    XCHG_CHECK(xchg_plan_get(sub, &fitted, &plan));
    XCHG_CHECK(xchg_inner_args(sub, inner->algo->coll, sendbuf, send_offsets, send_bytes, recvbuf,
                               recv_offsets, recv_bytes, &args));
    have_args = 1;
    XCHG_CHECK(xchg_plan_run(outer, plan, &args));
fail:
    if (have_args) xchg_args_free(&args);
    return rc;
}
