/*
 * Shared-memory and one-sided Direct alltoall and allgather, process-arrival-
 * pattern aware, after Sections 4.4-4.5 (Figs. 6 and 7) of
 *   Y. Qian, A. Afsahi. Process Arrival Pattern Aware Alltoall and Allgather
 *   on InfiniBand Clusters. International Journal of Parallel Programming
 *   39(4):473-493, 2011.
 * with MPI-3 shared-memory windows inside a node and RMA between nodes.
 *
 * Nodes are the context's topology (virtual nodes included: every node's
 * ranks must share memory, which holds for virtual nodes on one host); the
 * master of a node is its local rank 0. Per node, the master's segment of a
 * window from MPI_Win_allocate_shared holds, twice (parity of the sequence
 * number): the gather area G (every local rank's chunks, laid out by
 * destination node so that the part for node j is contiguous), the scatter
 * area S (the chunks from every source node for this node's ranks) and the
 * flags gathered[local] and ready[source node]. Masters have a window of
 * their own (MPI_Win_allocate over the masters) with a slot per source node.
 *   Phase 1: each rank copies its chunks into G and raises gathered[me]; the
 *            master waits for all of them (cannot be arrival aware: it needs
 *            every local block).
 *   Phase 2: masters exchange as rma_direct's copy scheme: first to the
 *            masters whose data has already landed here (they have arrived),
 *            then to the rest; each source's data, as it lands, is copied into
 *            S and ready[source] is raised at once (aware=1). The own node's
 *            part goes from G to S directly.
 *   Phase 3: every rank copies its chunks out of S source node by source
 *            node, as each ready[] flag rises (aware=1).
 *   aware=0 (Shm_Direct, the baseline): masters send to every other master in
 *            order, wait for all, fill S, and only then raise the ready flags;
 *            ranks wait for all of them before copying out.
 * Blocks larger than `chunk` bytes go in rounds of `chunk` bytes of every
 * block (each round a sequence number). Data moves as bytes: a non-contiguous
 * send type is packed first, a non-contiguous receive type is received into a
 * packed staging and unpacked at the end. MPI_IN_PLACE is resolved by
 * xchg_args.
 *
 * Cost per round (chunk c, node size n, N nodes): alltoall: one copy of P*c
 * bytes into G per rank, N-1 puts of n*n_j*c bytes per master, one copy into
 * S per received byte, one copy of P*c out per rank; allgather: c in, n*c per
 * put, P*c out. Memory held: the node window 2*(n*P + P*n)*c bytes (alltoall;
 * allgather 2*(n + P)*c) on the master, the masters' window 2*N*nmax*nmax*c
 * (allgather 2*N*nmax*c);
 * flags. Scratch: packed send blocks / receive staging for non-contiguous
 * types only.
 *
 * Why the synchronization is correct (separate and unified memory models):
 *  - Both windows are under MPI_Win_lock_all for the plan's lifetime.
 *  - Flags are only written with MPI_Accumulate(MPI_REPLACE) and read with
 *    MPI_Get_accumulate(MPI_NO_OP): atomic per element in both models.
 *  - Data in the shared window is written with plain stores by the rank that
 *    owns the region in that round, followed by MPI_Win_sync, and only then
 *    is the flag raised; a reader loads only after it saw the flag atomically
 *    and called MPI_Win_sync. MPI_Win_sync is the memory barrier of the
 *    unified model and synchronizes the copies of the separate one; this is
 *    the standard's own pattern for shared-memory windows. Between masters,
 *    data is MPI_Put and MPI_Win_flush'ed before the flag (see rma_direct.c).
 *  - Flags carry sequence numbers, compared with >=: stale flags never pass.
 *  - Reuse (double buffering by parity): a local rank writes G of round k+2
 *    only after it finished round k+1, which needs ready[] of k+1, which its
 *    master raises only after it finished round k (all puts out of G of round
 *    k flushed). The master writes S of round k+2 only after phase 1 of round
 *    k+2, i.e. after every local rank raised gathered[] for k+2, which they
 *    do only after they finished reading S of round k. Master slots: as in
 *    rma_direct's copy scheme, a source master can be one round ahead, never
 *    two.
 *  - At return everything this rank issued is flushed and every chunk for it
 *    has been copied out.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/context.h"
#include "../../core/error.h"
#include "../../core/plan.h"

enum { PARAM_CHUNK, PARAM_AWARE };

typedef struct shm_state {
    int P, me, node, local, n, N, nmax, is_master, gather;
    const xchg_topology *topo;
    MPI_Comm comm;            /* progress pokes */
    xchg_context *node_ctx;   /* this node's ranks, by local rank */
    xchg_context *master_ctx; /* the masters, by node (masters only) */
    MPI_Win nwin;             /* shared window on node_ctx->comm */
    char *nbase;              /* the master's segment, mapped here */
    MPI_Win mwin;             /* masters' window (masters only) */
    char *mbase;
    int64_t chunk, seq, seqval;
    int64_t *flags;           /* [max(n, N)] poll results */
    char *got;                /* [N] */
    int *batch;               /* [N] */
    MPI_Aint g_bytes, s_bytes, slot_bytes; /* per parity */
} shm_state;

