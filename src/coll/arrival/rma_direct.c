/*
 * One-sided Direct alltoall and allgather, process-arrival-pattern (PAP)
 * aware, after Sections 4.1-4.3 (Fig. 5) of
 *   Y. Qian, A. Afsahi. Process Arrival Pattern Aware Alltoall and Allgather
 *   on InfiniBand Clusters. International Journal of Parallel Programming
 *   39(4):473-493, 2011 (journal version of their EuroPVM/MPI 2009 paper on
 *   the alltoall).
 * with MPI-3 RMA (passive target) in place of InfiniBand verbs.
 *
 * Every rank writes its block for rank t straight into t's memory with
 * MPI_Put. The paper's point is the order: a rank first writes to the ranks
 * it knows have arrived at the call and never waits on one late rank while
 * another is ready. Two schemes (parameter `scheme`; `auto` picks copy for
 * blocks of at most `threshold` bytes):
 *
 *   copy:     each rank owns, in a window allocated at plan init, an
 *             intermediate slot of `threshold` bytes per source, twice
 *             (parity of the sequence number). A source puts its block into
 *             its slot at t and then raises done[source] at t to the call's
 *             sequence number: that landing is the only signal (no arrival
 *             message, as in the paper); a rank whose data has landed here
 *             has arrived. Arrival aware: first write to the ranks whose data
 *             has landed already, then to the rest; copy blocks out of the
 *             slots in the order they land. Blocks larger than a slot go in
 *             rounds of `threshold` bytes, each round a sequence number.
 *   zerocopy: the destination is the receive buffer itself. A blocking call
 *             attaches it to a dynamic window (created at plan init) with
 *             MPI_Win_attach, publishes its address in every peer's addr[]
 *             slot and then raises arrive[me] at every peer to the sequence
 *             number (the address advertisement is the arrival signal, as in
 *             the paper); MPI_Win_detach at the end. A persistent plan whose
 *             receive buffers are contiguous on every rank exposes the fixed
 *             receive buffer with MPI_Win_create at init instead (no attach,
 *             no address). Arrival aware: each sweep reads all arrive[]
 *             flags and writes to every rank that has arrived; a late rank is
 *             polled, never waited on while another is ready.
 *   aware=0:  the same code without the arrival test: the paper's
 *             non-PAP-aware Direct baseline. Write to rank+1, rank+2, ... in
 *             order (zerocopy: wait for each one's address in turn), then
 *             wait for rank-1, rank-2, ... in order.
 *
 * All data moves as MPI_BYTE: a non-contiguous send type is packed into
 * scratch first; a non-contiguous receive type receives into packed staging
 * (the copy slots, or under zerocopy a staging buffer attached in place of
 * the receive buffer) and is unpacked at the end. MPI_IN_PLACE is resolved
 * by xchg_args (the blocks to send are copied out first).
 *
 * Cost (blocks of m bytes, P ranks, everyone on time): P-1 puts of m bytes,
 * two flush rounds (data, then flags) and P-1 flag accumulates per batch;
 * zerocopy adds P-1 address puts, P-1 arrival accumulates, two more flush
 * rounds, and MPI_Win_attach/detach; copy adds one local copy of P*m bytes
 * and ceil(m/threshold) rounds. Polling is a P-element MPI_Get_accumulate
 * (MPI_NO_OP) on the own window plus a flush, per sweep.
 * Memory held by the plan: a window of 3*P 8-byte words (arrive, done, addr),
 * plus 2*P*threshold bytes of slots unless scheme=zerocopy; a dynamic window
 * unless scheme=copy. Scratch per call: the packed send blocks (only for a
 * non-contiguous send type) and a packed receive staging (only for a
 * non-contiguous receive type under zerocopy): P*m bytes each.
 *
 * Why the synchronization is correct (separate and unified memory models):
 *  - Every rank holds MPI_Win_lock_all on its windows for the plan's
 *    lifetime (unlocked in destroy), so every access is in a passive-target
 *    epoch; completion is only ever by MPI_Win_flush(_all).
 *  - Flags (arrive[], done[]) are written only with MPI_Accumulate(
 *    MPI_REPLACE) and read only with MPI_Get_accumulate(MPI_NO_OP) on the own
 *    rank: accumulates on the same location with the same basic datatype are
 *    element-wise atomic, so a flag is never read torn, in either model, and
 *    a poll makes MPI progress (MPICH and Open MPI's pt2pt component need it).
 *  - A flag is raised only after MPI_Win_flush of the data (and of the
 *    address, for arrive[]) it announces: the data is complete in the
 *    target's window (public copy) before the flag can be seen. The reader,
 *    after seeing the flag, calls MPI_Win_sync on the window holding the data
 *    before any load: in the separate model that makes the public copy
 *    visible in the private one, in the unified model it is the memory
 *    barrier. A receive buffer exposed in a window is also MPI_Win_sync'ed
 *    at the start of a call, so the user's own stores between calls reach the
 *    public copy before peers write.
 *  - Flags carry the call's sequence number (plan-wide, counted identically
 *    on every rank since every rank runs the same calls of a plan in order)
 *    and are tested with >=, so a flag left from an earlier call can never
 *    pass for this one.
 *  - Reuse: a rank can write call k+1 into my memory only after it finished
 *    call k, which needs my call-k data, which I send before I wait for my
 *    incoming data of call k. So under copy, a source may be one call ahead
 *    of me: it writes the other parity's slot, never the one I am reading;
 *    it cannot be two ahead (that needs my k+1 data). Under zerocopy it
 *    cannot write my receive buffer before my arrive[] for k+1 says so.
 *  - At return every put and accumulate this rank issued is flushed (remote
 *    completion, hence also local: the send buffer may be reused), and every
 *    block destined to this rank has landed (its done flag seen). Nothing is
 *    left in flight; the dynamic window is detached only then.
 * Deadlock freedom: the aware schemes never wait on a particular rank; the
 * baseline waits on ranks one at a time but every rank announces (zerocopy)
 * or sends everything (copy) before it waits for anything it receives, and
 * a rank announces before it waits on anyone, so no cycle of waits forms.
 *
 * Files: this one (plan, copy scheme, run, descriptor); rma_direct.h (the
 * plan's state, the window layout, the flag operations); the zerocopy
 * scheme in rma_direct_zerocopy.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rma_direct.h"

enum { PARAM_SCHEME, PARAM_THRESHOLD, PARAM_AWARE };
enum { SCHEME_COPY, SCHEME_ZEROCOPY, SCHEME_AUTO };
static const char *const scheme_names[] = {"copy", "zerocopy", "auto", NULL};

static int scheme_of(const xchg_plan *plan, int64_t bytes)
{
    int s = (int)plan->choice.value[PARAM_SCHEME];
    if (s == SCHEME_AUTO) s = bytes <= plan->choice.value[PARAM_THRESHOLD] ? SCHEME_COPY
                                                                            : SCHEME_ZEROCOPY;
    return s;
}

static void destroy(xchg_plan *plan)
{
    rma_state *st = plan->state;
    if (!st) return;
    if (st->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(st->win);
        MPI_Win_free(&st->win);
    }
    if (st->dyn != MPI_WIN_NULL) {
        MPI_Win_unlock_all(st->dyn);
        MPI_Win_free(&st->dyn);
    }
    if (st->user != MPI_WIN_NULL) {
        MPI_Win_unlock_all(st->user);
        MPI_Win_free(&st->user);
    }
    free(st->flags);
    free(st->pending);
    free(st->batch);
    free(st->got);
    free(st);
    plan->state = NULL;
}

static int init(xchg_plan *plan)
{
    xchg_context *ctx = plan->ctx;
    int rc = MPI_SUCCESS, P = ctx->size;
    rma_state *st;
    XCHG_ALLOC(st, sizeof *st);
    memset(st, 0, sizeof *st);
    st->win = st->dyn = st->user = MPI_WIN_NULL;
    plan->state = st;
    st->P = P;
    st->me = ctx->rank;
    st->comm = ctx->comm;
    if (P == 1) return MPI_SUCCESS; /* only the own block: no windows */
    XCHG_ALLOC(st->flags, (size_t)P * sizeof *st->flags);
    XCHG_ALLOC(st->pending, (size_t)P * sizeof *st->pending);
    XCHG_ALLOC(st->batch, (size_t)P * sizeof *st->batch);
    XCHG_ALLOC(st->got, (size_t)P);
    const int scheme = (int)plan->choice.value[PARAM_SCHEME];
    /* Zerocopy windows first: an MPI may not offer them (Open MPI 4.1 with
     * only the sm and rdma osc components and no RDMA-capable BTL refuses
     * MPI_Win_create and MPI_Win_create_dynamic). Every rank agrees on the
     * outcome; without them zerocopy calls take the copy path. */
    if (scheme != SCHEME_COPY) {
        const xchg_args *f = plan->fixed;
        if (f && f->uniform_bytes > 0 && scheme_of(plan, f->uniform_bytes) == SCHEME_ZEROCOPY) {
            /* A persistent plan whose destination is known: expose the fixed
             * receive buffer once, if it is contiguous on every rank. */
            int ok = f->recv.type.contiguous;
            XCHG_CHECK(xchg_allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ctx->comm));
            if (ok && MPI_Win_create(f->recv.buf, (MPI_Aint)P * f->uniform_bytes, 1,
                                     MPI_INFO_NULL, ctx->comm, &st->user) != MPI_SUCCESS)
                st->user = MPI_WIN_NULL;
            ok = st->user != MPI_WIN_NULL;
            XCHG_CHECK(xchg_allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ctx->comm));
            if (!ok && st->user != MPI_WIN_NULL) XCHG_CHECK(MPI_Win_free(&st->user));
            if (ok) XCHG_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, st->user));
        }
        if (st->user == MPI_WIN_NULL) {
            int ok = MPI_Win_create_dynamic(MPI_INFO_NULL, ctx->comm, &st->dyn) == MPI_SUCCESS;
            if (!ok) st->dyn = MPI_WIN_NULL;
            XCHG_CHECK(xchg_allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ctx->comm));
            if (!ok && st->dyn != MPI_WIN_NULL) XCHG_CHECK(MPI_Win_free(&st->dyn));
            if (ok) XCHG_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, st->dyn));
        }
    }
    st->zerocopy_ok = st->user != MPI_WIN_NULL || st->dyn != MPI_WIN_NULL;
    if (scheme != SCHEME_COPY && !st->zerocopy_ok && st->me == 0 && getenv("XCHG_VERBOSE"))
        fprintf(stderr, "xchg: rma_direct: this MPI creates no window over user memory "
                        "(MPI_Win_create/MPI_Win_create_dynamic refused): zerocopy blocks "
                        "take the copy scheme\n");
    st->slot = scheme == SCHEME_ZEROCOPY && st->zerocopy_ok ? 0
                                                            : plan->choice.value[PARAM_THRESHOLD];
    /* Rounded up to a multiple of 64 bytes: MPICH 4.0.2 (ch4:ucx) misplaces
     * the data of a shared-memory window whose local size is not a multiple
     * of 16 (seen at P = 3: puts landed beside the slots they addressed). */
    MPI_Aint size = (CTRL_BYTES(P) + 2 * (MPI_Aint)P * (MPI_Aint)st->slot + 63) / 64 * 64;
    XCHG_CHECK(MPI_Win_allocate(size, 1, MPI_INFO_NULL, ctx->comm, &st->base, &st->win));
    memset(st->base, 0, (size_t)P * 24); /* before any peer can write: the barrier below */
    XCHG_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, st->win));
    XCHG_CHECK(MPI_Win_sync(st->win));
    /* Every rank's flags are zeroed before anyone's first call writes them. */
    XCHG_CHECK(xchg_barrier(ctx->comm));
    return MPI_SUCCESS;
