/*
 * Ring allgatherv (MPICH MPIR_Allgatherv_intra_ring, Open MPI coll/base
 * allgatherv "ring"), as described for allgather in
 *   R. Thakur, R. Rabenseifner, W. Gropp. Optimization of Collective
 *   Communication Operations in MPICH. International Journal of High
 *   Performance Computing Applications 19(1):49-66, 2005.
 *   DOI 10.1177/1094342005051521
 *
 * Schedule: step s (0..P-2): send the block of rank (rank-s) to rank+1 and
 * receive the block of rank (rank-s-1) from rank-1, straight into the receive
 * buffer with the receive datatype (each block is forwarded where it
 * arrived: no packing, any displacements). A block of zero bytes is not
 * sent: both ends know its size (every rank has the same recvcounts), so
 * that side of the step is MPI_PROC_NULL.
 * Cost: blocks differ in size, and every step waits for the slowest link of
 * that step; the largest block m_max travels the whole ring, so some link
 * carries it at every step: (P-1) * (alpha + beta * m_max). With equal
 * blocks this is allgather's bandwidth-optimal (P-1) * alpha + (P-1) * beta * m;
 * one large contribution makes it P-1 times that block.
 * Memory: no scratch.
 */
#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../select/model.h"

static int ring(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    (void)ctx; (void)plan;
    const int P = a->size, me = a->rank, right = (me + 1) % P, left = (me - 1 + P) % P;
    const xchg_side *r = &a->recv;
    int rc = MPI_SUCCESS;
    XCHG_CHECK(xchg_copy_self_block(a));
    for (int s = 0; s < P - 1; s++) {
        int send_block = (me - s + P) % P, recv_block = (me - s - 1 + P) % P;
        XCHG_CHECK(MPI_Sendrecv(xchg_side_block_ptr(r, send_block), r->counts[send_block],
                                r->type.type, r->bytes[send_block] ? right : MPI_PROC_NULL, 0,
                                xchg_side_block_ptr(r, recv_block), r->counts[recv_block],
                                r->type.type, r->bytes[recv_block] ? left : MPI_PROC_NULL, 0,
                                a->comm, MPI_STATUS_IGNORE));
    }
fail:
    return rc;
}

/* The model: P-1 rounds, each paced by the largest block (it crosses some
 * link at every step); one rank per node sends off the node (ranks placed
 * by node), so the node's link is not shared. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    (void)choice;
    int remote = c->nodes > 1;
    double step = c->max_block > c->block ? c->max_block : c->block;
    xchg_cost_phase ring = {.rounds = c->P - 1, .local_msgs = remote ? 0 : c->P - 1,
                            .remote_msgs = remote ? c->P - 1 : 0,
                            .local_bytes = remote ? 0 : (c->P - 1) * step,
                            .remote_bytes = remote ? (c->P - 1) * step : 0, .sharers = 1};
    return xchg_cost_of_phase(c, plat, &ring);
}

const xchg_algorithm xchg_algo_allgatherv_ring = {
    .coll = XCHG_ALLGATHERV,
    .name = "ring",
    .summary = "P-1 steps around a ring, blocks where they lie",
    .reference = "Thakur et al. 2005",
    .run = ring,
    .cost = cost,
    .is_flat = 1,
};
