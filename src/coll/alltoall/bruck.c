/*
 * Bruck alltoall, radix 2 (MPICH MPIR_Alltoall_intra_brucks, Open MPI
 * coll/tuned "bruck"), the index algorithm of
 *   J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal, D. Weathersby. Efficient
 *   Algorithms for All-to-All Communications in Multiport Message-Passing
 *   Systems. IEEE Transactions on Parallel and Distributed Systems
 *   8(11):1143-1156, 1997. DOI 10.1109/71.642949
 *
 * Blocks are packed into P slots of m bytes, rotated so that slot i holds the
 * block for rank (rank+i) mod P. In round k (k = 1, 2, 4, ... < P) every rank
 * sends the slots whose index has bit k set to rank+k and receives the same
 * slots from rank-k. Afterwards slot i holds the block that rank-i sent to us,
 * which is unpacked into the receive buffer (the inverse rotation).
 * Cost: ceil(log2 P) * alpha + ceil(log2 P) * (P/2) * beta * m, plus packing:
 * fewer rounds than any linear algorithm, more bytes; good for small m.
 * Scratch: P*m for the slots, and P/2*m twice for one round's send and receive.
 */
#include <limits.h>
#include <string.h>

#include "../../core/context.h"
#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../select/model.h"

static int bruck(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    (void)plan;
    const int P = a->size, me = a->rank;
    const size_t m = (size_t)a->uniform_bytes;
    const size_t half = (size_t)(P / 2 + 1) * m;
    int rc = MPI_SUCCESS;
    char *slots = xchg_scratch_alloc(ctx, (size_t)P * m);
    char *outgoing = xchg_scratch_alloc(ctx, half);
    char *incoming = xchg_scratch_alloc(ctx, half);
    if (m > 0 && (!slots || !outgoing || !incoming)) {
        rc = xchg_error(MPI_ERR_NO_MEM, "out of memory (bruck, %zu bytes)", (size_t)P * m);
        goto fail;
    }
    if (m == 0) goto fail; /* nothing to move; rc is MPI_SUCCESS */
    if (half > INT_MAX) { /* one round's message is counted in an int */
        rc = xchg_error(MPI_ERR_COUNT, "bruck: a round would carry %zu bytes", half);
        goto fail;
    }
    for (int i = 0; i < P; i++) XCHG_CHECK(xchg_pack_block(&a->send, (me + i) % P, slots + i * m));

    for (int k = 1; k < P; k <<= 1) {
        size_t n = 0;
        for (int i = k; i < P; i++)
            if (i & k) memcpy(outgoing + (n++) * m, slots + i * m, m);
        XCHG_CHECK(xchg_sendrecv(outgoing, (int)(n * m), MPI_BYTE, (me + k) % P, 0, incoming,
                                (int)(n * m), MPI_BYTE, (me - k + P) % P, 0, a->comm,
                                MPI_STATUS_IGNORE));
        n = 0;
        for (int i = k; i < P; i++)
            if (i & k) memcpy(slots + i * m, incoming + (n++) * m, m);
    }
    for (int i = 0; i < P; i++) XCHG_CHECK(xchg_unpack_block(&a->recv, (me - i + P) % P, slots + i * m));
fail:
    xchg_scratch_free(ctx, incoming, half);
    xchg_scratch_free(ctx, outgoing, half);
    xchg_scratch_free(ctx, slots, (size_t)P * m);
    return rc;
}

/* The model: round k (distance k = 1, 2, 4, ...) sends the blocks whose
 * index has bit k, packed and unpacked; the rotation copies every block twice. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    (void)choice;
    xchg_cost_phase rotate = {.copy_bytes = 2.0 * c->P * c->block};
    double total = xchg_cost_of_phase(c, plat, &rotate);
    for (int64_t k = 1; k < c->P; k <<= 1) {
        int64_t with_bit = (c->P / (2 * k)) * k + (c->P % (2 * k) > k ? c->P % (2 * k) - k : 0);
        double f = xchg_cost_remote_fraction(c, (int)k), bytes = (double)with_bit * c->block;
        xchg_cost_phase round = {.rounds = 1, .local_msgs = 1 - f, .remote_msgs = f,
                                 .local_bytes = (1 - f) * bytes, .remote_bytes = f * bytes,
                                 .copy_bytes = 2 * bytes};
        total += xchg_cost_of_phase(c, plat, &round);
    }
    return total;
}

const xchg_algorithm xchg_algo_alltoall_bruck = {
    .coll = XCHG_ALLTOALL,
    .name = "bruck",
    .summary = "radix-2 Bruck: log2 P rounds of packed blocks",
    .reference = "Bruck et al. 1997",
    .run = bruck,
    .cost = cost,
    .is_flat = 1,
};