fail:
    destroy(plan);
    return rc;
}

/* ---- copy scheme ------------------------------------------------------- */

/* Put chunk [off, off+len) of my block for each rank of batch into my slot
 * there, complete the puts, then raise done[me] at each. */
static int copy_send_batch(rma_state *st, const xchg_args *a, const char *packed, int64_t off,
                           int64_t len, int par, const int *batch, int n)
{
    int rc = MPI_SUCCESS;
    if (n == 0) return MPI_SUCCESS;
    for (int i = 0; i < n; i++)
        XCHG_CHECK(MPI_Put(send_bytes(a, packed, batch[i]) + off, (int)len, MPI_BYTE, batch[i],
                           SLOT_DISP(st, par, st->me), (int)len, MPI_BYTE, st->win));
    for (int i = 0; i < n; i++) XCHG_CHECK(MPI_Win_flush(batch[i], st->win));
    XCHG_CHECK(raise_flags(st, batch, n, DONE_DISP(st->P, st->me)));
fail:
    return rc;
}

/* Copy the landed chunk of source s out of its slot. */
static int copy_out(rma_state *st, const xchg_args *a, char *staging, int64_t off, int64_t len,
                    int par, int s)
{
    const char *src = st->base + SLOT_DISP(st, par, s);
    char *dst = staging ? staging + (size_t)s * (size_t)a->uniform_bytes + off
                        : xchg_side_block_ptr(&a->recv, s) + off;
    memcpy(dst, src, (size_t)len);
    return MPI_SUCCESS;
}

