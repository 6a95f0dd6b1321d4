/*
 * Bruck allgather (MPICH MPIR_Allgather_intra_brucks), the concatenation
 * algorithm of
 *   J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal, D. Weathersby. Efficient
 *   Algorithms for All-to-All Communications in Multiport Message-Passing
 *   Systems. IEEE Transactions on Parallel and Distributed Systems
 *   8(11):1143-1156, 1997. DOI 10.1109/71.642949
 *
 * Packed slots, slot 0 = own block. Round k (k = 1, 2, 4, ... < P): send the
 * first min(k, P-k) slots to rank-k, receive as many from rank+k into slots
 * k.. . Afterwards slot i holds the block of rank (rank+i) mod P, unpacked
 * into place. Works for any P.
 * Cost: ceil(log2 P) * alpha + (P-1) * beta * m, plus packing.
 */
#include <limits.h>

#include "../../core/context.h"
#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../select/model.h"

static int bruck(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    (void)plan;
    const int P = a->size, me = a->rank;
    const size_t m = (size_t)a->uniform_bytes;
    int rc = MPI_SUCCESS;
    if (m == 0) return MPI_SUCCESS;
    if ((size_t)P * m > INT_MAX) /* one round's message is counted in an int */
        return xchg_error(MPI_ERR_COUNT, "bruck: %zu bytes do not fit one message", (size_t)P * m);
    char *slots = xchg_scratch_alloc(ctx, (size_t)P * m);
    if (!slots) return xchg_error(MPI_ERR_NO_MEM, "out of memory (bruck, %zu bytes)", (size_t)P * m);
    XCHG_CHECK(xchg_pack_block(&a->send, me, slots));
    for (int k = 1; k < P; k <<= 1) {
        int count = k < P - k ? k : P - k;
        XCHG_CHECK(xchg_sendrecv(slots, (int)(count * m), MPI_BYTE, (me - k + P) % P, 0,
                                slots + (size_t)k * m, (int)(count * m), MPI_BYTE, (me + k) % P, 0,
                                a->comm, MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < P; i++) XCHG_CHECK(xchg_unpack_block(&a->recv, (me + i) % P, slots + i * m));
fail:
    xchg_scratch_free(ctx, slots, (size_t)P * m);
    return rc;
}

/* The model: round k sends min(k, P-k) packed blocks to rank-k; the final
 * rotation copies every block once more. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    (void)choice;
    xchg_cost_phase rotate = {.copy_bytes = 2.0 * c->P * c->block};
    double total = xchg_cost_of_phase(c, plat, &rotate);
    for (int k = 1; k < c->P; k <<= 1) {
        double f = xchg_cost_remote_fraction(c, k);
        double bytes = (double)(k < c->P - k ? k : c->P - k) * c->block;
        xchg_cost_phase round = {.rounds = 1, .local_msgs = 1 - f, .remote_msgs = f,
                                 .local_bytes = (1 - f) * bytes, .remote_bytes = f * bytes};
        total += xchg_cost_of_phase(c, plat, &round);
    }
    return total;
}

const xchg_algorithm xchg_algo_allgather_bruck = {
    .coll = XCHG_ALLGATHER,
    .name = "bruck",
    .summary = "Bruck: ceil(log2 P) rounds of packed blocks, any P",
    .reference = "Bruck et al. 1997",
    .run = bruck,
    .cost = cost,
    .is_flat = 1,
};
