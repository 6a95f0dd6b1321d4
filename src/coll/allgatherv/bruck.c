/*
 * Bruck allgatherv (MPICH MPIR_Allgatherv_intra_brucks), the concatenation
 * algorithm of
 *   J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal, D. Weathersby. Efficient
 *   Algorithms for All-to-All Communications in Multiport Message-Passing
 *   Systems. IEEE Transactions on Parallel and Distributed Systems
 *   8(11):1143-1156, 1997. DOI 10.1109/71.642949
 * with blocks of different sizes, as in
 *   R. Thakur, R. Rabenseifner, W. Gropp. Optimization of Collective
 *   Communication Operations in MPICH. International Journal of High
 *   Performance Computing Applications 19(1):49-66, 2005.
 *   DOI 10.1177/1094342005051521
 *
 * Schedule. A packed buffer of slots, slot i holding the block of rank
 * (rank + i) mod P, slots back to back: slot i starts at the sum of the
 * sizes of slots 0..i-1 (every rank knows every block's size, so each
 * computes its own rotated layout). Slot 0 is the own block. Round k
 * (k = 1, 2, 4, ... < P): send the first min(k, P-k) slots, one run of
 * bytes, to rank-k, and receive as many from rank+k into slots k.. .
 * Finally the rotation: slot i is unpacked into the receive block of rank
 * (rank+i) mod P. Any P; a round without bytes sends nothing.
 * Cost, with n the total of all blocks: ceil(log2 P) * alpha + beta * n
 * (the busiest rank's rounds; uneven blocks shift bytes between rounds,
 * not their sum) + 2 n beta_copy for packing the own block and the final
 * rotation.
 * Memory: n bytes of slots, plus P+1 int64 of slot offsets.
 */
#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../select/model.h"

static int bruck(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    (void)plan;
    const int P = a->size, me = a->rank;
    const xchg_side *r = &a->recv;
    int rc = MPI_SUCCESS, nreq = 0;
    MPI_Request reqs[2];
    size_t slot_bytes = 0, offsets_bytes = ((size_t)P + 1) * sizeof(int64_t);
    char *slots = NULL;
    int64_t *start = xchg_scratch_alloc(ctx, offsets_bytes);
    if (!start) return xchg_error(MPI_ERR_NO_MEM, "bruck: out of memory");
    start[0] = 0;
    for (int i = 0; i < P; i++) start[i + 1] = start[i] + r->bytes[(me + i) % P];
    slot_bytes = (size_t)start[P];
    if (slot_bytes == 0) goto fail; /* nothing to move, not even the own block */
    slots = xchg_scratch_alloc(ctx, slot_bytes);
    if (!slots) {
        rc = xchg_error(MPI_ERR_NO_MEM, "bruck: out of memory (%zu bytes)", slot_bytes);
        goto fail;
    }
    XCHG_CHECK(xchg_pack_block(&a->send, me, slots));
    for (int k = 1; k < P; k <<= 1) {
        int count = k < P - k ? k : P - k;
        int64_t out = start[count], in = start[k + count] - start[k];
        if (in > 0) {
            XCHG_CHECK(xchg_irecv_bytes(slots + start[k], in, (me + k) % P, 0, a->comm,
                                        &reqs[nreq], "bruck"));
            nreq++; /* counted once posted: fail waits only for real requests */
        }
        if (out > 0) {
            XCHG_CHECK(xchg_isend_bytes(slots, out, (me - k + P) % P, 0, a->comm, &reqs[nreq],
                                        "bruck"));
            nreq++;
        }
        XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
        nreq = 0;
    }
    for (int i = 0; i < P; i++)
        XCHG_CHECK(xchg_unpack_block(r, (me + i) % P, slots + start[i]));
fail:
    if (nreq > 0) xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    xchg_scratch_free(ctx, slots, slot_bytes);
    xchg_scratch_free(ctx, start, offsets_bytes);
    return rc;
}

/* The model: round k sends min(k, P-k) mean blocks to rank-k; packing the
 * own block and the final rotation copy every block once more. */
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

const xchg_algorithm xchg_algo_allgatherv_bruck = {
    .coll = XCHG_ALLGATHERV,
    .name = "bruck",
    .summary = "Bruck: ceil(log2 P) rounds of packed slots, final rotation, any P",
    .reference = "Bruck et al. 1997",
    .run = bruck,
    .cost = cost,
    .is_flat = 1,
};