/* Node window layout (master's segment, displacement unit 1). */
#define FLAG_BYTES(st) ((((MPI_Aint)(st)->n + (st)->N) * 8 + 63) / 64 * 64)
#define GATHERED_DISP(st, l) ((MPI_Aint)(l) * 8)
#define READY_DISP(st, j) (((MPI_Aint)(st)->n + (j)) * 8)
#define G_DISP(st, par) (FLAG_BYTES(st) + (MPI_Aint)(par) * (st)->g_bytes)
#define S_DISP(st, par) (FLAG_BYTES(st) + 2 * (st)->g_bytes + (MPI_Aint)(par) * (st)->s_bytes)
/* Masters' window: done[N] flags, then slots [parity][source node]. */
#define MDONE_DISP(st, j) ((MPI_Aint)(j) * 8)
#define MSLOT_DISP(st, par, j)                                                       \
    (((MPI_Aint)(st)->N * 8 + 63) / 64 * 64 +                                        \
     ((MPI_Aint)(par) * (st)->N + (j)) * (st)->slot_bytes)

static int nsize(const shm_state *st, int j) { return st->topo->node_size[j]; }
static int nfirst(const shm_state *st, int j) { return st->topo->node_first[j]; }

/* Bytes node k sends node j per round, and where they sit in k's G. */
static MPI_Aint msg_bytes(const shm_state *st, int k, int j, int64_t c)
{
    return (MPI_Aint)nsize(st, k) * (st->gather ? 1 : nsize(st, j)) * c;
}
static MPI_Aint g_region(const shm_state *st, int j, int64_t c)
{
    return st->gather ? 0 : (MPI_Aint)st->n * nfirst(st, j) * c;
}
/* Where source node k's part sits in S of node j (j = this node). */
static MPI_Aint s_region(const shm_state *st, int k, int64_t c)
{
    return (MPI_Aint)nfirst(st, k) * (st->gather ? 1 : st->n) * c;
}

static int idle(const shm_state *st)
{
    int flag;
    if (xchg_task_current()) xchg_task_yield(); /* a nonblocking call: let the caller go on */
    else sched_yield();
    return MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, st->comm, &flag, MPI_STATUS_IGNORE);
}

static int read_flags(shm_state *st, MPI_Win win, int target, MPI_Aint disp, int count)
{
    int rc;
    XCHG_CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, st->flags, count, MPI_INT64_T, target,
                                  disp, count, MPI_INT64_T, MPI_NO_OP, win));
    XCHG_CHECK(MPI_Win_flush(target, win));
fail:
    return rc;
}

static int raise_flag(shm_state *st, MPI_Win win, int target, MPI_Aint disp)
{
    int rc;
    XCHG_CHECK(MPI_Accumulate(&st->seqval, 1, MPI_INT64_T, target, disp, 1, MPI_INT64_T,
                              MPI_REPLACE, win));
    XCHG_CHECK(MPI_Win_flush(target, win));
fail:
    return rc;
}

