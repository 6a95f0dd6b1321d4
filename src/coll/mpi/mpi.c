/*
 * `mpi`: the MPI library's own collective (PMPI_Alltoall, PMPI_Alltoallv,
 * PMPI_Alltoallw, PMPI_Allgather), selectable like any xchg algorithm. With the drop-in
 * library it lets a user A/B any call site by environment
 * (XCHG_ALLTOALLV=mpi), and it is the reference the benchmark compares with.
 *
 * A blocking call is made where the program would have made it: on the
 * user's own communicator, not xchg's private duplicate (whose structures
 * in the library are cold where the program communicates on its own: on
 * this project's 2-core machine MPI's own 4-rank alltoall and allgather,
 * 16-256 B, read up to 1.4% slower behind xchg on the duplicate,
 * docs/results/selection/online/goal/). Its order among the collectives on
 * that communicator is the program's (a blocking call finishes xchg's
 * tasks first and completes within the call), and every rank makes the
 * same choice, so every rank calls the same collectives on it in the same
 * order; an error is the library's, raised through the communicator's
 * handler by the library itself (xchg_library_error). A nonblocking or
 * persistent call, which xchg may post later than the program made it
 * (behind its tasks), and an inner exchange of a composed algorithm stay
 * on xchg's communicators.
 * The call gets the user's buffers and datatypes; MPI_IN_PLACE is passed on
 * as MPI_IN_PLACE (xchg's copy of the send blocks is not used), except for
 * alltoallw: there the library gets xchg's copy as its send buffer, because
 * MPICH 4.0's in-place MPI_Alltoallw fails ("Message truncated") or
 * corrupts data on large non-contiguous blocks (tests/alltoallw.c).
 * alltoallv's displacements are recovered from the normalized byte offsets,
 * which are displacement * extent exactly; alltoallw's are the byte offsets
 * themselves, with the per-peer datatypes gathered into arrays.
 * A persistent request makes the library's own persistent collective at
 * init where the MPI has them (library_persistent.h: MPI-4's or Open MPI's
 * MPIX_ ones) and starts it at each start; elsewhere it posts
 * MPI_Ialltoall / MPI_Ialltoallv / MPI_Ialltoallw / MPI_Iallgather at each
 * start. Its alltoallv(w) displacements and types are computed once, at
 * init, and live in the plan (library_state). Either completes in
 * XCHG_Test / XCHG_Wait like MPI's own; in place under Open MPI the library
 * gets xchg's copy of the send blocks (see library_post).
 * Cost: whatever the MPI library does; no scratch of xchg's own except
 * 2P ints of displacements for alltoallv (and 2P datatypes for alltoallw).
 */
#include <stdlib.h>

#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../core/task.h"
#include "../../core/wait.h"
#include "library_persistent.h"

/* A persistent plan's: the library's persistent request (MPI_REQUEST_NULL:
 * none, posts instead), and alltoallv(w)'s displacements (and types) as
 * both_sides() fills them (NULL for alltoall and allgather). */
typedef struct library_state {
    MPI_Request request;
    int *displs;
} library_state;

/* What MPI_Alltoallw takes: per side P int byte displacements, then per
 * side P datatypes. [0, P) send, [P, 2P) receive displacements; the
 * datatypes follow at w_types(). */
static size_t w_bytes(int size)
{
    return 2 * (size_t)size * (sizeof(int) + sizeof(MPI_Datatype));
}
static MPI_Datatype *w_types(int *displs, int size)
{
    return (MPI_Datatype *)(void *)(displs + 2 * (size_t)size);
}

/* Element displacements of one side from its byte offsets (alltoallw: the
 * byte offsets, and each peer's datatype into types). */
static void displacements(const xchg_side *side, int size, int *displs, MPI_Datatype *types)
{
    for (int p = 0; p < size; p++) {
        const xchg_type_info *t = xchg_side_type(side, p);
        displs[p] = side->types ? (int)side->offsets[p]
                                : t->extent ? (int)(side->offsets[p] / t->extent) : 0;
        if (types) types[p] = t->type;
    }
}

/* Fill the displacements (and for alltoallw the types) of both sides into
 * `displs` (w_bytes(P) for alltoallw, 2P ints otherwise). */