static int copy_round(rma_state *st, const xchg_args *a, const char *packed, char *staging,
                      int64_t off, int64_t len, int aware)
{
    int rc = MPI_SUCCESS, P = st->P, me = st->me;
    const int64_t seq = ++st->seq;
    const int par = (int)(seq & 1);
    st->seqval = seq;
    memset(st->got, 0, (size_t)P);
    st->got[me] = 1;
    int remaining = P - 1;
    if (aware) {
        /* Who has arrived: whose data for this round has landed here. */
        XCHG_CHECK(read_flags(st, DONE_DISP(P, 0)));
        int n = 0, m = 0;
        for (int i = 1; i < P; i++) {
            int t = (me + i) % P;
            if (st->flags[t] >= seq) st->batch[n++] = t;
            else st->pending[m++] = t;
        }
        XCHG_CHECK(copy_send_batch(st, a, packed, off, len, par, st->batch, n));
        XCHG_CHECK(copy_send_batch(st, a, packed, off, len, par, st->pending, m));
        /* Take blocks out in the order they land. */
        for (;;) {
            int found = 0;
            XCHG_CHECK(MPI_Win_sync(st->win));
            for (int s = 0; s < P; s++)
                if (!st->got[s] && st->flags[s] >= seq) {
                    XCHG_CHECK(copy_out(st, a, staging, off, len, par, s));
                    st->got[s] = 1;
                    remaining--;
                    found = 1;
                }
            if (remaining == 0) break;
            if (!found) XCHG_CHECK(idle(st));
            XCHG_CHECK(read_flags(st, DONE_DISP(P, 0)));
        }
    } else {
        int n = 0;
        for (int i = 1; i < P; i++) st->batch[n++] = (me + i) % P;
        XCHG_CHECK(copy_send_batch(st, a, packed, off, len, par, st->batch, n));
        for (int i = 1; i < P; i++) {
            int s = (me - i + P) % P;
            XCHG_CHECK(wait_flag(st, DONE_DISP(P, 0), s, seq));
            XCHG_CHECK(MPI_Win_sync(st->win));
            XCHG_CHECK(copy_out(st, a, staging, off, len, par, s));
        }
    }
fail:
    return rc;
}

