/* rma_direct's zerocopy scheme (rma_direct.c says how and when it runs). */
#include <string.h>

#include "rma_direct.h"

/* ---- zerocopy scheme --------------------------------------------------- */

/* Put my block for each rank of batch into its receive buffer (exposed in
 * `dwin` at base[t], or in the fixed window), complete, raise done[me]. */
static int zc_send_batch(rma_state *st, const xchg_args *a, const char *packed, MPI_Win dwin,
                         const int *batch, int n)
{
    int rc = MPI_SUCCESS;
    const int64_t B = a->uniform_bytes;
    if (n == 0) return MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        int t = batch[i];
        MPI_Aint disp = (MPI_Aint)st->me * (MPI_Aint)B;
        if (dwin == st->dyn) disp += *(MPI_Aint *)word(st, ADDR_DISP(st->P, t)); /* absolute address */
        XCHG_CHECK(MPI_Put(send_bytes(a, packed, t), (int)B, MPI_BYTE, t, disp, (int)B, MPI_BYTE,
                           dwin));
    }
    XCHG_CHECK(MPI_Win_flush_all(dwin));
    XCHG_CHECK(raise_flags(st, batch, n, DONE_DISP(st->P, st->me)));
fail:
    return rc;
}

int xchg_rma_zerocopy(xchg_context *ctx, rma_state *st, const xchg_args *a, const char *packed,
                      int aware)
{
    int rc = MPI_SUCCESS, P = st->P, me = st->me, attached = 0;
    const int64_t B = a->uniform_bytes;
    const int64_t seq = ++st->seq;
    st->seqval = seq;
    const int fixed = st->user != MPI_WIN_NULL;
    MPI_Win dwin = fixed ? st->user : st->dyn;
    size_t staging_bytes = 0;
    char *staging = NULL, *target;
    if (fixed || a->recv.type.contiguous) {
        target = a->recv.buf; /* block s at s*B: contiguous uniform blocks */
    } else {
        staging_bytes = (size_t)P * (size_t)B;
        staging = xchg_scratch_alloc(ctx, staging_bytes);
        if (!staging) return xchg_error(MPI_ERR_NO_MEM, "out of memory for zerocopy staging");
        target = staging;
    }
    int *all = st->pending, *batch = st->batch;
    int n_all = 0;
    for (int i = 1; i < P; i++) all[n_all++] = (me + i) % P;

    /* Arrive: expose the destination, advertise its address, raise arrive[me]. */
    if (!fixed) {
        XCHG_CHECK(MPI_Win_attach(st->dyn, target, (MPI_Aint)P * (MPI_Aint)B));
        attached = 1;
        XCHG_CHECK(MPI_Get_address(target, &st->myaddr));
        for (int i = 0; i < n_all; i++)
            XCHG_CHECK(MPI_Put(&st->myaddr, 1, MPI_AINT, all[i], ADDR_DISP(P, me), 1, MPI_AINT,
                               st->win));
        XCHG_CHECK(MPI_Win_flush_all(st->win));
    }
    XCHG_CHECK(MPI_Win_sync(dwin)); /* the user's own stores reach the public copy */
    XCHG_CHECK(raise_flags(st, all, n_all, ARRIVE_DISP(P, me)));

    if (aware) {
        /* Each sweep: write to every rank that has arrived; poll the others. */
        memset(st->got, 0, (size_t)P); /* here: served */
        int left = n_all;
        while (left > 0) {
            XCHG_CHECK(read_flags(st, ARRIVE_DISP(P, 0)));
            XCHG_CHECK(MPI_Win_sync(st->win)); /* the addresses behind the flags */
            int n = 0;
            for (int i = 0; i < n_all; i++)
                if (!st->got[all[i]] && st->flags[all[i]] >= seq) {
                    batch[n++] = all[i];
                    st->got[all[i]] = 1;
                }
            if (n == 0) {
                XCHG_CHECK(idle(st));
                continue;
            }
            XCHG_CHECK(zc_send_batch(st, a, packed, dwin, batch, n));
            left -= n;
        }
        /* Wait for every block destined here, in any order. */
        for (;;) {
            XCHG_CHECK(read_flags(st, DONE_DISP(P, 0)));
            int missing = 0;
            for (int s = 0; s < P; s++) missing += s != me && st->flags[s] < seq;
            if (!missing) break;
            XCHG_CHECK(idle(st));
        }
    } else {
        /* Baseline: rank+1, rank+2, ... in turn, waiting for each to arrive. */
        for (int i = 0; i < n_all; i++) {
            int t = all[i];
            XCHG_CHECK(wait_flag(st, ARRIVE_DISP(P, 0), t, seq));
            XCHG_CHECK(MPI_Win_sync(st->win));
            XCHG_CHECK(zc_send_batch(st, a, packed, dwin, &t, 1));
        }
        for (int i = 1; i < P; i++) {
            int s = (me - i + P) % P;
            XCHG_CHECK(wait_flag(st, DONE_DISP(P, 0), s, seq));
        }
    }
    XCHG_CHECK(MPI_Win_sync(dwin)); /* the landed blocks, visible to loads */
    if (attached) {
        attached = 0;
        XCHG_CHECK(MPI_Win_detach(st->dyn, target));
    }
    if (staging)
        for (int s = 0; s < P; s++)
            if (s != me) XCHG_CHECK(xchg_unpack_block(&a->recv, s, staging + (size_t)s * (size_t)B));
fail:
    if (attached) MPI_Win_detach(st->dyn, target);
    if (staging) xchg_scratch_free(ctx, staging, staging_bytes);
    return rc;
}