static void both_sides(const xchg_args *a, int *displs)
{
    MPI_Datatype *types = a->coll == XCHG_ALLTOALLW ? w_types(displs, a->size) : NULL;
    displacements(&a->send, a->size, displs, types);
    displacements(&a->recv, a->size, displs + a->size, types ? types + a->size : NULL);
}

/* Whether the call goes to the library's alltoallv (alltoall's normalized
 * arguments describe the same call with equal counts). */
static int as_alltoallv(const xchg_args *a)
{
    if (xchg_coll_is_v(a->coll)) return 1;
#ifdef OPEN_MPI
    /* Open MPI 4.1's MPI_Alltoall (coll/tuned's Bruck, chosen for small blocks
     * at P >= 16) writes past the receive buffer when the send and receive
     * datatypes differ (vector(3,1,2,int) sent, contiguous(3,int) received:
     * 960 bytes written into 576), which corrupted the heap in our tests. Its
     * MPI_Alltoallv with equal counts is the same call and is correct. */
    if (a->coll == XCHG_ALLTOALL && !a->in_place && a->send.type.type != a->recv.type.type)
        return 1;
#endif
    return 0;
}

/* Open MPI 4.1's coll/self (every one-rank communicator) scales
 * MPI_Alltoallw's byte displacements by the extents and writes outside the
 * buffers: on one rank the own block is copied here instead. */
static int alltoallw_alone(const xchg_args *a)
{
#ifdef OPEN_MPI
    return a->coll == XCHG_ALLTOALLW && a->size == 1;
#else
    (void)a;
    return 0;
#endif
}

/* What the library is given as the send buffer (see the header). With device
 * buffers (src/core/device.c) xchg took no copy, and the library gets
 * MPI_IN_PLACE for alltoallw too (every rank is on the device, or the call
 * fails). */
static const void *library_sendbuf(const xchg_args *a)
{
    if (!a->in_place) return a->send.buf;
    return a->coll != XCHG_ALLTOALLW || a->on_device ? MPI_IN_PLACE : a->send.buf;
}

/* ... and to a nonblocking or persistent call, on host memory: Open MPI
 * 4.1's MPI_Ialltoallv with MPI_IN_PLACE hangs when most counts are zero (8
 * ranks, symmetric sparse counts; MPICH 4 is fine), so it gets xchg's copy
 * of the send blocks instead (refreshed at each start of a request). */
static const void *started_sendbuf(const xchg_args *a)
{
    const void *sendbuf = library_sendbuf(a);
#ifdef OPEN_MPI
    if (sendbuf == MPI_IN_PLACE && a->coll != XCHG_ALLGATHER && !a->on_device)
        sendbuf = a->send.buf;
#endif
    return sendbuf;
}

static int library_in_task(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan);

/* The library's result `rc` of its collective `call` on `comm`: on the
 * user's own communicator the library has raised an error itself. */
static int library_result(const xchg_context *ctx, MPI_Comm comm, int rc, const char *call)
{
    return comm != ctx->user_comm ? rc : xchg_library_result(rc, call);
}

/* The library's blocking collective, on `comm`. */
static int library_blocking(xchg_context *ctx, const xchg_args *a, MPI_Comm comm)
{
    const void *sendbuf = library_sendbuf(a);
    const xchg_side *s = &a->send, *r = &a->recv;
    int rc = MPI_SUCCESS;
    if (a->coll == XCHG_ALLTOALL && !as_alltoallv(a))
        return library_result(ctx, comm,
                              MPI_Alltoall(sendbuf, s->counts[0], s->type.type, r->buf,
                                           r->counts[0], r->type.type, comm),
                              "MPI_Alltoall");
    if (a->coll == XCHG_ALLGATHER)
        return library_result(ctx, comm,
                              MPI_Allgather(sendbuf, s->counts[0], s->type.type, r->buf,
                                            r->counts[0], r->type.type, comm),
                              "MPI_Allgather");
    size_t nbytes =
        a->coll == XCHG_ALLTOALLW ? w_bytes(a->size) : 2 * (size_t)a->size * sizeof(int);
    int *sdispls = xchg_scratch_alloc(ctx, nbytes);
    if (!sdispls) return xchg_error(MPI_ERR_NO_MEM, "mpi: out of memory");
    int *rdispls = sdispls + a->size;
    both_sides(a, sdispls);
    if (a->coll == XCHG_ALLTOALLW) {
        MPI_Datatype *types = w_types(sdispls, a->size);
        rc = library_result(ctx, comm,
                            MPI_Alltoallw(sendbuf, s->counts, sdispls, types, r->buf, r->counts,
                                          rdispls, types + a->size, comm),
                            "MPI_Alltoallw");
    } else {
        rc = library_result(ctx, comm,
                            MPI_Alltoallv(sendbuf, s->counts, sdispls, s->type.type, r->buf,
                                          r->counts, rdispls, r->type.type, comm),
                            "MPI_Alltoallv");
    }
    xchg_scratch_free(ctx, sdispls, nbytes);
    return rc;
}

