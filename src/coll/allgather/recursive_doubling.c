/*
 * Recursive-doubling allgather for any P, with the usual fold for P not a
 * power of two; the algorithm of
 *   R. Thakur, R. Rabenseifner, W. Gropp. Optimization of Collective
 *   Communication Operations in MPICH. International Journal of High
 *   Performance Computing Applications 19(1):49-66, 2005.
 *   DOI 10.1177/1094342005051521
 *
 * Let p2 be the largest power of two <= P. Ranks p2..P-1 ("extras") first
 * hand their block to rank (rank - p2). Ranks 0..p2-1 then run recursive
 * doubling: at distance d = 1, 2, 4, ... each exchanges with rank XOR d all
 * the blocks its aligned group of d ranks holds (theirs and their extras').
 * Finally each rank below P - p2 sends everything to its extra.
 * Blocks of consecutive ranks are consecutive in the receive buffer, so every
 * message is one contiguous run of receive-datatype elements: no packing.
 * Cost: (ceil(log2 P) + [P != p2] * 2) * alpha + (P-1) * beta * m (the extras'
 * partners send about 2x that).
 */
#include <limits.h>

#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../select/model.h"

/* Post a send or receive of the blocks of ranks [first, last) via recvbuf. */
static int post_run(const xchg_args *a, int first, int last, int peer, int sending,
                    MPI_Request *req, int *nreq)
{
    if (last <= first) return MPI_SUCCESS;
    const xchg_side *r = &a->recv;
    int64_t count = (int64_t)(last - first) * r->counts[0];
    if (count > INT_MAX)
        return xchg_error(MPI_ERR_COUNT, "recursive_doubling: %lld elements in one message",
                          (long long)count);
    char *ptr = xchg_side_block_ptr(r, first);
    int rc = sending ? MPI_Isend(ptr, (int)count, r->type.type, peer, 0, a->comm, req)
                     : MPI_Irecv(ptr, (int)count, r->type.type, peer, 0, a->comm, req);
    if (rc == MPI_SUCCESS) (*nreq)++; /* count only requests that exist: fail drains n */
    return rc;
}

/* Blocks held by the aligned group of `d` ranks that contains `rank`. */
static int post_group(const xchg_args *a, int p2, int rank, int d, int peer, int sending,
                      MPI_Request *reqs, int *nreq)
{
    int rc, lo = rank & ~(d - 1), hi = lo + d, extras = a->size - p2;
    rc = post_run(a, lo, hi, peer, sending, &reqs[*nreq], nreq);
    if (rc == MPI_SUCCESS && lo < extras)
        rc = post_run(a, p2 + lo, p2 + (hi < extras ? hi : extras), peer, sending, &reqs[*nreq], nreq);
    return rc;
}

static int recursive_doubling(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    (void)ctx; (void)plan;
    const int P = a->size, me = a->rank;
    int p2 = 1, rc = MPI_SUCCESS, n = 0;
    MPI_Request reqs[4];
    while (p2 * 2 <= P) p2 *= 2;
    XCHG_CHECK(xchg_copy_self_block(a));
    if (a->uniform_bytes == 0) return MPI_SUCCESS;

    if (me >= p2) { /* extra: hand over, then receive everything else */
        XCHG_CHECK(post_run(a, me, me + 1, me - p2, 1, &reqs[n], &n));
        XCHG_CHECK(post_run(a, 0, me, me - p2, 0, &reqs[n], &n));
        XCHG_CHECK(post_run(a, me + 1, P, me - p2, 0, &reqs[n], &n));
        XCHG_CHECK(xchg_waitall(n, reqs, MPI_STATUSES_IGNORE));
        return MPI_SUCCESS;
    }
    int extra = me + p2 < P ? me + p2 : -1;
    if (extra >= 0) {
        XCHG_CHECK(post_run(a, extra, extra + 1, extra, 0, &reqs[n], &n));
        XCHG_CHECK(xchg_waitall(n, reqs, MPI_STATUSES_IGNORE));
        n = 0;
    }
    for (int d = 1; d < p2; d <<= 1) {
        int partner = me ^ d;
        XCHG_CHECK(post_group(a, p2, partner, d, partner, 0, reqs, &n));
        XCHG_CHECK(post_group(a, p2, me, d, partner, 1, reqs, &n));
        XCHG_CHECK(xchg_waitall(n, reqs, MPI_STATUSES_IGNORE));
        n = 0;
    }
    if (extra >= 0) {
        XCHG_CHECK(post_run(a, 0, extra, extra, 1, &reqs[n], &n));
        XCHG_CHECK(post_run(a, extra + 1, P, extra, 1, &reqs[n], &n));
        XCHG_CHECK(xchg_waitall(n, reqs, MPI_STATUSES_IGNORE));
    }
    return MPI_SUCCESS;
fail:
    if (n > 0) xchg_waitall(n, reqs, MPI_STATUSES_IGNORE);
    return rc;
}

/* The model: log2 p2 rounds, round d sending d blocks (times the extras'
 * share) to rank XOR d; P != p2 adds the fold: the extras' blocks in, and
 * the whole buffer out to them. */
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

const xchg_algorithm xchg_algo_allgather_recursive_doubling = {
    .coll = XCHG_ALLGATHER,
    .name = "recursive_doubling",
    .summary = "recursive doubling, folded for any P",
    .reference = "Thakur et al. 2005",
    .run = recursive_doubling,
    .cost = cost,
    .is_flat = 1,
};