static int copy_scheme(xchg_context *ctx, rma_state *st, const xchg_args *a, const char *packed,
                       int aware)
{
    int rc = MPI_SUCCESS;
    const int64_t B = a->uniform_bytes;
    size_t staging_bytes = 0;
    char *staging = NULL;
    if (!a->recv.type.contiguous) {
        staging_bytes = (size_t)st->P * (size_t)B;
        staging = xchg_scratch_alloc(ctx, staging_bytes);
        if (!staging) return xchg_error(MPI_ERR_NO_MEM, "out of memory for the copy staging");
    }
    for (int64_t off = 0; off < B; off += st->slot) {
        int64_t len = B - off < st->slot ? B - off : st->slot;
        XCHG_CHECK(copy_round(st, a, packed, staging, off, len, aware));
    }
    if (staging)
        for (int s = 0; s < st->P; s++)
            if (s != st->me)
                XCHG_CHECK(xchg_unpack_block(&a->recv, s, staging + (size_t)s * (size_t)B));
fail:
    if (staging) xchg_scratch_free(ctx, staging, staging_bytes);
    return rc;
}

static int rma_direct(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    rma_state *st = plan->state;
    const int64_t B = a->uniform_bytes;
    int rc = MPI_SUCCESS;
    if (a->size == 1 || B == 0) return xchg_copy_self_block(a);
    const int aware = plan->choice.value[PARAM_AWARE] != 0;
    /* A non-contiguous send type is packed once; all data moves as bytes. */
    size_t packed_bytes = 0;
    char *packed = NULL;
    if (!a->send.type.contiguous) {
        int nblocks = a->coll == XCHG_ALLGATHER ? 1 : a->size;
        packed_bytes = (size_t)nblocks * (size_t)B;
        packed = xchg_scratch_alloc(ctx, packed_bytes);
        if (!packed) return xchg_error(MPI_ERR_NO_MEM, "out of memory for the packed send blocks");
        for (int t = 0; t < nblocks; t++)
            if (nblocks == 1 || t != a->rank)
                XCHG_CHECK(xchg_pack_block(&a->send, nblocks == 1 ? a->rank : t,
                                           packed + (size_t)t * (size_t)B));
    }
    if (scheme_of(plan, B) == SCHEME_COPY || !st->zerocopy_ok) XCHG_CHECK(copy_scheme(ctx, st, a, packed, aware));
    else XCHG_CHECK(xchg_rma_zerocopy(ctx, st, a, packed, aware));
    XCHG_CHECK(xchg_copy_self_block(a));
fail:
    if (packed) xchg_scratch_free(ctx, packed, packed_bytes);
    return rc;
}