static void destroy(xchg_plan *plan)
{
    shm_state *st = plan->state;
    if (!st) return;
    if (st->mwin != MPI_WIN_NULL) {
        MPI_Win_unlock_all(st->mwin);
        MPI_Win_free(&st->mwin);
    }
    if (st->nwin != MPI_WIN_NULL) {
        MPI_Win_unlock_all(st->nwin);
        MPI_Win_free(&st->nwin);
    }
    xchg_context_inner_free(st->master_ctx);
    xchg_context_inner_free(st->node_ctx);
    free(st->flags);
    free(st->got);
    free(st->batch);
    free(st);
    plan->state = NULL;
}

static int init(xchg_plan *plan)
{
    xchg_context *ctx = plan->ctx;
    int rc = MPI_SUCCESS;
    shm_state *st;
    XCHG_ALLOC(st, sizeof *st);
    memset(st, 0, sizeof *st);
    st->nwin = st->mwin = MPI_WIN_NULL;
    plan->state = st;
    const xchg_topology *t = &ctx->topo;
    st->topo = t;
    st->P = ctx->size;
    st->me = ctx->rank;
    st->comm = ctx->comm;
    st->gather = plan->choice.algo->coll == XCHG_ALLGATHER;
    st->chunk = plan->choice.value[PARAM_CHUNK];
    if (st->P == 1) return MPI_SUCCESS;
    st->node = t->node_of_rank[st->me];
    st->local = t->local_rank_of[st->me];
    st->n = t->node_size[st->node];
    st->N = t->num_nodes;
    st->is_master = st->local == 0;
    for (int j = 0; j < st->N; j++)
        if (t->node_size[j] > st->nmax) st->nmax = t->node_size[j];
    int m = st->n > st->N ? st->n : st->N;
    XCHG_ALLOC(st->flags, (size_t)m * sizeof *st->flags);
    XCHG_ALLOC(st->got, (size_t)st->N);
    XCHG_ALLOC(st->batch, (size_t)st->N * sizeof *st->batch);
    XCHG_CHECK(xchg_context_inner(ctx, st->node, st->local, &st->node_ctx));
    XCHG_CHECK(xchg_context_inner(ctx, st->is_master ? 0 : MPI_UNDEFINED, st->node,
                                  &st->master_ctx));
    const int64_t c = st->chunk;
    st->g_bytes = (MPI_Aint)st->n * (st->gather ? 1 : st->P) * c;
    st->s_bytes = (MPI_Aint)st->P * (st->gather ? 1 : st->n) * c;
    /* The same on every master: senders compute displacements at the target. */
    st->slot_bytes = (MPI_Aint)st->nmax * (st->gather ? 1 : st->nmax) * c;
    /* Rounded to 64 bytes (MPICH 4.0.2: see rma_direct.c). */
    MPI_Aint nsz = st->is_master ? (FLAG_BYTES(st) + 2 * st->g_bytes + 2 * st->s_bytes + 63) / 64 * 64
                                 : 0;
    char *mine;
    XCHG_CHECK(MPI_Win_allocate_shared(nsz, 1, MPI_INFO_NULL, st->node_ctx->comm, &mine,
                                       &st->nwin));
    MPI_Aint qsz;
    int qdu;
    XCHG_CHECK(MPI_Win_shared_query(st->nwin, 0, &qsz, &qdu, &st->nbase));
    if (st->is_master) memset(st->nbase, 0, (size_t)FLAG_BYTES(st));
    XCHG_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, st->nwin));
    XCHG_CHECK(MPI_Win_sync(st->nwin));
    if (st->is_master) {
        MPI_Aint msz = (MSLOT_DISP(st, 2, 0) + 63) / 64 * 64;
        XCHG_CHECK(MPI_Win_allocate(msz, 1, MPI_INFO_NULL, st->master_ctx->comm, &st->mbase,
                                    &st->mwin));
        memset(st->mbase, 0, (size_t)st->N * 8);
        XCHG_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, st->mwin));
        XCHG_CHECK(MPI_Win_sync(st->mwin));
    }
    XCHG_CHECK(xchg_barrier(ctx->comm)); /* every flag zeroed before any call */
    return MPI_SUCCESS;
