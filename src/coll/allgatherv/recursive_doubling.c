/*
 * Recursive-doubling allgatherv for any P: MPICH's recursive doubling
 * (MPIR_Allgatherv_intra_recursive_doubling) with blocks of different sizes,
 * from
 *   R. Thakur, R. Rabenseifner, W. Gropp. Optimization of Collective
 *   Communication Operations in MPICH. International Journal of High
 *   Performance Computing Applications 19(1):49-66, 2005.
 *   DOI 10.1177/1094342005051521
 * with the fold of the extra ranks for P not a power of two that the same
 * paper uses for reduce-scatter and allreduce (xchg's allgather does the same).
 *
 * Schedule. Let p2 be the largest power of two <= P. Ranks p2..P-1 (the
 * extras) first hand their block to rank (rank - p2). Ranks 0..p2-1 then run
 * recursive doubling: at distance d = 1, 2, 4, ... each exchanges with rank
 * XOR d all the blocks its aligned group of d ranks holds (theirs and their
 * extras'). Finally each rank below P - p2 sends everything else to its
 * extra. A message is the blocks where they lie in the receive buffer
 * (blocks.h: an hindexed datatype of the receive datatype), so blocks in any
 * order, with gaps, of any datatype, need no packing; blocks of zero bytes
 * are left out, and a message without bytes is not sent.
 * Cost, with n = the total of all blocks: (log2 p2 + 2 [P != p2]) * alpha +
 * beta * n * (P / p2) for the doubling (each round carries its group's
 * blocks: with uneven blocks the busiest pair's), plus, with extras, the
 * fold: beta * (m_extra + n). A power of two is allgather's
 * log2 P * alpha + (n - m) * beta.
 * Memory: 2P ints and P MPI_Aint of workspace for the message types.
 */
#include "../../core/error.h"
#include "../../select/model.h"
#include "blocks.h"

/* The ranks whose blocks the aligned group of `d` ranks containing `rank`
 * holds: [lo, lo+d) and their extras. Returns how many. */
static int group_ranks(int P, int p2, int rank, int d, int *ranks)
{
    int lo = rank & ~(d - 1), hi = lo + d, extras = P - p2, n = 0;
    for (int q = lo; q < hi; q++) ranks[n++] = q;
    for (int q = lo; q < hi && q < extras; q++) ranks[n++] = p2 + q;
    return n;
}

/* Every rank but `except`. */
static int all_but(int P, int except, int *ranks)
{
    int n = 0;
    for (int q = 0; q < P; q++)
        if (q != except) ranks[n++] = q;
    return n;
}

static int recursive_doubling(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    (void)plan;
    const int P = a->size, me = a->rank;
    int p2 = 1, rc = MPI_SUCCESS, nreq = 0;
    MPI_Request reqs[2];
    agv_work w = {0};
    while (p2 * 2 <= P) p2 *= 2;
    XCHG_CHECK(xchg_copy_self_block(a));
    if (P == 1) return MPI_SUCCESS;
    XCHG_CHECK(agv_work_alloc(ctx, a, &w));

    if (me >= p2) { /* extra: hand over the own block, then receive all others */
        w.ranks[0] = me;
        XCHG_CHECK(agv_post_blocks(a, &w, 1, me - p2, 0, 1, reqs, &nreq));
        XCHG_CHECK(agv_post_blocks(a, &w, all_but(P, me, w.ranks), me - p2, 1, 0, reqs, &nreq));
        XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
        nreq = 0;
        goto fail; /* done: the one exit path frees the workspace */
    }
    int extra = me + p2 < P ? me + p2 : -1;
    if (extra >= 0) {
        w.ranks[0] = extra;
        XCHG_CHECK(agv_post_blocks(a, &w, 1, extra, 0, 0, reqs, &nreq));
        XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
        nreq = 0;
    }
    for (int d = 1; d < p2; d <<= 1) {
        int partner = me ^ d;
        XCHG_CHECK(agv_post_blocks(a, &w, group_ranks(P, p2, partner, d, w.ranks), partner, 0, 0,
                                   reqs, &nreq));
        XCHG_CHECK(agv_post_blocks(a, &w, group_ranks(P, p2, me, d, w.ranks), partner, 0, 1,
                                   reqs, &nreq));
        XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
        nreq = 0;
    }
    if (extra >= 0) {
        XCHG_CHECK(agv_post_blocks(a, &w, all_but(P, extra, w.ranks), extra, 1, 1, reqs, &nreq));
        XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
        nreq = 0;
    }
fail:
    if (nreq > 0) xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    agv_work_free(ctx, &w);
    return rc;
}

/* The model: log2 p2 rounds, round d carrying d mean blocks (times the
 * extras' share) to rank XOR d; P != p2 adds the fold: the extras' blocks
 * in, and the whole buffer out to them. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    (void)choice;
    int p2 = 1;
    while (2 * p2 <= c->P) p2 *= 2;
    double per_block = (double)c->P / p2 * c->block, total = 0;
    for (int d = 1; d < p2; d <<= 1) {
        double f = xchg_cost_remote_fraction(c, d), bytes = d * per_block;
        xchg_cost_phase round = {.rounds = 1, .local_msgs = 1 - f, .remote_msgs = f,
                                 .local_bytes = (1 - f) * bytes, .remote_bytes = f * bytes};
        total += xchg_cost_of_phase(c, plat, &round);
    }
    if (p2 != c->P) {
        double f = xchg_cost_remote_fraction(c, p2 < c->P ? p2 : c->P - 1);
        double bytes = c->block + (double)c->P * c->block;
        xchg_cost_phase fold = {.rounds = 2, .local_msgs = 2 * (1 - f), .remote_msgs = 2 * f,
                                .local_bytes = (1 - f) * bytes, .remote_bytes = f * bytes,
                                .sharers = 1};
        total += xchg_cost_of_phase(c, plat, &fold);
    }
    return total;
}

const xchg_algorithm xchg_algo_allgatherv_recursive_doubling = {
    .coll = XCHG_ALLGATHERV,
    .name = "recursive_doubling",
    .summary = "recursive doubling over hindexed block sets, folded for any P",
    .reference = "Thakur et al. 2005",
    .run = recursive_doubling,
    .cost = cost,
    .is_flat = 1,
};
