/*
 * Ring allgather (MPICH MPIR_Allgather_intra_ring, Open MPI coll/tuned "ring"),
 * as described in
 *   R. Thakur, R. Rabenseifner, W. Gropp. Optimization of Collective
 *   Communication Operations in MPICH. International Journal of High
 *   Performance Computing Applications 19(1):49-66, 2005.
 *   DOI 10.1177/1094342005051521
 *
 * Step s (0..P-2): send the block of rank (rank-s) to rank+1 and receive the
 * block of rank (rank-s-1) from rank-1, straight into the receive buffer with
 * the receive datatype (each block is forwarded as it arrived).
 * Cost: (P-1) * alpha + (P-1) * beta * m: bandwidth-optimal, latency-poor.
 */
#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../select/model.h"

static int ring(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    (void)ctx; (void)plan;
    const int P = a->size, me = a->rank;
    const xchg_side *r = &a->recv;
    int rc = MPI_SUCCESS;
    XCHG_CHECK(xchg_copy_self_block(a));
    if (a->uniform_bytes == 0) return MPI_SUCCESS;
    for (int s = 0; s < P - 1; s++) {
        int send_block = (me - s + P) % P, recv_block = (me - s - 1 + P) % P;
        XCHG_CHECK(xchg_sendrecv(xchg_side_block_ptr(r, send_block), r->counts[send_block],
                                r->type.type, (me + 1) % P, 0, xchg_side_block_ptr(r, recv_block),
                                r->counts[recv_block], r->type.type, (me - 1 + P) % P, 0,
                                a->comm, MPI_STATUS_IGNORE));
    }
fail:
    return rc;
}

/* The model: P-1 rounds of one block to rank+1; one rank per node sends
 * off the node (ranks placed by node), so the node's link is not shared. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    (void)choice;
    int remote = c->nodes > 1;
    xchg_cost_phase ring = {.rounds = c->P - 1, .local_msgs = remote ? 0 : c->P - 1,
                            .remote_msgs = remote ? c->P - 1 : 0,
                            .local_bytes = remote ? 0 : (c->P - 1) * c->block,
                            .remote_bytes = remote ? (c->P - 1) * c->block : 0, .sharers = 1};
    return xchg_cost_of_phase(c, plat, &ring);
}

const xchg_algorithm xchg_algo_allgather_ring = {
    .coll = XCHG_ALLGATHER,
    .name = "ring",
    .summary = "P-1 steps around a ring (bandwidth-optimal)",
    .reference = "Thakur et al. 2005",
    .run = ring,
    .cost = cost,
    .is_flat = 1,
};
