/*
 * Pairwise exchange (Open MPI coll/tuned "pairwise", MPICH "pairwise"), as in
 *   R. Thakur, R. Rabenseifner, W. Gropp. Optimization of Collective
 *   Communication Operations in MPICH. International Journal of High
 *   Performance Computing Applications 19(1):49-66, 2005.
 *   DOI 10.1177/1094342005051521
 * and Algorithm 1 of
 *   E. Namugwanya, A. Bienz, D. Schafer, A. Skjellum. Collective-Optimized
 *   FFTs. arXiv preprint, 2023. DOI not given.
 *
 * P-1 steps; in step i each rank sends one block and receives one block with a
 * single MPI_Sendrecv, so at most one message per rank is in flight.
 *   order=shift: send to rank+i, receive from rank-i (any P)
 *   order=xor:   exchange with rank XOR i (P a power of two): both directions
 *                of a pair travel in the same step
 * Cost: (P-1) * (alpha + beta * m) for blocks of m bytes; every step waits for
 * the slowest of its two partners, so late arrivals propagate.
 */
#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../select/model.h"

enum { PARAM_ORDER };
enum { ORDER_SHIFT, ORDER_XOR };
static const char *const order_names[] = {"shift", "xor", NULL};

static int pairwise(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    (void)ctx;
    int rc = MPI_SUCCESS, xor_order = plan->choice.value[PARAM_ORDER] == ORDER_XOR;
    XCHG_CHECK(xchg_copy_self_block(a));
    for (int i = 1; i < a->size; i++) {
        int to = xor_order ? a->rank ^ i : xchg_send_peer(a, i);
        int from = xor_order ? a->rank ^ i : xchg_recv_peer(a, i);
        /* An empty block in one direction becomes MPI_PROC_NULL. */
        XCHG_CHECK(xchg_sendrecv(xchg_side_block_ptr(&a->send, to), a->send.counts[to],
                                xchg_side_type(&a->send, to)->type,
                                a->send.bytes[to] ? to : MPI_PROC_NULL, 0,
                                xchg_side_block_ptr(&a->recv, from), a->recv.counts[from],
                                xchg_side_type(&a->recv, from)->type,
                                a->recv.bytes[from] ? from : MPI_PROC_NULL, 0,
                                a->comm, MPI_STATUS_IGNORE));
    }
fail:
    return rc;
}

static const char *needs_power_of_two(const xchg_context *ctx, const xchg_choice *choice)
{
    int p = ctx->size;
    if (choice->value[PARAM_ORDER] == ORDER_XOR && (p & (p - 1)) != 0)
        return "order=xor needs a power-of-two number of ranks";
    return NULL;
}

/* The model: P-1 rounds. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    (void)choice;
    return xchg_cost_direct(c, plat, c->P - 1);
}

XCHG_REGISTER_DIRECT(pairwise, .name = "pairwise",
                     .summary = "P-1 steps of one MPI_Sendrecv each",
                     .reference = "Thakur et al. 2005",
                     .run = pairwise, .cost = cost, .num_params = 1,
                     .params = {[PARAM_ORDER] = {.name = "order", .kind = XCHG_PARAM_ENUM,
                                                 .def = ORDER_SHIFT, .names = order_names,
                                                 .help = "peer order: rank+-i, or rank XOR i (P = 2^k)"}},
                     .applicable = needs_power_of_two)