#define RMA_DIRECT_DESCRIPTOR(coll_)                                                  \
    {                                                                                 \
        .coll = coll_, .name = "rma_direct",                                          \
        .summary = "one-sided Direct, arrival-pattern aware (aware=0: the baseline)", \
        .reference = "Qian & Afsahi 2011", .init = init, .init_blocks = 1, .run = rma_direct,           \
        .destroy = destroy, .num_params = 3,                                          \
        .params = {                                                                   \
            [PARAM_SCHEME] = {.name = "scheme", .kind = XCHG_PARAM_ENUM,              \
                              .def = SCHEME_AUTO, .names = scheme_names,              \
                              .help = "copy: intermediate slots; zerocopy: into the " \
                                      "receive buffer; auto: copy up to threshold"},  \
            [PARAM_THRESHOLD] = {.name = "threshold", .kind = XCHG_PARAM_INT,         \
                                 .def = 8192, .min = 1024, .max = 1 << 24,              \
                                 .help = "bytes per block: copy slot size and the "   \
                                         "auto switch to zerocopy"},                  \
            [PARAM_AWARE] = {.name = "aware", .kind = XCHG_PARAM_INT, .def = 1,       \
                             .min = 0, .max = 1,                                      \
                             .help = "1: write to arrived ranks first; 0: fixed "     \
                                     "order (non-aware baseline)"}},                  \
        .is_flat = 0,                                                                 \
    }

const xchg_algorithm xchg_algo_alltoall_rma_direct = RMA_DIRECT_DESCRIPTOR(XCHG_ALLTOALL);
const xchg_algorithm xchg_algo_allgather_rma_direct = RMA_DIRECT_DESCRIPTOR(XCHG_ALLGATHER);