fail:
    destroy(plan);
    return rc;
}

/* Bytes [off, off+c) of block t on the send side. */
static const char *send_chunk(const xchg_args *a, const char *packed, int t, int64_t off)
{
    if (!packed) return xchg_side_block_ptr(&a->send, t) + off;
    return (a->coll == XCHG_ALLGATHER ? packed : packed + (size_t)t * (size_t)a->uniform_bytes) +
           off;
}

static char *recv_chunk(const xchg_args *a, char *staging, int s, int64_t off)
{
    if (!staging) return xchg_side_block_ptr(&a->recv, s) + off;
    return staging + (size_t)s * (size_t)a->uniform_bytes + off;
}

/* Phase 3 for source node k: copy this rank's chunks out of S. */
static void copy_out(shm_state *st, const xchg_args *a, char *staging, const char *S, int k,
                     int64_t off, int64_t c)
{
    const char *base = S + s_region(st, k, c);
    for (int l = 0; l < nsize(st, k); l++) {
        int src = xchg_rank_on_node(st->topo, k, l);
        if (src == st->me) continue; /* the own block: copied at the end */
        const char *from = st->gather ? base + (size_t)l * c
                                      : base + ((size_t)l * st->n + st->local) * c;
        memcpy(recv_chunk(a, staging, src, off), from, (size_t)c);
    }
}

/* Master: put G's part for each node of batch into its master's slot. */
static int master_send(shm_state *st, const char *G, const int *batch, int nb, int par, int64_t c)
{
    int rc = MPI_SUCCESS;
    if (nb == 0) return MPI_SUCCESS;
    for (int i = 0; i < nb; i++) {
        int j = batch[i];
        MPI_Aint len = msg_bytes(st, st->node, j, c);
        XCHG_CHECK(MPI_Put(G + g_region(st, j, c), (int)len, MPI_BYTE, j,
                           MSLOT_DISP(st, par, st->node), (int)len, MPI_BYTE, st->mwin));
    }
    XCHG_CHECK(MPI_Win_flush_all(st->mwin));
    for (int i = 0; i < nb; i++)
        XCHG_CHECK(MPI_Accumulate(&st->seqval, 1, MPI_INT64_T, batch[i], MDONE_DISP(st, st->node),
                                  1, MPI_INT64_T, MPI_REPLACE, st->mwin));
    XCHG_CHECK(MPI_Win_flush_all(st->mwin));
fail:
    return rc;
}

/* Master: source node k's data of this round is in its slot: into S. */
static int master_receive(shm_state *st, char *S, int par, int k, int64_t c, int raise)
{
    int rc = MPI_SUCCESS;
    memcpy(S + s_region(st, k, c), st->mbase + MSLOT_DISP(st, par, k),
           (size_t)msg_bytes(st, k, st->node, c));
    if (raise) {
        XCHG_CHECK(MPI_Win_sync(st->nwin));
        XCHG_CHECK(raise_flag(st, st->nwin, 0, READY_DISP(st, k)));
    }
fail:
    return rc;
}

