#include "exchange.h"

#include <limits.h>
#include <stdlib.h>

#include "error.h"

/* Post one block; *n counts only requests that were really posted. */
static int post_one(const xchg_args *a, int peer, int sending, int tag, MPI_Request *reqs, int *n)
{
    int rc = sending ? xchg_isend_block(a, peer, tag, &reqs[*n])
                     : xchg_irecv_block(a, peer, tag, &reqs[*n]);
    if (rc == MPI_SUCCESS) (*n)++;
    return rc;
}

int xchg_post_steps(const xchg_args *a, int first_step, int nsteps, int interleave, int tag,
                    MPI_Request *reqs, int *count)
{
    int rc = MPI_SUCCESS;
    for (int i = first_step; i < first_step + nsteps; i++) {
        int from = xchg_recv_peer(a, i);
        if (a->recv.bytes[from] > 0) XCHG_CHECK(post_one(a, from, 0, tag, reqs, count));
        if (!interleave) continue;
        int to = xchg_send_peer(a, i);
        if (a->send.bytes[to] > 0) XCHG_CHECK(post_one(a, to, 1, tag, reqs, count));
    }
    for (int i = first_step; i < first_step + nsteps && !interleave; i++) {
        int to = xchg_send_peer(a, i);
        if (a->send.bytes[to] > 0) XCHG_CHECK(post_one(a, to, 1, tag, reqs, count));
    }
fail:
    return rc;
}

int xchg_exchange_steps(const xchg_args *a, int first_step, int nsteps, int interleave, int tag,
                        MPI_Request *reqs)
{
    int rc, n = 0;
    XCHG_CHECK(xchg_post_steps(a, first_step, nsteps, interleave, tag, reqs, &n));
    XCHG_CHECK(xchg_waitall(n, reqs, MPI_STATUSES_IGNORE));
    return MPI_SUCCESS;
fail:
    /* Requests already posted must not outlive their buffers' owner. */
    xchg_waitall(n, reqs, MPI_STATUSES_IGNORE);
    return rc;
}

int xchg_run_posted(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan,
                    xchg_post_fn post)
{
    int rc, n = 0;
    size_t nbytes = 2 * (size_t)a->size * sizeof(MPI_Request);
    MPI_Request *reqs = xchg_scratch_alloc(ctx, nbytes);
    if (!reqs) return xchg_error(MPI_ERR_NO_MEM, "out of memory");
    XCHG_CHECK(post(ctx, a, plan, reqs, &n));
    XCHG_CHECK(xchg_waitall(n, reqs, MPI_STATUSES_IGNORE));
    xchg_scratch_free(ctx, reqs, nbytes);
    return MPI_SUCCESS;
fail:
    xchg_waitall(n, reqs, MPI_STATUSES_IGNORE);
    xchg_scratch_free(ctx, reqs, nbytes);
    return rc;
}

/* Next step (from *step on) whose block to/from the peer is not empty, or 0. */
static int next_step(const xchg_args *a, int *step, int sending)
{
    while (*step < a->size) {
        int s = (*step)++;
        int peer = sending ? xchg_send_peer(a, s) : xchg_recv_peer(a, s);
        int64_t bytes = sending ? a->send.bytes[peer] : a->recv.bytes[peer];
        if (bytes > 0) return s;
    }
    return 0;
}

static int post(const xchg_args *a, int step, int sending, int tag, MPI_Request *req)
{
    return sending ? xchg_isend_block(a, xchg_send_peer(a, step), tag, req)
                   : xchg_irecv_block(a, xchg_recv_peer(a, step), tag, req);
}

int xchg_sliding_window(xchg_context *ctx, const xchg_args *a, int window, int poll, int tag)
{
    /* reqs[0 .. window) are receives, reqs[window .. 2*window) sends. */
    int rc = MPI_SUCCESS, recv_step = 1, send_step = 1;
    size_t nbytes = 2 * (size_t)window * sizeof(MPI_Request);
    MPI_Request *reqs = xchg_scratch_alloc(ctx, nbytes);
    if (!reqs) return xchg_error(MPI_ERR_NO_MEM, "out of memory");
    for (int k = 0; k < 2 * window; k++) reqs[k] = MPI_REQUEST_NULL;
    for (int k = 0; k < window; k++) {
        int s = next_step(a, &recv_step, 0);
        if (s) XCHG_CHECK(post(a, s, 0, tag, &reqs[k]));
        s = next_step(a, &send_step, 1);
        if (s) XCHG_CHECK(post(a, s, 1, tag, &reqs[window + k]));
    }
    for (;;) {
        int idx = MPI_UNDEFINED, done = 0;
        if (poll) {
            while (!done) {
                XCHG_CHECK(MPI_Testany(2 * window, reqs, &idx, &done, MPI_STATUS_IGNORE));
                if (!done) xchg_task_yield(); /* inside a task: let the caller go on */
            }
        } else {
            XCHG_CHECK(xchg_waitany(2 * window, reqs, &idx, MPI_STATUS_IGNORE));
        }
        if (idx == MPI_UNDEFINED) break; /* every slot is empty: all done */
        int sending = idx >= window;
        int s = next_step(a, sending ? &send_step : &recv_step, sending);
        if (s) XCHG_CHECK(post(a, s, sending, tag, &reqs[idx]));
    }
    xchg_scratch_free(ctx, reqs, nbytes);
    return MPI_SUCCESS;
fail:
    xchg_waitall(2 * window, reqs, MPI_STATUSES_IGNORE);
    xchg_scratch_free(ctx, reqs, nbytes);
    return rc;
}

static int byte_count(int64_t bytes, const char *who, int *count)
{
    if (bytes > INT_MAX)
        return xchg_error(MPI_ERR_COUNT, "%s: a message of %lld bytes exceeds INT_MAX", who,
                          (long long)bytes);
    *count = (int)bytes;
    return MPI_SUCCESS;
}

int xchg_isend_bytes(const void *buf, int64_t bytes, int to, int tag, MPI_Comm comm,
                     MPI_Request *req, const char *who)
{
    int rc, count = 0;
    XCHG_CHECK(byte_count(bytes, who, &count));
    XCHG_CHECK(MPI_Isend(buf, count, MPI_BYTE, to, tag, comm, req));
fail:
    return rc;
}

int xchg_irecv_bytes(void *buf, int64_t bytes, int from, int tag, MPI_Comm comm,
                     MPI_Request *req, const char *who)
{
    int rc, count = 0;
    XCHG_CHECK(byte_count(bytes, who, &count));
    XCHG_CHECK(MPI_Irecv(buf, count, MPI_BYTE, from, tag, comm, req));
fail:
    return rc;
}

int xchg_tag_ub(MPI_Comm comm)
{
    int *tag_ub = NULL, found = 0;
    if (MPI_Comm_get_attr(comm, MPI_TAG_UB, &tag_ub, &found) == MPI_SUCCESS && found)
        return *tag_ub;
    return 32767;
}