/* A blocking call: on the user's own communicator where the call is the
 * user's (see the header), on xchg's where it is an inner exchange's. */
static int library_collective(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    if (alltoallw_alone(a)) return xchg_copy_self_block(a);
    if (xchg_task_current()) return library_in_task(ctx, a, plan);
    return library_blocking(ctx, a, xchg_library_comm(ctx, a));
}

/* The library's persistent collective for the plan's fixed arguments, into
 * st->request (where the MPI has them; on host memory). */
static int library_persistent(const xchg_args *a, library_state *st)
{
#ifdef XCHG_LIBRARY_INIT
    const void *sendbuf = started_sendbuf(a);
    const xchg_side *s = &a->send, *r = &a->recv;
    int *d = st->displs, rc;
    if (a->on_device || alltoallw_alone(a)) return MPI_SUCCESS;
    if (a->coll == XCHG_ALLTOALL && !as_alltoallv(a))
        rc = XCHG_LIBRARY_INIT(Alltoall)(sendbuf, s->counts[0], s->type.type, r->buf,
                                         r->counts[0], r->type.type, a->comm, MPI_INFO_NULL,
                                         &st->request);
    else if (a->coll == XCHG_ALLGATHER)
        rc = XCHG_LIBRARY_INIT(Allgather)(sendbuf, s->counts[0], s->type.type, r->buf,
                                          r->counts[0], r->type.type, a->comm, MPI_INFO_NULL,
                                          &st->request);
    else if (a->coll == XCHG_ALLTOALLW)
        rc = XCHG_LIBRARY_INIT(Alltoallw)(sendbuf, s->counts, d, w_types(d, a->size), r->buf,
                                          r->counts, d + a->size,
                                          w_types(d, a->size) + a->size, a->comm,
                                          MPI_INFO_NULL, &st->request);
    else
        rc = XCHG_LIBRARY_INIT(Alltoallv)(sendbuf, s->counts, d, s->type.type, r->buf,
                                          r->counts, d + a->size, r->type.type, a->comm,
                                          MPI_INFO_NULL, &st->request);
    if (rc != MPI_SUCCESS) st->request = MPI_REQUEST_NULL;
    return rc == MPI_SUCCESS ? rc
                             : xchg_error(rc, "mpi: the library's persistent %s failed",
                                          xchg_coll_name(a->coll));
#else
    (void)a, (void)st;
    return MPI_SUCCESS;
#endif
}

static void library_destroy(xchg_plan *plan)
{
    library_state *st = plan->state;
    if (!st) return;
    if (st->request != MPI_REQUEST_NULL) MPI_Request_free(&st->request);
    free(st->displs);
    free(st);
    plan->state = NULL;
}

/* A persistent plan: its displacements (alltoallv, alltoallw: and types)
 * and the library's persistent request. */
static int library_init(xchg_plan *plan)
{
    const xchg_args *a = plan->fixed;
    if (!a) return MPI_SUCCESS;
    library_state *st = calloc(1, sizeof *st);
    if (!st) return xchg_error(MPI_ERR_NO_MEM, "mpi: out of memory");
    st->request = MPI_REQUEST_NULL;
    plan->state = st;
    int rc = MPI_SUCCESS;
    if (as_alltoallv(a)) {
        st->displs = malloc(a->coll == XCHG_ALLTOALLW ? w_bytes(a->size)
                                                      : 2 * (size_t)a->size * sizeof(int));
        if (st->displs) both_sides(a, st->displs);
        else rc = xchg_error(MPI_ERR_NO_MEM, "mpi: out of memory");
    }
    if (rc == MPI_SUCCESS && !plan->one_start) rc = library_persistent(a, st);
    if (rc != MPI_SUCCESS) library_destroy(plan);
    return rc;
}