static int master_phase2(shm_state *st, char *G, char *S, int par, int64_t c, int aware)
{
    int rc = MPI_SUCCESS, N = st->N, me = st->node, left = N - 1;
    const int64_t seq = st->seq;
    /* The own node's part: G to S directly. */
    memcpy(S + s_region(st, me, c), G + g_region(st, me, c), (size_t)msg_bytes(st, me, me, c));
    if (aware) {
        XCHG_CHECK(MPI_Win_sync(st->nwin));
        XCHG_CHECK(raise_flag(st, st->nwin, 0, READY_DISP(st, me)));
    }
    memset(st->got, 0, (size_t)N);
    st->got[me] = 1;
    if (aware) {
        XCHG_CHECK(read_flags(st, st->mwin, me, MDONE_DISP(st, 0), N));
        int nb = 0, nr = 0; /* the masters that have arrived, then the rest */
        for (int i = 1; i < N; i++) {
            int j = (me + i) % N;
            if (st->flags[j] >= seq) st->batch[nb++] = j;
        }
        XCHG_CHECK(master_send(st, G, st->batch, nb, par, c));
        for (int i = 1; i < N; i++) {
            int j = (me + i) % N;
            if (st->flags[j] < seq) st->batch[nr++] = j;
        }
        XCHG_CHECK(master_send(st, G, st->batch, nr, par, c));
        while (left > 0) {
            int found = 0;
            XCHG_CHECK(MPI_Win_sync(st->mwin));
            for (int k = 0; k < N; k++)
                if (!st->got[k] && st->flags[k] >= seq) {
                    XCHG_CHECK(master_receive(st, S, par, k, c, 1));
                    st->got[k] = 1;
                    left--;
                    found = 1;
                }
            if (left == 0) break;
            if (!found) XCHG_CHECK(idle(st));
            XCHG_CHECK(read_flags(st, st->mwin, me, MDONE_DISP(st, 0), N));
        }
    } else {
        int nb = 0;
        for (int i = 1; i < N; i++) st->batch[nb++] = (me + i) % N;
        XCHG_CHECK(master_send(st, G, st->batch, nb, par, c));
        for (int i = 1; i < N; i++) {
            int k = (me - i + N) % N;
            for (;;) {
                XCHG_CHECK(read_flags(st, st->mwin, me, MDONE_DISP(st, 0), N));
                if (st->flags[k] >= seq) break;
                XCHG_CHECK(idle(st));
            }
            XCHG_CHECK(MPI_Win_sync(st->mwin));
            XCHG_CHECK(master_receive(st, S, par, k, c, 0));
        }
        /* Shm_Direct: one release after everything is in S. */
        XCHG_CHECK(MPI_Win_sync(st->nwin));
        for (int k = 0; k < N; k++) XCHG_CHECK(raise_flag(st, st->nwin, 0, READY_DISP(st, k)));
    }
fail:
    return rc;
}

static int one_round(shm_state *st, const xchg_args *a, const char *packed, char *staging,
                     int64_t off, int64_t c, int aware)
{
    int rc = MPI_SUCCESS, N = st->N;
    const int64_t seq = ++st->seq;
    const int par = (int)(seq & 1);
    st->seqval = seq;
    char *G = st->nbase + G_DISP(st, par), *S = st->nbase + S_DISP(st, par);
    /* Phase 1: my chunks into G, by destination node. */
    if (st->gather) {
        memcpy(G + (size_t)st->local * c, send_chunk(a, packed, st->me, off), (size_t)c);
    } else {
        for (int j = 0; j < N; j++) {
            char *region = G + g_region(st, j, c) + (size_t)st->local * nsize(st, j) * c;
            for (int mm = 0; mm < nsize(st, j); mm++)
                memcpy(region + (size_t)mm * c,
                       send_chunk(a, packed, xchg_rank_on_node(st->topo, j, mm), off), (size_t)c);
        }
    }
    XCHG_CHECK(MPI_Win_sync(st->nwin));
    XCHG_CHECK(raise_flag(st, st->nwin, 0, GATHERED_DISP(st, st->local)));
    if (st->is_master) {
        for (;;) { /* Phase 1 is not arrival aware: every local block is needed */
            XCHG_CHECK(read_flags(st, st->nwin, 0, GATHERED_DISP(st, 0), st->n));
            int missing = 0;
            for (int l = 0; l < st->n; l++) missing += st->flags[l] < seq;
            if (!missing) break;
            XCHG_CHECK(idle(st));
        }
        XCHG_CHECK(MPI_Win_sync(st->nwin));
        XCHG_CHECK(master_phase2(st, G, S, par, c, aware));
    }
    /* Phase 3: copy out, source node by source node as they become ready. */
    memset(st->got, 0, (size_t)N);
    int left = N;
    if (!aware) {
        for (;;) {
            XCHG_CHECK(read_flags(st, st->nwin, 0, READY_DISP(st, 0), N));
            int missing = 0;
            for (int k = 0; k < N; k++) missing += st->flags[k] < seq;
            if (!missing) break;
            XCHG_CHECK(idle(st));
        }
    } else {
        XCHG_CHECK(read_flags(st, st->nwin, 0, READY_DISP(st, 0), N));
    }
    for (;;) {
        int found = 0;
        XCHG_CHECK(MPI_Win_sync(st->nwin));
        for (int k = 0; k < N; k++)
            if (!st->got[k] && st->flags[k] >= seq) {
                copy_out(st, a, staging, S, k, off, c);
                st->got[k] = 1;
                left--;
                found = 1;
            }
        if (left == 0) break;
        if (!found) XCHG_CHECK(idle(st));
        XCHG_CHECK(read_flags(st, st->nwin, 0, READY_DISP(st, 0), N));
    }
fail:
    return rc;
}

