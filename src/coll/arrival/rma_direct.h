/*
 * rma_direct's private header (the algorithm: rma_direct.c; its zerocopy
 * scheme: rma_direct_zerocopy.c): the plan's windows and flags, the layout
 * of the control window, and the flag operations both schemes use.
 */
#ifndef XCHG_COLL_ARRIVAL_RMA_DIRECT_H
#define XCHG_COLL_ARRIVAL_RMA_DIRECT_H

#include <sched.h>

#include "../../core/context.h"
#include "../../core/error.h"
#include "../../core/plan.h"

typedef struct rma_state {
    int P, me;
    MPI_Comm comm;       /* the plan's communicator (progress pokes) */
    MPI_Win win;         /* control words + copy slots (MPI_Win_allocate) */
    char *base;          /* its local memory */
    int64_t slot;        /* bytes per slot; 0: no slots */
    MPI_Win dyn;         /* dynamic window for zerocopy, or MPI_WIN_NULL */
    MPI_Win user;        /* persistent zerocopy over the fixed receive buffer */
    int zerocopy_ok;     /* a zerocopy window exists (else zerocopy calls copy) */
    int64_t seq;         /* sequence number of the last round */
    int64_t seqval;      /* origin buffer of flag accumulates (flushed before return) */
    MPI_Aint myaddr;     /* origin buffer of the address puts */
    int64_t *flags;      /* [P] poll results */
    int *pending;        /* [P] peers not yet served */
    int *batch;          /* [P] peers of one batch */
    char *got;           /* [P] block received this round */
} rma_state;

/* Layout of the control window (displacement unit 1). */
#define ARRIVE_DISP(P, s) ((MPI_Aint)(s) * 8)
#define DONE_DISP(P, s) ((MPI_Aint)(P) * 8 + (MPI_Aint)(s) * 8)
#define ADDR_DISP(P, s) ((MPI_Aint)(P) * 16 + (MPI_Aint)(s) * 8)
#define CTRL_BYTES(P) (((MPI_Aint)(P) * 24 + 63) / 64 * 64)
#define SLOT_DISP(st, par, s)                                                        \
    (CTRL_BYTES((st)->P) + ((MPI_Aint)(par) * (st)->P + (s)) * (MPI_Aint)(st)->slot)

/* Nothing new yet: let other ranks' operations progress before polling again.
 * A poll of the own flags may be served by shared memory alone (Open MPI's
 * osc/sm never enters the progress engine), which would starve operations
 * of another window handled by messages (osc/pt2pt for the zerocopy
 * windows): so poke the progress engine explicitly. */
static inline int idle(const rma_state *st)
{
    int flag;
    if (xchg_task_current()) xchg_task_yield(); /* a nonblocking call: let the caller go on */
    else sched_yield();
    return MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, st->comm, &flag, MPI_STATUS_IGNORE);
}

static inline int64_t *word(rma_state *st, MPI_Aint disp) { return (int64_t *)(st->base + disp); }

/* Atomic read of the P flags at `disp` of the own window. */
static inline int read_flags(rma_state *st, MPI_Aint disp)
{
    int rc;
    XCHG_CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, st->flags, st->P, MPI_INT64_T, st->me,
                                  disp, st->P, MPI_INT64_T, MPI_NO_OP, st->win));
    XCHG_CHECK(MPI_Win_flush(st->me, st->win));
fail:
    return rc;
}

/* Poll the flags at `disp` until rank r's has reached seq. */
static inline int wait_flag(rma_state *st, MPI_Aint disp, int r, int64_t seq)
{
    int rc;
    for (;;) {
        XCHG_CHECK(read_flags(st, disp));
        if (st->flags[r] >= seq) return MPI_SUCCESS;
        XCHG_CHECK(idle(st));
    }
fail:
    return rc;
}

/* Raise flag word `disp` at each rank of batch[0..n) to st->seqval. */
static inline int raise_flags(rma_state *st, const int *batch, int n, MPI_Aint disp)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n; i++)
        XCHG_CHECK(MPI_Accumulate(&st->seqval, 1, MPI_INT64_T, batch[i], disp, 1, MPI_INT64_T,
                                  MPI_REPLACE, st->win));
    XCHG_CHECK(MPI_Win_flush_all(st->win));
fail:
    return rc;
}

/* Where the bytes of block t start on the send side (packed or the user's). */
static inline const char *send_bytes(const xchg_args *a, const char *packed, int t)
{
    if (!packed) return xchg_side_block_ptr(&a->send, t);
    return a->coll == XCHG_ALLGATHER ? packed : packed + (size_t)t * (size_t)a->uniform_bytes;
}

/* The zerocopy scheme: every block put straight into its receive buffer. */
int xchg_rma_zerocopy(xchg_context *ctx, rma_state *st, const xchg_args *a, const char *packed,
                      int aware);

#endif