/* Start the library's nonblocking collective with these displacements
 * (alltoallv, alltoallw: both sides', as both_sides() fills them). */
static int post_library(const xchg_args *a, const void *sendbuf, int *displs,
                        MPI_Request *reqs, int *count)
{
    const xchg_side *s = &a->send, *r = &a->recv;
    int rc;
    *count = 0;
    if (a->coll == XCHG_ALLTOALL && !as_alltoallv(a))
        rc = MPI_Ialltoall(sendbuf, s->counts[0], s->type.type, r->buf, r->counts[0],
                           r->type.type, a->comm, &reqs[0]);
    else if (a->coll == XCHG_ALLGATHER)
        rc = MPI_Iallgather(sendbuf, s->counts[0], s->type.type, r->buf, r->counts[0],
                            r->type.type, a->comm, &reqs[0]);
    else if (!displs) /* only a persistent plan posts; it has them */
        return xchg_error(MPI_ERR_INTERN, "mpi: alltoallv posted without a persistent plan");
    else if (a->coll == XCHG_ALLTOALLW)
        rc = MPI_Ialltoallw(sendbuf, s->counts, displs, w_types(displs, a->size), r->buf,
                            r->counts, displs + a->size, w_types(displs, a->size) + a->size,
                            a->comm, &reqs[0]);
    else
        rc = MPI_Ialltoallv(sendbuf, s->counts, displs, s->type.type, r->buf, r->counts,
                            displs + a->size, r->type.type, a->comm, &reqs[0]);
    if (rc == MPI_SUCCESS) *count = 1;
    return rc;
}

static int library_post(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan,
                        MPI_Request *reqs, int *count)
{
    library_state *st = plan->state;
    *count = 0;
    if (alltoallw_alone(a)) return xchg_copy_self_block(a);
    if (st && st->request != MPI_REQUEST_NULL) { /* the library's persistent request */
        int rc = MPI_Start(&st->request);
        if (rc == MPI_SUCCESS) reqs[0] = st->request, *count = 1;
        return rc;
    }
#ifdef OPEN_MPI
    /* In place on device buffers (no copy: started_sendbuf): the blocking
     * in-place call, which completes in XCHG_Start. */
    if (a->on_device && library_sendbuf(a) == MPI_IN_PLACE && a->coll != XCHG_ALLGATHER)
        return xchg_task_current() ? library_in_task(ctx, a, plan)
                                   : library_blocking(ctx, a, a->comm);
#else
    (void)ctx;
#endif
    return post_library(a, started_sendbuf(a), st ? st->displs : NULL, reqs, count);
}

/* Inside a task (a nonblocking call): the library's nonblocking collective,
 * waited for by suspending the task. */
static int library_in_task(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    const library_state *st = plan->state;
    int *displs = st ? st->displs : NULL, count = 0, rc;
    size_t nbytes = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    if (!displs && as_alltoallv(a)) {
        nbytes = a->coll == XCHG_ALLTOALLW ? w_bytes(a->size) : 2 * (size_t)a->size * sizeof(int);
        displs = xchg_scratch_alloc(ctx, nbytes);
        if (!displs) return xchg_error(MPI_ERR_NO_MEM, "mpi: out of memory");
        both_sides(a, displs);
    }
    rc = post_library(a, started_sendbuf(a), displs, &request, &count);
    if (rc == MPI_SUCCESS && count) rc = xchg_wait(&request, MPI_STATUS_IGNORE);
    if (nbytes) xchg_scratch_free(ctx, displs, nbytes);
    return rc;
}

#define MPI_DESCRIPTOR(c)                                                            \
    {.coll = c, .name = "mpi", .summary = "the MPI library's own collective (PMPI)", \
     .init = library_init, .run = library_collective, .destroy = library_destroy,    \
     .post = library_post}
const xchg_algorithm xchg_algo_alltoallv_mpi = MPI_DESCRIPTOR(XCHG_ALLTOALLV);
const xchg_algorithm xchg_algo_alltoall_mpi = MPI_DESCRIPTOR(XCHG_ALLTOALL);
const xchg_algorithm xchg_algo_allgather_mpi = MPI_DESCRIPTOR(XCHG_ALLGATHER);