static int shm_direct(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    shm_state *st = plan->state;
    const int64_t B = a->uniform_bytes;
    int rc = MPI_SUCCESS;
    if (a->size == 1 || B == 0) return xchg_copy_self_block(a);
    const int aware = plan->choice.value[PARAM_AWARE] != 0;
    size_t packed_bytes = 0, staging_bytes = 0;
    char *packed = NULL, *staging = NULL;
    if (!a->send.type.contiguous) {
        int nblocks = st->gather ? 1 : a->size;
        packed_bytes = (size_t)nblocks * (size_t)B;
        packed = xchg_scratch_alloc(ctx, packed_bytes);
        if (!packed) return xchg_error(MPI_ERR_NO_MEM, "out of memory for the packed send blocks");
        for (int t = 0; t < nblocks; t++)
            XCHG_CHECK(xchg_pack_block(&a->send, nblocks == 1 ? a->rank : t,
                                       packed + (size_t)t * (size_t)B));
    }
    if (!a->recv.type.contiguous) {
        staging_bytes = (size_t)a->size * (size_t)B;
        staging = xchg_scratch_alloc(ctx, staging_bytes);
        if (!staging) {
            rc = xchg_error(MPI_ERR_NO_MEM, "out of memory for the receive staging");
            goto fail;
        }
    }
    for (int64_t off = 0; off < B; off += st->chunk)
        XCHG_CHECK(one_round(st, a, packed, staging, off, B - off < st->chunk ? B - off : st->chunk,
                             aware));
    if (staging)
        for (int s = 0; s < a->size; s++)
            if (s != a->rank)
                XCHG_CHECK(xchg_unpack_block(&a->recv, s, staging + (size_t)s * (size_t)B));
    XCHG_CHECK(xchg_copy_self_block(a));
fail:
    if (staging) xchg_scratch_free(ctx, staging, staging_bytes);
    if (packed) xchg_scratch_free(ctx, packed, packed_bytes);
    return rc;
}

#define SHM_DIRECT_DESCRIPTOR(coll_)                                                  \
    {                                                                                 \
        .coll = coll_, .name = "shm_direct",                                          \
        .summary = "shared-memory gather, arrival-aware one-sided exchange among "    \
                   "node masters, arrival-aware shared-memory scatter (aware=0: "     \
                   "the baseline)",                                                   \
        .reference = "Qian & Afsahi 2011", .init = init, .init_blocks = 1, .run = shm_direct,           \
        .destroy = destroy, .num_params = 2,                                          \
        .params = {                                                                   \
            [PARAM_CHUNK] = {.name = "chunk", .kind = XCHG_PARAM_INT, .def = 4096,    \
                             .min = 1024, .max = 1 << 20,                               \
                             .help = "bytes of each block per round (shared and "     \
                                     "slot buffers are sized by it)"},                \
            [PARAM_AWARE] = {.name = "aware", .kind = XCHG_PARAM_INT, .def = 1,       \
                             .min = 0, .max = 1,                                      \
                             .help = "1: arrival-aware phases 2 and 3; 0: "           \
                                     "Shm_Direct baseline"}},                         \
        .is_flat = 0,                                                                 \
    }

const xchg_algorithm xchg_algo_alltoall_shm_direct = SHM_DIRECT_DESCRIPTOR(XCHG_ALLTOALL);
const xchg_algorithm xchg_algo_allgather_shm_direct = SHM_DIRECT_DESCRIPTOR(XCHG_ALLGATHER);
